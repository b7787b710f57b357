/**
 * NVIDIA's CUDA/driver compatibility tables, as data.
 *
 * Sources (Linux x86_64):
 * - CUDA Toolkit release notes, Table 3 "CUDA Toolkit and Corresponding Driver Versions"
 *   (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, and the per-release copies under
 *   https://docs.nvidia.com/cuda/archive/X.Y.Z/cuda-toolkit-release-notes/): the driver each toolkit release,
 *   GA and every update, ships with. Below it: minor-version compatibility only (limited features, PTX JIT of
 *   newer PTX fails).
 * - CUDA Compatibility guide, "Minor Version Compatibility", Table 1 and its footnote
 *   (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html): the floor per major
 *   version (11.x ≥ 450.80.02, 12.x ≥ 525.60.13, 13.x ≥ R580), and CUDA 11.0's own ≥ 450.36.06 (it was released
 *   with drivers older than the 11.x floor). Below the floor the CUDA runtime does not initialise
 *   (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH).
 */

/** Minimum driver for CUDA minor-version compatibility, per CUDA major version. */
export const MINOR_VERSION_FLOORS: readonly { cudaMajor: number; minDriver: string }[] = [
  { cudaMajor: 11, minDriver: '450.80.02' },
  { cudaMajor: 12, minDriver: '525.60.13' },
  { cudaMajor: 13, minDriver: '580' }
]

/**
 * Table 3, every row from CUDA 11.0 to 13.2, as the current release notes print it (checked against the 13.1
 * notes; the 13.2 row as shared/DESIGN.md records it, not re-checked here): toolkit release
 * (`MAJOR.MINOR.UPDATE`; the GA release is `.0` except 11.0, whose GA was 11.0.2 after the 11.0.1 RC) → its
 * driver. A version between rows (NGC's `12.2.2.009`, an unlisted 12.3.2) uses the nearest lower row of its
 * major.minor.
 */
