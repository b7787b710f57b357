// jest globalSetup: note which test images (built locally by the tests) already exist, so globalTeardown
// removes only the ones this run built. Plain ESM: global setup runs outside the TypeScript transform.
import { listTestImages } from './images.mjs'

export default async function setup() {
  globalThis.__gpuOverheadImagesBefore = new Set(await listTestImages())
}
