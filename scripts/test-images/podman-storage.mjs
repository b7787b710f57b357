// Podman's default store cannot live on OverlayFS ("'overlay' is not supported over overlayfs"): in a container
// (Docker started inside it, as README's command 2 does) every Podman test then failed at its first `podman
// import`. There the integration lane gives Podman a store of its own for the run, with the vfs driver, in a temp
// folder that globalTeardown removes: the tests' images never reach the host's store either. Elsewhere, or where
// CONTAINERS_STORAGE_CONF is already set (the user's choice), nothing changes. Any doubt leaves Podman as it is.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const OVERLAYFS_MAGIC = 0x794c7630

/** Podman's default graph root for this user (containers-storage.conf(5)). */
function defaultGraphRoot() {
  if (process.getuid?.() === 0) return '/var/lib/containers/storage'
  const data = process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share')
  return path.join(data, 'containers', 'storage')
}

/** Whether `dir` (or the nearest folder above it that exists) is on OverlayFS. */
function onOverlay(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(d)) return fs.statfsSync(d).type === OVERLAYFS_MAGIC
    if (d === path.dirname(d)) return false
  }
}

/** The run's own store's folder when Podman needs one here (CONTAINERS_STORAGE_CONF set to it), else null. */
export function podmanStorageForRun(env = process.env) {
  if (env.CONTAINERS_STORAGE_CONF) return null
  if (env.GPU_OVERHEAD_TEST_PODMAN_VFS !== '1' && !onOverlay(defaultGraphRoot())) return null
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-podman-'))
  const conf = path.join(dir, 'storage.conf')
  fs.writeFileSync(
    conf,
    `[storage]\ndriver = "vfs"\nrunroot = "${path.join(dir, 'run')}"\ngraphroot = "${path.join(dir, 'graph')}"\n`
  )
  env.CONTAINERS_STORAGE_CONF = conf
  return dir
}

/** Removes the run's own store (its images and containers go with it). */
export function removePodmanStorage(dir) {
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
}
