/**
 * NVIDIA's CUDA/driver compatibility tables, as data. Each row names its source (document and table) beside it.
 *
 * Sources (Linux x86_64):
 * - CUDA Toolkit release notes, Table 3 "CUDA Toolkit and Corresponding Driver Versions"
 *   (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, and the per-release copies under
 *   https://docs.nvidia.com/cuda/archive/X.Y.Z/cuda-toolkit-release-notes/): the driver each toolkit release,
 *   GA and every update, ships with. Below it: minor-version compatibility only (limited features, PTX JIT of
 *   newer PTX fails). Notes that give only a driver branch for a release (CUDA 13.3, 13.4) give branch-only rows.
 * - CUDA Compatibility guide, "Minor Version Compatibility", Table 1 and its footnote
 *   (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html): the floor per major
 *   version (11.x ≥ 450.80.02, 12.x ≥ 525.60.13, 13.x ≥ R580), and CUDA 11.0's own ≥ 450.36.06 (it was released
 *   with drivers older than the 11.x floor). Below the floor the CUDA runtime does not initialise
 *   (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH). The same page's Table 2 "CUDA Toolkit 10.x Minimum Required Driver
 *   Versions": CUDA 10.x has no minor-version compatibility, so each 10.x minor needs its own driver.
 */

/** Where a row comes from: the document, and the table in it. */
export interface TableSource {
  document: string
  table: string
}

const TABLE_3 = 'Table 3 "CUDA Toolkit and Corresponding Driver Versions" (Linux x86_64)'

/** Table 3 as the 13.1 release notes print it: the rows from 11.0 to 13.1 (later notes carry the same rows). */
const NOTES_13_1: TableSource = { document: 'CUDA Toolkit 13.1 release notes', table: TABLE_3 }

/**
 * The 10.x rows, as the notes print them from CUDA 11.0 RC on ("CUDA 10.2.89", "CUDA 10.1 (10.1.105 general
 * release, and updates)", "CUDA 10.0.130"); the same drivers as the compatibility guide's 10.x minimums.
 */
const NOTES_10_X: TableSource = {
  document: 'CUDA Toolkit 11.0 RC release notes (and later notes)',
  table: 'Table 2 "CUDA Toolkit and Compatible Driver Versions" (Linux x86_64), Table 3 in later notes'
}

/** The 13.2 rows: GA, Update 1 and Update 2. */
const NOTES_13_2_U2: TableSource = {
  document:
    'CUDA Toolkit 13.2 Update 2 release notes (https://docs.nvidia.com/cuda/archive/13.2.2/cuda-toolkit-release-notes/)',
  table: TABLE_3
}

/**
 * The 13.3 and 13.4 entries: these notes give a driver branch, not a version. (13.4's GA is versioned 13.4.1,
 * after the 13.4.0 developer preview; its third digit is a build number. The branch covers every 13.4.x.)
 */
const NOTES_13_4_U1: TableSource = {
  document:
    'CUDA Toolkit 13.4 Update 1 release notes (https://docs.nvidia.com/cuda/archive/13.4.2/cuda-toolkit-release-notes/)',
  table: `${TABLE_3}, which gives only the driver branch for CUDA 13.3 and 13.4`
}

/** CUDA 10.x minimums (no minor-version compatibility before CUDA 11). */
const COMPAT_GUIDE_10: TableSource = {
  document:
    'CUDA Compatibility guide, "Minor Version Compatibility" (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html)',
  table: 'Table 2 "CUDA Toolkit 10.x Minimum Required Driver Versions" (Linux x86_64)'
}

/** Minimum driver for CUDA minor-version compatibility, per CUDA major version (11 and later). */
export const MINOR_VERSION_FLOORS: readonly { cudaMajor: number; minDriver: string }[] = [
  { cudaMajor: 11, minDriver: '450.80.02' },
  { cudaMajor: 12, minDriver: '525.60.13' },
  { cudaMajor: 13, minDriver: '580' }
]

/**
 * CUDA 10.x: the minimum driver per minor version (no minor-version compatibility: a 10.x runtime needs a driver
 * of its own minor or newer). The same values as the 10.x GA rows of Table 3.
 */
