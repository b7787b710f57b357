/**
 * A folder the tool writes into (the results folder) is either created fresh by the tool or taken over
 * only when everything in it is what an earlier run of the tool left: no link, socket, FIFO or device
 * anywhere (scan bounded), no foreign file or folder at the top. Files of an earlier run are removed, so
 * a stale telemetry.csv or paper.csv is never uploaded with the new results. The folder's parents must
 * resolve inside the trusted root (the workspace) without a link in the way.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { UnsafePathError, describeKind } from './safe-fs.js'

/** Scan bound: entries looked at under a folder before giving up (a results folder holds a few dozen). */
export const MAX_SCAN_ENTRIES = 10_000
/** Folder depth scanned for links and special files. */
export const MAX_SCAN_DEPTH = 4

export interface OwnedFolderPolicy {
  /** Trusted folder the results folder must resolve inside (the workspace). */
  root: string
  /** Top-level names a previous run of the tool writes: removed before this run. */
  removable: (name: string, st: fs.Stats) => boolean
  /** Top-level names kept as they are (after the scan found no link in them), e.g. a cached dataset folder. */
  keep?: (name: string, st: fs.Stats) => boolean
}

/** The nearest folder at or above `p` that exists (a root given for folders still to be made). */
function nearestExisting(p: string): string {
  let d = path.resolve(p)
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d)
  return d
}

function realInside(p: string, root: string): boolean {
  const rel = path.relative(fs.realpathSync.native(nearestExisting(root)), p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** Throws on the first link or special file under `dir` (depth and entry count bounded). */
export function refuseLinksAndSpecials(dir: string, depth = MAX_SCAN_DEPTH): void {
  let budget = MAX_SCAN_ENTRIES
  const walk = (d: string, level: number): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (--budget < 0)
        throw new UnsafePathError(dir, `holds more than ${MAX_SCAN_ENTRIES} entries`, 'too-large')
      const p = path.join(d, e.name)
      const st = fs.lstatSync(p)
      if (st.isDirectory()) {
        if (level < depth) walk(p, level + 1)
      } else if (!st.isFile())
        throw new UnsafePathError(
          p,
          `is ${describeKind(st)}; the tool never leaves one here`,
          st.isSymbolicLink() ? 'link' : 'not-regular'
        )
    }
  }
  walk(dir, 1)
}

/**
 * Makes `dir` the tool's own: creates it (parents too, none a link, all inside `root`), or checks an
 * existing one and removes what an earlier run left. Throws UnsafePathError naming the offending entry.
 */
export function claimFolder(dir: string, policy: OwnedFolderPolicy): void {
  const abs = path.resolve(dir)
  // Nearest existing ancestor: it must resolve inside the root (a linked parent would lead elsewhere).
  const existing = nearestExisting(abs)
  const st = fs.lstatSync(existing)
  if (existing === abs && st.isSymbolicLink())
    throw new UnsafePathError(abs, 'is a symbolic link; the results folder must be a real folder', 'link')
  if (!realInside(fs.realpathSync.native(existing), policy.root))
    throw new UnsafePathError(abs, `resolves outside ${policy.root} (a linked parent folder)`, 'outside')
  if (existing !== abs) {
    // One level at a time: a read-only or unwritable parent surfaces as EROFS/EACCES, not ENOENT.
    const missing: string[] = []
    for (let d = abs; d !== existing; d = path.dirname(d)) missing.unshift(d)
    for (const d of missing) fs.mkdirSync(d)
    if (!realInside(fs.realpathSync.native(abs), policy.root))
      throw new UnsafePathError(abs, `resolves outside ${policy.root}`, 'outside')
    return
  }
  if (!st.isDirectory()) throw new UnsafePathError(abs, `is ${describeKind(st)}, not a folder`, 'not-folder')
  refuseLinksAndSpecials(abs)
  const entries = fs.readdirSync(abs, { withFileTypes: true })
  for (const e of entries) {
    const s = fs.lstatSync(path.join(abs, e.name))
    if (!policy.removable(e.name, s) && !policy.keep?.(e.name, s))
      throw new UnsafePathError(
        path.join(abs, e.name),
        `is not something this tool writes; the results folder must be new or hold only an earlier run's results`,
        'outside'
      )
  }
  for (const e of entries) {
    const p = path.join(abs, e.name)
    const s = fs.lstatSync(p)
    if (policy.removable(e.name, s)) fs.rmSync(p, { recursive: true, force: true })
  }
}
