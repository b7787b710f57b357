/** /proc/self/mountinfo (proc(5)): which mount a container path lives on, and what kind it is. */
import * as fs from 'node:fs'

export interface MountInfoEntry {
  id: number
  parent: number
  dev: string
  /** Path within the source filesystem that is mounted here ('/' = its root). */
  root: string
  mount_point: string
  /** Per-mount options (`ro`/`rw`, ...). */
  options: string[]
  optional: string[]
  fs_type: string
  source: string
  super_options: string[]
}

export type MountKind = 'bind' | 'volume' | 'overlay' | 'tmpfs' | 'other'

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)))
}

/** Parse /proc/self/mountinfo (proc(5)). Malformed lines are skipped. */
export function parseMountinfo(text: string): MountInfoEntry[] {
  const entries: MountInfoEntry[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const f = line.trim().split(' ')
    const sep = f.indexOf('-', 6)
    if (f.length < 10 || sep < 0 || f.length < sep + 3) continue
    entries.push({
      id: Number(f[0]),
      parent: Number(f[1]),
      dev: f[2] ?? '',
      root: unescapeOctal(f[3] ?? ''),
      mount_point: unescapeOctal(f[4] ?? ''),
      options: (f[5] ?? '').split(','),
      optional: f.slice(6, sep),
      fs_type: f[sep + 1] ?? '',
      source: unescapeOctal(f[sep + 2] ?? ''),
      super_options: (f[sep + 3] ?? '').split(',')
    })
  }
  return entries
}

/** The mount a path lives on: the longest mount point that is a path prefix; the later one when stacked. */
export function coveringMount(entries: readonly MountInfoEntry[], p: string): MountInfoEntry | null {
  let best: MountInfoEntry | null = null
  for (const e of entries) {
    const mp = e.mount_point
    const under = mp === '/' || p === mp || p.startsWith(mp.endsWith('/') ? mp : `${mp}/`)
    if (!under) continue
    if (best === null || mp.length >= best.mount_point.length) best = e
  }
  return best
}

const SPECIAL_FS = new Set([
  'proc',
  'sysfs',
  'devpts',
  'mqueue',
  'cgroup',
  'cgroup2',
  'devtmpfs',
  'securityfs',
  'debugfs'
])

/**
 * The kind of a covering mount. OverlayFS is the container's own layer only where it is mounted whole (root `/`)
 * or is the container's root: a folder bound from a host whose own file system is OverlayFS (a runner, or the
 * tests, inside a container) is a bind mount like any other: nothing is copied up for the files the workload
 * creates there, and they outlive the container.
 *
 * A tmpfs is told the same way, by the mount's source rather than its file system type: one the runtime made for
 * the container (`--tmpfs`, a tmpfs volume) is new, mounted whole (root `/`) on a device of its own, and gone with
 * the container. A host folder bound in that sits on a tmpfs (Debian 13's /tmp, /dev/shm) shows the host tmpfs's
 * type, but its source is the host's: the folder's path in that tmpfs as root, and the host file system's device
 * (`hostDev`, `devOf(host path)`: the one way to know a bind of a tmpfs's own root).
 */
export function classifyMount(e: MountInfoEntry, hostDev?: string | null): MountKind {
  if (
    (e.fs_type === 'overlay' || e.fs_type === 'fuse-overlayfs' || e.fs_type === 'aufs') &&
    (e.root === '/' || e.mount_point === '/')
  )
    return 'overlay'
  if ((e.fs_type === 'tmpfs' || e.fs_type === 'ramfs') && e.root === '/' && !(hostDev && e.dev === hostDev))
    return 'tmpfs'
  if (SPECIAL_FS.has(e.fs_type)) return 'other'
  // Named volumes are directories under the engine's volumes dir (docker and podman alike).
  if (/\/volumes\/[^/]+\/_data$/.test(e.root)) return 'volume'
  return 'bind'
}

/**
 * The device of the file system a host path lives on, as mountinfo writes it (`major:minor`); null when the path
 * cannot be read. Linux's dev_t: the minor number's low 8 bits, then 12 bits of major, the rest of each above.
 */
export function devOf(hostPath: string): string | null {
  let dev: bigint
  try {
    dev = fs.statSync(hostPath, { bigint: true }).dev
  } catch {
    return null
  }
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn)
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn)
  return `${major}:${minor}`
}

export function isReadOnly(e: MountInfoEntry): boolean {
  return e.options.includes('ro') || e.super_options.includes('ro')
}
