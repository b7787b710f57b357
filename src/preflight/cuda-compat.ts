/**
 * Lookups in NVIDIA's CUDA/driver compatibility tables (cuda-driver-table.ts, the data and its sources): version
 * parsing, the floor and release row of a CUDA version, and what a driver supports.
 */
import {
  MINOR_VERSION_FLOORS,
  CUDA_10_MINIMUM_DRIVERS,
  DRIVER_TABLE_AS_OF,
  DRIVER_TABLE,
  TOOLKIT_RELEASE_DRIVERS,
  BRANCH_ONLY_ROWS,
  type ReleaseRow,
  type BranchRow,
  type DriverTableRow
} from './cuda-driver-table.js'

/** Strict dotted numeric version: 1 to 4 parts of digits (`580`, `12.4`, `12.4.1.004`). */
const VERSION_RE = /^\d{1,6}(?:\.\d{1,6}){0,3}$/

/** Parse a dotted numeric version; null when it is not one. Leading zeros are numeric (`004` = 4). */
export function parseVersion(version: string): number[] | null {
  const v = version.trim()
  if (!VERSION_RE.test(v)) return null
  return v.split('.').map(part => Number.parseInt(part, 10))
}

/**
 * Compare dotted numeric versions part by part, missing parts as 0, so `12.4` = `12.4.0`,
 * `12.4.1.004` > `12.4.1`, `580` < `580.65.06`. Throws on a non-version.
 */
