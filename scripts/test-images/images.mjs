// The images tests build with `docker import` (nothing can be pulled), by repository prefix.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)
export const TEST_IMAGE_PREFIXES = ['local/gpu-overhead-test', 'local/ngc-style-', 'local/nvidia-cuda-style']
const TIMEOUT_MS = 60_000

/** Whether a Docker engine answers `docker version`; when not, the client's first line of complaint. */
export async function engineAnswers() {
  try {
    await run('docker', ['version', '--format', '{{.Server.Version}}'], { timeout: TIMEOUT_MS })
    return { ok: true, why: '' }
  } catch (e) {
    const text = String(e?.stderr || e?.message || e)
    const line = text.split('\n').find(l => l.trim() !== '') ?? 'no answer'
    return { ok: false, why: e?.code === 'ENOENT' ? 'docker is not installed' : line.trim().slice(0, 200) }
  }
}

/** What the integration lane says when no engine answers: why, and how to start one. */
export function noEngineLine(why) {
  return (
    `No Docker engine answers (docker version: ${why}); the integration tests need one. Start it: ` +
    'scripts/dev-setup.sh (installs Docker and starts its engine, in a container too), or systemctl start docker; ' +
    'or run the unit lane alone: npm run test:unit.'
  )
}

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
