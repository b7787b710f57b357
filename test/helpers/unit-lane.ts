/**
 * Jest setup of the `unit` lane (jest.config.js): no container engine is reached from it. DOCKER_HOST points at a
 * socket that does not exist, so a test that calls the real engine fails in this lane, with Docker's own
 * "Cannot connect" line, instead of passing here only because a host happens to run Docker: such a test belongs
 * to the integration lane (INTEGRATION_TESTS in jest.config.js). Fake `docker` scripts on PATH are unaffected.
 */
process.env.DOCKER_HOST = 'unix:///nonexistent/gpu-overhead-unit-lane/docker.sock'