export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  const pa = parseVersion(a)
  const pb = parseVersion(b)
  if (pa === null || pb === null) throw new Error(`not a dotted numeric version: ${pa === null ? a : b}`)
  const n = Math.max(pa.length, pb.length)
  for (let i = 0; i < n; i++) {
    const x = pa[i] ?? 0
    const y = pb[i] ?? 0
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

/** `12.4.1.004` → `12.4`. */
export function majorMinor(cuda: string): string {
  const p = parseVersion(cuda)
  if (p === null) throw new Error(`not a dotted numeric version: ${cuda}`)
  return `${p[0] ?? 0}.${p[1] ?? 0}`
}

/**
 * CUDA 11.0 came with drivers older than the 11.x floor: the compatibility guide's table lists "CUDA 11.0 (11.0.3)
 * >= 450.36.06*" (footnote: minor-version compatibility across 11.x needs 450.80.02).
 */
const CUDA_11_0_FLOOR = '450.36.06'

/**
 * The minimum driver a CUDA version starts on: the minor-version compatibility floor of its major (11 and later),
 * CUDA 11.0's own, or a 10.x minor's own minimum. Null for a version we have no data for.
 */
export function minorVersionFloor(cuda: string): string | null {
  const p = parseVersion(cuda)
  if (p === null) return null
  const mm = majorMinor(cuda)
  if (mm === '11.0') return CUDA_11_0_FLOOR
  if (p[0] === 10) return CUDA_10_MINIMUM_DRIVERS.find(f => f.cuda === mm)?.minDriver ?? null
  return MINOR_VERSION_FLOORS.find(f => f.cudaMajor === p[0])?.minDriver ?? null
}

/** Whether a CUDA major has minor-version compatibility (11 and later; 10.x needs each minor's own driver). */
export function hasMinorVersionCompat(cuda: string): boolean {
  return (parseVersion(cuda)?.[0] ?? 0) >= 11
}

/**
 * The Table 3 row of the toolkit release of `cuda`: the newest row that is ≤ the version (on up to three parts;
 * NGC's fourth build part is ignored) within the same major.minor, else that major.minor's first row (`11.0` →
 * the 11.0 RC, `10.2` → 10.2.89). Null when the table has no release row for that major.minor (too old, a
 * branch-only entry, or newer than the table).
 */
export function toolkitReleaseRow(cuda: string): ReleaseRow | null {
  const p = parseVersion(cuda)
  if (p === null) return null
  const three = p.slice(0, 3).join('.')
  const mm = majorMinor(cuda)
  const rows = TOOLKIT_RELEASE_DRIVERS.filter(row => majorMinor(row.cuda) === mm).sort((x, y) =>
    compareVersions(y.cuda, x.cuda)
  )
  return rows.find(row => compareVersions(row.cuda, three) <= 0) ?? rows[rows.length - 1] ?? null
}

/** The branch-only row of `cuda`'s major.minor; null when it has none. */
export function branchOnlyRow(cuda: string): BranchRow | null {
  if (parseVersion(cuda) === null) return null
  const mm = majorMinor(cuda)
  return BRANCH_ONLY_ROWS.find(row => row.cuda === mm) ?? null
}

/** The table's entry for `cuda`: its release row, else its major.minor's branch-only row; null when neither. */
export function tableEntry(cuda: string): DriverTableRow | null {
  return toolkitReleaseRow(cuda) ?? branchOnlyRow(cuda)
}

/** Whether `driver` meets a row: at or above a release row's driver; on a branch-only row's branch or newer. */
export function meetsRow(driver: string, row: DriverTableRow): boolean {
  if (row.kind === 'release') return compareVersions(driver, row.driver) >= 0
  return (parseVersion(driver)?.[0] ?? -1) >= row.branch
}

/** A row's driver branch (`595.71.05` → 595, R610 → 610). */
function rowBranch(row: DriverTableRow): number {
  return row.kind === 'branch' ? row.branch : (parseVersion(row.driver)?.[0] ?? 0)
}

/** The driver the toolkit release of `cuda` shipped with (toolkitReleaseRow); null when the table has none. */
export function toolkitReleaseDriver(cuda: string): string | null {
  return toolkitReleaseRow(cuda)?.driver ?? null
}

/** The newest CUDA version in the table, branch-only rows included (`13.4`). */
export function newestTabulatedCuda(): string {
  return [...DRIVER_TABLE].sort((x, y) => compareVersions(y.cuda, x.cuda))[0]?.cuda ?? '0'
}

/** The oldest CUDA version in the table (`10.0.130`). */
export function oldestTabulatedCuda(): string {
  return [...DRIVER_TABLE].sort((x, y) => compareVersions(x.cuda, y.cuda))[0]?.cuda ?? '0'
}

/** Whether `cuda`'s major.minor is newer than every row of the table (the table is older than it). */
export function newerThanTable(cuda: string): boolean {
  return (
    parseVersion(cuda) !== null && compareVersions(majorMinor(cuda), majorMinor(newestTabulatedCuda())) > 0
  )
}

/** One line for a CUDA version newer than the table: the table is older than it, with the table's date. */
export function tableOlderThan(cuda: string): string {
  return (
    `the driver table (as of ${DRIVER_TABLE_AS_OF}, newest CUDA ${majorMinor(newestTabulatedCuda())}) is older ` +
    `than CUDA ${majorMinor(cuda)}`
  )
}

/**
 * What a driver can run: `full` = newest table entry the driver meets (all features; a branch-only entry gives
 * its major.minor); `minorCompat` = newest CUDA major whose floor ≤ driver (runs, with limits; 11 and later).
 */
export function maxCudaForDriver(driver: string): { full: string | null; minorCompat: number | null } {
  const full =
    [...DRIVER_TABLE].filter(row => meetsRow(driver, row)).sort((x, y) => compareVersions(y.cuda, x.cuda))[0]
      ?.cuda ?? null
  const minorCompat =
    [...MINOR_VERSION_FLOORS]
      .filter(f => compareVersions(f.minDriver, driver) <= 0)
      .sort((x, y) => y.cudaMajor - x.cudaMajor)[0]?.cudaMajor ?? null
  return { full, minorCompat }
}

/** Driver branch (`580.65.06` → `R580`). */
export function driverBranch(driver: string): string {
  return `R${parseVersion(driver)?.[0] ?? driver}`
}

/**
 * The CUDA version a driver reports (nvidia-smi "CUDA Version", the toolkit's `cuda` property), from its
 * version alone: every driver branch reports one CUDA major.minor (R550 → 12.4, R580 → 13.0), so a driver that
 * meets a table entry and is in that entry's branch reports the entry's major.minor, provided the next
 * major.minor in the table came with a later branch (R595 → 13.2, since 13.3 is R610). Null when the table cannot
 * tell (a branch it does not list, such as R565, a pre-release driver below its branch's release driver, or the
 * newest branch in the table, whose driver may come with a later toolkit).
 */
export function reportedCudaForDriver(driver: string): string | null {
  const branch = parseVersion(driver)?.[0]
  if (branch === undefined) return null
  const rows = [...DRIVER_TABLE].sort((x, y) => compareVersions(x.cuda, y.cuda))
  const at = rows.findLastIndex(row => meetsRow(driver, row))
  const row = rows[at]
  if (row === undefined || rowBranch(row) !== branch) return null
  const next = rows.slice(at + 1).find(n => majorMinor(n.cuda) !== majorMinor(row.cuda))
  if (next === undefined || rowBranch(next) <= branch) return null
  return majorMinor(row.cuda)
}
