/** ESM TypeScript tests through ts-jest. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['**/test/**/*.test.ts'],
  // Images the tests build are removed after the run (scripts/test-images/after.mjs).
  globalSetup: './scripts/test-images/before.mjs',
  globalTeardown: './scripts/test-images/after.mjs',
  testTimeout: 120000,
  maxWorkers: 2
}
