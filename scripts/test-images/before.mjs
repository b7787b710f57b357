// jest globalSetup of the integration lane: stop at once, with one line, when no Docker engine answers (every
// test of the lane needs one; `npm run test:integration` skips the lane before this, except on CI); then note
// which test images (built locally by the tests) already exist, so globalTeardown removes only the ones this run
// built. Plain ESM: global setup runs outside the TypeScript transform.
import { engineAnswers, listTestImages, noEngineLine } from './images.mjs'
import { podmanStorageForRun } from './podman-storage.mjs'

export default async function setup() {
  const engine = await engineAnswers()
  if (!engine.ok) {
    const line = noEngineLine(engine.why)
    // Jest prints the thrown error once; its stack is this line alone (no frames to read past).
    const e = new Error(line)
    e.stack = line
    throw e
  }
  globalThis.__gpuOverheadImagesBefore = new Set(await listTestImages())
  // Set before the workers start, so every test and every CLI they run (the variable is allow-listed) sees it.
  globalThis.__gpuOverheadPodmanStorage = podmanStorageForRun()
}
