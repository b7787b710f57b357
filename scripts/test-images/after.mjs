// jest globalTeardown: remove the test images this run built (local/gpu-overhead-test:*, local/ngc-style-*,
// local/nvidia-cuda-style-*); images that existed before the run are left alone. Set KEEP_TEST_IMAGES=1 to keep
// them (faster reruns while developing).
import { listTestImages, removeImages } from './images.mjs'
import { removePodmanStorage } from './podman-storage.mjs'

export default async function teardown() {
  // The run's own Podman store (podman-storage.mjs) goes whatever KEEP_TEST_IMAGES says: it lives in a temp folder.
  removePodmanStorage(globalThis.__gpuOverheadPodmanStorage)
  if (process.env.KEEP_TEST_IMAGES === '1') return
  const before = globalThis.__gpuOverheadImagesBefore ?? new Set()
  const built = (await listTestImages()).filter(i => !before.has(i))
  await removeImages(built)
}
