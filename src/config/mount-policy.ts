/**
 * Which host paths may be given to a container (docs/security.md, "Mount policy"). The decision is made
 * on the resolved path (realpath), never on the text: a link to `/` is `/`. Refused: the root, system
 * folders (and anything under them), the Docker data root, a path that is or holds (scan bounded) a
 * socket or a device, and a path of the wrong kind (a folder where a folder is meant, a regular file where a
 * file is). `:ro` does not protect a socket (the Docker API answers through a read-only mount of
 * /var/run), which is why sockets are refused outright.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'

/** Never mounted, nor anything below them. */
export const SYSTEM_FOLDERS = [
  '/etc',
  '/proc',
  '/sys',
  '/dev',
  '/boot',
  '/run',
  '/var/run',
  '/var/lib/docker',
  '/var/lib/containerd',
  '/var/lib/containers',
  '/var/lib/kubelet',
  '/root',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/snap',
  '/srv',
  '/var/log',
  '/var/lib',
  '/var/spool',
  '/var/mail',
  '/var/cache',
  '/var/tmp'
] as const

/**
 * Exceptions below a system folder: the folders where the NVIDIA driver's user-space libraries live,
 * for `driver-mount` only (read-only, and still scanned for sockets and devices).
 */
export const DRIVER_LIBRARY_FOLDERS = [
  '/usr/lib',
  '/usr/lib64',
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
  '/usr/local/nvidia',
  '/usr/local/cuda',
  '/opt'
] as const

/** Entries looked at when scanning a folder for sockets/devices (depth-first, bounded). */
export const MOUNT_SCAN_ENTRIES = 20_000
export const MOUNT_SCAN_DEPTH = 3

export type MountPurpose = 'data' | 'checkpoint' | 'driver' | 'workloads'

export interface MountRequest {
  /** The input that named the path, for messages (e.g. `data-path`). */
  input: string
  /** The path as given (absolute or resolved by the caller). */
  path: string
  kind: 'folder' | 'file'
  purpose: MountPurpose
  /** More roots to refuse (the Docker data root from `docker info`). */
  extraForbidden?: readonly string[]
}

export interface MountDecision {
  input: string
  given: string
  /** realpath of the given path (null when it does not exist). */
  resolved: string | null
  allowed: boolean
  /** Why refused (one clause), or what was checked. */
  reason: string
}

function under(p: string, root: string): boolean {
  const rel = path.relative(root, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

function kindOf(st: fs.Stats): string | null {
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  if (st.isFIFO()) return 'a FIFO'
  return null
}

/** The first socket, device or FIFO at or under `p` (links are not followed; bounded scan), or null. */
export function findSpecial(p: string): string | null {
  let budget = MOUNT_SCAN_ENTRIES
  const walk = (d: string, depth: number): string | null => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(d, { withFileTypes: true })
    } catch {
      return null
    }
    for (const e of entries) {
      if (--budget < 0) return null
      const child = path.join(d, e.name)
      if (e.isSocket() || e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO())
        return `${child} (${e.isSocket() ? 'a socket' : e.isFIFO() ? 'a FIFO' : 'a device'})`
      if (e.isDirectory() && depth < MOUNT_SCAN_DEPTH) {
        const found = walk(child, depth + 1)
        if (found) return found
      }
    }
    return null
  }
  const st = fs.lstatSync(p)
  const k = kindOf(st)
  if (k) return `${p} (${k})`
  return st.isDirectory() ? walk(p, 1) : null
}

/** Judges one host path for a bind mount. Pure apart from reading the file system. */
export function judgeMount(req: MountRequest): MountDecision {
  const base = { input: req.input, given: req.path }
  const refuse = (resolved: string | null, reason: string): MountDecision => ({
    ...base,
    resolved,
    allowed: false,
    reason
  })
  if (req.path === '' || /[\0\n\r]/.test(req.path)) return refuse(null, 'not a file system path')
  let resolved: string
  try {
    resolved = fs.realpathSync.native(path.resolve(req.path))
  } catch {
    return refuse(null, `does not exist on the runner`)
  }
  const st = fs.statSync(resolved)
  const special = kindOf(st)
  if (special) return refuse(resolved, `is ${special}; sockets and devices are never mounted`)
  if (req.kind === 'folder' && !st.isDirectory()) return refuse(resolved, 'is not a folder')
  if (req.kind === 'file' && !st.isFile()) return refuse(resolved, 'is not a regular file')
  if (resolved === '/') return refuse(resolved, 'is the root of the host file system')
  const driverOk =
    req.purpose === 'driver' && DRIVER_LIBRARY_FOLDERS.some(d => resolved === d || under(resolved, d))
  const forbidden = [...SYSTEM_FOLDERS, ...(req.extraForbidden ?? [])].find(
    f => f !== '' && (under(resolved, f) || (req.purpose !== 'driver' && under(f, resolved)))
  )
  // A folder that holds a system folder (e.g. /var holds /var/run) is refused like the system folder.
  if (forbidden && !(driverOk && !under(forbidden, resolved)))
    return refuse(
      resolved,
      under(resolved, forbidden)
        ? `is ${resolved === forbidden ? 'the system folder' : 'inside the system folder'} ${forbidden}`
        : `holds the system folder ${forbidden}`
    )
  const inside = findSpecial(resolved)
  if (inside) return refuse(resolved, `holds ${inside}; sockets and devices are never mounted`)
  return {
    ...base,
    resolved,
    allowed: true,
    reason: `resolved to ${resolved}: ${req.kind === 'folder' ? 'a folder' : 'a regular file'}, no system folder, socket or device`
  }
}

/** What is allowed, and why this path is not: the `allowed` part of the input's one-line error. */
export function refusalMessage(d: MountDecision): string {
  const where = d.resolved && d.resolved !== d.given ? `${d.given} (resolved: ${d.resolved})` : d.given
  return `an existing directory on the runner, not /, a system folder, a socket or a device (docs/security.md); ${where} ${d.reason}`
}
