// The images tests build with `docker import` (nothing can be pulled), by repository prefix.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)
export const TEST_IMAGE_PREFIXES = ['local/gpu-overhead-test', 'local/ngc-style-', 'local/nvidia-cuda-style']
const TIMEOUT_MS = 60_000

/** `repo:tag` of every test image on the Docker engine; none when no engine answers. */
export async function listTestImages() {
  try {
    const { stdout } = await run('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}'], {
      timeout: TIMEOUT_MS
    })
    return stdout.split('\n').filter(line => TEST_IMAGE_PREFIXES.some(p => line.startsWith(p)))
  } catch {
    return []
  }
}

export async function removeImages(images) {
  if (!images.length) return
  // --no-prune keeps shared parent layers out of it; an image still used by a container stays (rmi refuses).
  await run('docker', ['rmi', '--no-prune', ...images], { timeout: TIMEOUT_MS }).catch(() => undefined)
}
