/**
 * Docker's CLI (tools/docker.ts builds the argv). A remote engine is DOCKER_HOST (ARC's dind sidecar): it
 * shares the runner's work folder only, so whatever a container mounts lives there (execute/run-folders.ts).
 */
import { HOST_CAPABILITIES, type Launcher } from '../launcher.js'
import { engineEndpoint } from '../endpoint.js'
import { engineProcessSpec } from '../engine-cli/index.js'

export const dockerLauncher: Launcher = {
  name: 'docker',
  runsImage: true,
  runtime: 'docker',
  capabilities: HOST_CAPABILITIES,
  settings: env => ({ clientArgs: [], endpoint: engineEndpoint('DOCKER_HOST', env.DOCKER_HOST) }),
  describe: s => `docker run${s.endpoint ? ` on the engine at ${s.endpoint}` : ''}`,
  processSpec: r => engineProcessSpec('docker', r)
}