export const TOOLKIT_RELEASE_DRIVERS: readonly { cuda: string; driver: string; release: string }[] = [
  { cuda: '13.2.0', driver: '595.45.04', release: 'CUDA 13.2 GA' },
  { cuda: '13.1.1', driver: '590.48.01', release: 'CUDA 13.1 Update 1' },
  { cuda: '13.1.0', driver: '590.44.01', release: 'CUDA 13.1 GA' },
  { cuda: '13.0.2', driver: '580.95.05', release: 'CUDA 13.0 Update 2' },
  { cuda: '13.0.1', driver: '580.82.07', release: 'CUDA 13.0 Update 1' },
  { cuda: '13.0.0', driver: '580.65.06', release: 'CUDA 13.0 GA' },
  { cuda: '12.9.1', driver: '575.57.08', release: 'CUDA 12.9 Update 1' },
  { cuda: '12.9.0', driver: '575.51.03', release: 'CUDA 12.9 GA' },
  { cuda: '12.8.1', driver: '570.124.06', release: 'CUDA 12.8 Update 1' },
  { cuda: '12.8.0', driver: '570.26', release: 'CUDA 12.8 GA' },
  { cuda: '12.6.3', driver: '560.35.05', release: 'CUDA 12.6 Update 3' },
  { cuda: '12.6.2', driver: '560.35.03', release: 'CUDA 12.6 Update 2' },
  { cuda: '12.6.1', driver: '560.35.03', release: 'CUDA 12.6 Update 1' },
  { cuda: '12.6.0', driver: '560.28.03', release: 'CUDA 12.6 GA' },
  { cuda: '12.5.1', driver: '555.42.06', release: 'CUDA 12.5 Update 1' },
  { cuda: '12.5.0', driver: '555.42.02', release: 'CUDA 12.5 GA' },
  { cuda: '12.4.1', driver: '550.54.15', release: 'CUDA 12.4 Update 1' },
  { cuda: '12.4.0', driver: '550.54.14', release: 'CUDA 12.4 GA' },
  { cuda: '12.3.1', driver: '545.23.08', release: 'CUDA 12.3 Update 1' },
  { cuda: '12.3.0', driver: '545.23.06', release: 'CUDA 12.3 GA' },
  { cuda: '12.2.2', driver: '535.104.05', release: 'CUDA 12.2 Update 2' },
  { cuda: '12.2.1', driver: '535.86.09', release: 'CUDA 12.2 Update 1' },
  { cuda: '12.2.0', driver: '535.54.03', release: 'CUDA 12.2 GA' },
  { cuda: '12.1.1', driver: '530.30.02', release: 'CUDA 12.1 Update 1' },
  { cuda: '12.1.0', driver: '530.30.02', release: 'CUDA 12.1 GA' },
  { cuda: '12.0.1', driver: '525.85.12', release: 'CUDA 12.0 Update 1' },
  { cuda: '12.0.0', driver: '525.60.13', release: 'CUDA 12.0 GA' },
  { cuda: '11.8.0', driver: '520.61.05', release: 'CUDA 11.8 GA' },
  // The current Table 3 (13.x release notes) lists 515.48.07; the 11.7.1 notes and runfile said 515.65.01.
  { cuda: '11.7.1', driver: '515.48.07', release: 'CUDA 11.7 Update 1' },
  { cuda: '11.7.0', driver: '515.43.04', release: 'CUDA 11.7 GA' },
  { cuda: '11.6.2', driver: '510.47.03', release: 'CUDA 11.6 Update 2' },
  { cuda: '11.6.1', driver: '510.47.03', release: 'CUDA 11.6 Update 1' },
  { cuda: '11.6.0', driver: '510.39.01', release: 'CUDA 11.6 GA' },
  { cuda: '11.5.2', driver: '495.29.05', release: 'CUDA 11.5 Update 2' },
  { cuda: '11.5.1', driver: '495.29.05', release: 'CUDA 11.5 Update 1' },
  { cuda: '11.5.0', driver: '495.29.05', release: 'CUDA 11.5 GA' },
  { cuda: '11.4.4', driver: '470.82.01', release: 'CUDA 11.4 Update 4' },
  { cuda: '11.4.3', driver: '470.82.01', release: 'CUDA 11.4 Update 3' },
  { cuda: '11.4.2', driver: '470.57.02', release: 'CUDA 11.4 Update 2' },
  { cuda: '11.4.1', driver: '470.57.02', release: 'CUDA 11.4 Update 1' },
  { cuda: '11.4.0', driver: '470.42.01', release: 'CUDA 11.4 GA' },
  { cuda: '11.3.1', driver: '465.19.01', release: 'CUDA 11.3 Update 1' },
  { cuda: '11.3.0', driver: '465.19.01', release: 'CUDA 11.3 GA' },
  { cuda: '11.2.2', driver: '460.32.03', release: 'CUDA 11.2 Update 2' },
  { cuda: '11.2.1', driver: '460.32.03', release: 'CUDA 11.2 Update 1' },
  { cuda: '11.2.0', driver: '460.27.03', release: 'CUDA 11.2 GA' },
  { cuda: '11.1.1', driver: '455.32', release: 'CUDA 11.1 Update 1' },
  { cuda: '11.1.0', driver: '455.23', release: 'CUDA 11.1 GA' },
  { cuda: '11.0.3', driver: '450.51.06', release: 'CUDA 11.0 Update 1' },
  { cuda: '11.0.2', driver: '450.51.05', release: 'CUDA 11.0 GA' },
  { cuda: '11.0.1', driver: '450.36.06', release: 'CUDA 11.0 RC' }
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

/**
 * CUDA 11.0 came with drivers older than the 11.x floor: the compatibility guide's table lists "CUDA 11.0 (11.0.3)
 * >= 450.36.06*" (footnote: minor-version compatibility across 11.x needs 450.80.02).
 */
const CUDA_11_0_FLOOR = '450.36.06'

/** The minor-version compatibility floor for a CUDA version; null for a major we have no data for. */
export function minorVersionFloor(cuda: string): string | null {
  if (parseVersion(cuda) !== null && majorMinor(cuda) === '11.0') return CUDA_11_0_FLOOR
  const major = parseVersion(cuda)?.[0]
  return MINOR_VERSION_FLOORS.find(f => f.cudaMajor === major)?.minDriver ?? null
}

/**
 * The Table 3 row of the toolkit release of `cuda`: the newest row that is ≤ the version (on up to three parts;
 * NGC's fourth build part is ignored) within the same major.minor, else that major.minor's first row (`11.0` →
 * the 11.0 RC). Null when the table has no row for that major.minor (too old, or newer than the table).
 */
export function toolkitReleaseRow(cuda: string): (typeof TOOLKIT_RELEASE_DRIVERS)[number] | null {
  const p = parseVersion(cuda)
  if (p === null) return null
  const three = p.slice(0, 3).join('.')
  const mm = majorMinor(cuda)
  const rows = TOOLKIT_RELEASE_DRIVERS.filter(r => majorMinor(r.cuda) === mm).sort((x, y) =>
    compareVersions(y.cuda, x.cuda)
  )
  return rows.find(r => compareVersions(r.cuda, three) <= 0) ?? rows[rows.length - 1] ?? null
}

/** The driver the toolkit release of `cuda` shipped with (toolkitReleaseRow); null when the table has none. */
export function toolkitReleaseDriver(cuda: string): string | null {
  return toolkitReleaseRow(cuda)?.driver ?? null
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
