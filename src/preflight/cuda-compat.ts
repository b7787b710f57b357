/**
 * NVIDIA's CUDA/driver compatibility tables, as data.
 *
 * Sources (Linux x86_64):
 * - CUDA Toolkit release notes, table 3 "CUDA Toolkit and Corresponding Driver Versions"
 *   (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html): the driver each toolkit
 *   release ships with. Below it: minor-version compatibility only (limited features, PTX JIT of
 *   newer PTX fails).
 * - CUDA Compatibility guide, "Minor Version Compatibility"
 *   (https://docs.nvidia.com/deploy/cuda-compatibility/): the floor per major version. Below it the
 *   CUDA runtime does not initialise at all (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH).
 * Values as recorded in shared/DESIGN.md, "Facts for the driver gate".
 */

/** Minimum driver for CUDA minor-version compatibility, per CUDA major version. */
export const MINOR_VERSION_FLOORS: readonly { cudaMajor: number; minDriver: string }[] = [
  { cudaMajor: 11, minDriver: '450.80.02' },
  { cudaMajor: 12, minDriver: '525.60.13' },
  { cudaMajor: 13, minDriver: '580' }
]

/**
 * Toolkit release → the driver it was released with (table 3). `cuda` is major.minor for a GA
 * release and major.minor.patch for an update (13.0.1 = "13.0 Update 1"). Patch releases that are
 * not listed use the nearest lower listed row, which is a lower bound.
 */
export const TOOLKIT_RELEASE_DRIVERS: readonly { cuda: string; driver: string }[] = [
  { cuda: '13.2', driver: '595.45.04' },
  { cuda: '13.1.1', driver: '590.48.01' },
  { cuda: '13.1', driver: '590.44.01' },
  { cuda: '13.0.2', driver: '580.95.05' },
  { cuda: '13.0.1', driver: '580.82.07' },
  { cuda: '13.0', driver: '580.65.06' },
  { cuda: '12.9', driver: '575.51.03' },
  { cuda: '12.8.1', driver: '570.124.06' },
  { cuda: '12.8', driver: '570.26' },
  { cuda: '12.6', driver: '560.28.03' },
  { cuda: '12.5', driver: '555.42.02' },
  { cuda: '12.4', driver: '550.54.14' },
  { cuda: '12.3', driver: '545.23.06' },
  { cuda: '12.2', driver: '535.54.03' },
  { cuda: '12.1', driver: '530.30.02' },
  { cuda: '12.0', driver: '525.60.13' },
  { cuda: '11.8', driver: '520.61.05' }
]

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

/** The minor-version compatibility floor for a CUDA version; null for a major we have no data for. */
export function minorVersionFloor(cuda: string): string | null {
  const major = parseVersion(cuda)?.[0]
  return MINOR_VERSION_FLOORS.find(f => f.cudaMajor === major)?.minDriver ?? null
}

/**
 * The driver the toolkit release of `cuda` shipped with: the newest table row that is ≤ the
 * version (on up to three parts; NGC's fourth build part is ignored) within the same major.minor.
 * Null when the table has no row for that major.minor (too old, or newer than the table).
 */
export function toolkitReleaseDriver(cuda: string): string | null {
  const p = parseVersion(cuda)
  if (p === null) return null
  const three = p.slice(0, 3).join('.')
  const mm = majorMinor(cuda)
  const rows = TOOLKIT_RELEASE_DRIVERS.filter(
    r => majorMinor(r.cuda) === mm && compareVersions(r.cuda, three) <= 0
  )
  rows.sort((x, y) => compareVersions(y.cuda, x.cuda))
  return rows[0]?.driver ?? null
}

/** The newest CUDA version in the table (so callers can say the table may be out of date). */
export function newestTabulatedCuda(): string {
  return [...TOOLKIT_RELEASE_DRIVERS].sort((x, y) => compareVersions(y.cuda, x.cuda))[0]?.cuda ?? '0'
}

/**
 * What a driver can run: `full` = newest toolkit release whose release driver ≤ driver (all
 * features); `minorCompat` = newest CUDA major whose floor ≤ driver (runs, with limits).
 */
export function maxCudaForDriver(driver: string): { full: string | null; minorCompat: number | null } {
  const full =
    [...TOOLKIT_RELEASE_DRIVERS]
      .filter(r => compareVersions(r.driver, driver) <= 0)
      .sort((x, y) => compareVersions(y.cuda, x.cuda))[0]?.cuda ?? null
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
 * version alone: every driver branch reports one CUDA major.minor (R550 → 12.4, R580 → 13.0), so a driver at
 * or above a toolkit's release driver and in the same branch reports that toolkit's major.minor, provided the
 * next toolkit in the table came with a later branch. Null when the table cannot tell (a branch it does not
 * list, such as R565, a pre-release driver below its branch's release driver, or a branch newer than the table).
 */
export function reportedCudaForDriver(driver: string): string | null {
  const branch = parseVersion(driver)?.[0]
  if (branch === undefined) return null
  const rows = [...TOOLKIT_RELEASE_DRIVERS].sort((x, y) => compareVersions(x.cuda, y.cuda))
  const at = rows.findLastIndex(r => compareVersions(r.driver, driver) <= 0)
  const row = rows[at]
  if (row === undefined || parseVersion(row.driver)?.[0] !== branch) return null
  const next = rows.slice(at + 1).find(r => majorMinor(r.cuda) !== majorMinor(row.cuda))
  if (next === undefined || (parseVersion(next.driver)?.[0] ?? 0) <= branch) return null
  return majorMinor(row.cuda)
}