export const CUDA_10_MINIMUM_DRIVERS: readonly { cuda: string; minDriver: string; source: TableSource }[] = [
  { cuda: '10.2', minDriver: '440.33', source: COMPAT_GUIDE_10 },
  { cuda: '10.1', minDriver: '418.39', source: COMPAT_GUIDE_10 },
  { cuda: '10.0', minDriver: '410.48', source: COMPAT_GUIDE_10 }
]

/** A Table 3 row: a toolkit release (`MAJOR.MINOR.UPDATE`) and the exact driver it shipped with. */
export interface ReleaseRow {
  kind: 'release'
  cuda: string
  driver: string
  release: string
  source: TableSource
}

/**
 * A branch-only row: the notes map a CUDA major.minor (all its releases) to a driver branch and give no version
 * within it. A driver of that branch or a newer one meets it; the minimum within the branch is not known.
 */
export interface BranchRow {
  kind: 'branch'
  /** `MAJOR.MINOR`. */
  cuda: string
  /** Driver branch number (`610` for R610). */
  branch: number
  release: string
  source: TableSource
}

export type DriverTableRow = ReleaseRow | BranchRow

/** When the table was last brought up to date with NVIDIA's notes (said when a CUDA version is newer than it). */
export const DRIVER_TABLE_AS_OF = '2026-11-27'

const r = (cuda: string, driver: string, release: string, source: TableSource = NOTES_13_1): ReleaseRow => ({
  kind: 'release',
  cuda,
  driver,
  release,
  source
})

/**
 * The driver table, newest first: every Table 3 row from CUDA 10.0 to 13.2 (`MAJOR.MINOR.UPDATE`; the GA release
 * is `.0` except 11.0, whose GA was 11.0.2 after the 11.0.1 RC, and 10.x, whose rows carry the build number), then
 * the branch-only rows for 13.3 and 13.4. A version between rows (NGC's `12.2.2.009`, an unlisted 12.3.2) uses the
 * nearest lower row of its major.minor.
 */
