/**
 * ESM TypeScript tests (types stripped by esbuild: scripts/test-images/esbuild-transform.mjs), in three lanes (docs/development.md, "Running the tests"):
 * - `unit`: the tool's logic, with fakes for docker/podman/nvidia-smi and GitHub; no container engine is
 *   reached (the lane points DOCKER_HOST at a socket that does not exist, so a test that needs the real engine
 *   fails here and belongs below). `npm run test:unit`.
 * - `integration`: real containers on the local Docker engine and Podman, the own-workload tools, a second
 *   engine. `npm run test:integration`; where no Docker engine answers it skips the lane with one line (on CI:
 *   an error, as jest alone does).
 * - `calibration`: Monte Carlo checks of the statistics' error rates and coverage (thousands of generated checks,
 *   change-point noise calibration, bootstrap over recorded GPU data): no engine either, but minutes of CPU,
 *   so they leave the unit lane its quick answer. `npm run test:calibration`.
 * `npm test` runs all three: unit, calibration, integration.
 */

/**
 * Test files that start real containers (they build a test image or call the engine) or need the integration
 * lane's packages (docs/development.md, "Test prerequisites"), and the two that wait out a fake engine that hangs
 * (a minute of timeouts each, no CPU: they would hold a unit worker that long).
 */
export const INTEGRATION_TESTS = [
  'test/integration/',
  'test/tools/hung-engine.test.ts',
  'test/preflight/pull-budget.test.ts',
  'test/entry/action-defaults.test.ts',
  'test/execute/turns-container.test.ts',
  'test/fleet/fleet.test.ts',
  'test/fleet/image-bump.test.ts',
  'test/hardening/canary.test.ts',
  'test/hardening/container-reach.test.ts',
  'test/hardening/round-four-container.test.ts',
  'test/hardening/turns-and-daemons.test.ts',
  'test/hardening/faults-environment.test.ts',
  'test/hardening/faults-workload.test.ts',
  'test/hardening/untrusted-tree.test.ts',
  'test/hardening/post-containers.test.ts',
  'test/preflight/compat-probe.test.ts',
  'test/preflight/container-init.test.ts',
  'test/preflight/docker-image-helper.test.ts',
  'test/preflight/gate-command.test.ts',
  'test/preflight/gate-requirements.test.ts',
  'test/preflight/image.test.ts',
  'test/preflight/mounts.test.ts',
  'test/preflight/run-preflight.test.ts'
]
/** Files of the calibration lane: statistical properties measured over many generated or resampled checks. */
export const CALIBRATION_TESTS = [
  'test/analyze/changepoints.test.ts',
  'test/analyze/multi-gpu.test.ts',
  'test/analyze/sequential.test.ts',
  'test/analyze/stats.test.ts',
  'test/analyze/audit-cases.test.ts',
  'test/analyze/issue39-store.test.ts',
  'test/analyze/issue-52-modes.test.ts',
  'test/analyze/issue39-s1-floor.test.ts',
  'test/analyze/issue39-tail-rows.test.ts',
  'test/analyze/issue52-tails.test.ts',
  'test/analyze/report-consistency.test.ts'
]
const integrationGlobs = INTEGRATION_TESTS.map(p => `<rootDir>/${p.endsWith('/') ? `${p}**/*.test.ts` : p}`)

const common = {
  testEnvironment: 'node',
  // jest-circus with its per-file AsyncLocalStorage disabled after each file (the file says why).
  testRunner: '<rootDir>/scripts/test-images/circus-runner.cjs',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // esbuild strips the types (scripts/test-images/esbuild-transform.mjs); `npm run typecheck` checks them.
  transform: { '^.+\\.ts$': '<rootDir>/scripts/test-images/esbuild-transform.mjs' }
}

export default {
  testTimeout: 120000,
  maxWorkers: 2,
  // Longest files first on a clean clone too (no timing cache there): scripts/test-images/sequencer.mjs.
  testSequencer: '<rootDir>/scripts/test-images/sequencer.mjs',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...[...INTEGRATION_TESTS, ...CALIBRATION_TESTS].map(p => `<rootDir>/${p}`)
      ],
      setupFiles: ['<rootDir>/test/helpers/unit-lane.ts']
    },
    {
      ...common,
      displayName: 'calibration',
      testMatch: CALIBRATION_TESTS.map(p => `<rootDir>/${p}`),
      setupFiles: ['<rootDir>/test/helpers/unit-lane.ts']
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: integrationGlobs,
      // No engine: one line saying so and how to start one, before any test. The images the tests build are
      // removed after the run (scripts/test-images/after.mjs).
      globalSetup: './scripts/test-images/before.mjs',
      globalTeardown: './scripts/test-images/after.mjs'
    }
  ]
}