export const DRIVER_TABLE: readonly DriverTableRow[] = [
  { kind: 'branch', cuda: '13.4', branch: 615, release: 'CUDA 13.4', source: NOTES_13_4_U1 },
  { kind: 'branch', cuda: '13.3', branch: 610, release: 'CUDA 13.3', source: NOTES_13_4_U1 },
  r('13.2.2', '595.71.05', 'CUDA 13.2 Update 2', NOTES_13_2_U2),
  r('13.2.1', '595.58.03', 'CUDA 13.2 Update 1', NOTES_13_2_U2),
  r('13.2.0', '595.45.04', 'CUDA 13.2 GA', NOTES_13_2_U2),
  r('13.1.1', '590.48.01', 'CUDA 13.1 Update 1'),
  r('13.1.0', '590.44.01', 'CUDA 13.1 GA'),
  r('13.0.2', '580.95.05', 'CUDA 13.0 Update 2'),
  r('13.0.1', '580.82.07', 'CUDA 13.0 Update 1'),
  r('13.0.0', '580.65.06', 'CUDA 13.0 GA'),
  r('12.9.1', '575.57.08', 'CUDA 12.9 Update 1'),
  r('12.9.0', '575.51.03', 'CUDA 12.9 GA'),
  r('12.8.1', '570.124.06', 'CUDA 12.8 Update 1'),
  r('12.8.0', '570.26', 'CUDA 12.8 GA'),
  r('12.6.3', '560.35.05', 'CUDA 12.6 Update 3'),
  r('12.6.2', '560.35.03', 'CUDA 12.6 Update 2'),
  r('12.6.1', '560.35.03', 'CUDA 12.6 Update 1'),
  r('12.6.0', '560.28.03', 'CUDA 12.6 GA'),
  r('12.5.1', '555.42.06', 'CUDA 12.5 Update 1'),
  r('12.5.0', '555.42.02', 'CUDA 12.5 GA'),
  r('12.4.1', '550.54.15', 'CUDA 12.4 Update 1'),
  r('12.4.0', '550.54.14', 'CUDA 12.4 GA'),
  r('12.3.1', '545.23.08', 'CUDA 12.3 Update 1'),
  r('12.3.0', '545.23.06', 'CUDA 12.3 GA'),
  r('12.2.2', '535.104.05', 'CUDA 12.2 Update 2'),
  r('12.2.1', '535.86.09', 'CUDA 12.2 Update 1'),
  r('12.2.0', '535.54.03', 'CUDA 12.2 GA'),
  r('12.1.1', '530.30.02', 'CUDA 12.1 Update 1'),
  r('12.1.0', '530.30.02', 'CUDA 12.1 GA'),
  r('12.0.1', '525.85.12', 'CUDA 12.0 Update 1'),
  r('12.0.0', '525.60.13', 'CUDA 12.0 GA'),
  r('11.8.0', '520.61.05', 'CUDA 11.8 GA'),
  // The current Table 3 (13.x release notes) lists 515.48.07; the 11.7.1 notes and runfile said 515.65.01.
  r('11.7.1', '515.48.07', 'CUDA 11.7 Update 1'),
  r('11.7.0', '515.43.04', 'CUDA 11.7 GA'),
  r('11.6.2', '510.47.03', 'CUDA 11.6 Update 2'),
  r('11.6.1', '510.47.03', 'CUDA 11.6 Update 1'),
  r('11.6.0', '510.39.01', 'CUDA 11.6 GA'),
  r('11.5.2', '495.29.05', 'CUDA 11.5 Update 2'),
  r('11.5.1', '495.29.05', 'CUDA 11.5 Update 1'),
  r('11.5.0', '495.29.05', 'CUDA 11.5 GA'),
  r('11.4.4', '470.82.01', 'CUDA 11.4 Update 4'),
  r('11.4.3', '470.82.01', 'CUDA 11.4 Update 3'),
  r('11.4.2', '470.57.02', 'CUDA 11.4 Update 2'),
  r('11.4.1', '470.57.02', 'CUDA 11.4 Update 1'),
  r('11.4.0', '470.42.01', 'CUDA 11.4 GA'),
  r('11.3.1', '465.19.01', 'CUDA 11.3 Update 1'),
  r('11.3.0', '465.19.01', 'CUDA 11.3 GA'),
  r('11.2.2', '460.32.03', 'CUDA 11.2 Update 2'),
  r('11.2.1', '460.32.03', 'CUDA 11.2 Update 1'),
  r('11.2.0', '460.27.03', 'CUDA 11.2 GA'),
  r('11.1.1', '455.32', 'CUDA 11.1 Update 1'),
  r('11.1.0', '455.23', 'CUDA 11.1 GA'),
  r('11.0.3', '450.51.06', 'CUDA 11.0 Update 1'),
  r('11.0.2', '450.51.05', 'CUDA 11.0 GA'),
  r('11.0.1', '450.36.06', 'CUDA 11.0 RC'),
  r('10.2.89', '440.33', 'CUDA 10.2 GA', NOTES_10_X),
  // Table 3 prints "CUDA 10.1 (10.1.105 general release, and updates)": one driver for 10.1 and its updates. The
  // 10.1 Update 1 and Update 2 notes had listed 418.67 (10.1.168) and 418.87.00 (10.1.243); the later notes fold
  // them into this row, as they do 11.7.1 (above).
  r('10.1.105', '418.39', 'CUDA 10.1 GA', NOTES_10_X),
  r('10.0.130', '410.48', 'CUDA 10.0 GA', NOTES_10_X)
]

/** The release rows of the table (those with an exact driver version). */
export const TOOLKIT_RELEASE_DRIVERS: readonly ReleaseRow[] = DRIVER_TABLE.filter(
  (row): row is ReleaseRow => row.kind === 'release'
)

/** The branch-only rows of the table. */
export const BRANCH_ONLY_ROWS: readonly BranchRow[] = DRIVER_TABLE.filter(
  (row): row is BranchRow => row.kind === 'branch'
)
