import type { PreflightResult } from '../types/index.js'
import { InputError } from '../util/errors.js'
import {
  type BranchRow,
  compareVersions,
  driverBranch,
  hasMinorVersionCompat,
  majorMinor,
  maxCudaForDriver,
  meetsRow,
  minorVersionFloor,
  newerThanTable,
  newestTabulatedCuda,
  oldestTabulatedCuda,
  parseVersion,
  tableEntry,
  tableOlderThan
} from './cuda-compat.js'

export interface GateInput {
  /** Host driver version, e.g. `580.65.06`. */
  driver: string
  /** CUDA version of the image/toolkit, e.g. `12.4.1` or NGC's `12.2.2.009`. */
  cuda: string
  /** Treat "between floor and release driver" as a failure. */
  strict: boolean
  /** The image ships the cuda-compat libraries (forward compatibility). */
  forwardCompat: boolean
  /**
   * The version of the image's compat `libcuda.so.X.Y.Z` (found by the compat probe), e.g. `580.82.07`; null when
   * only the image's ENV says it ships them. The toolkit uses them only when their major is newer than the host's.
   */
  compatDriver?: string | null
  /** Driver branches the image's NVIDIA_REQUIRE_CUDA admits through forward compatibility (`driver>=535,driver<536`). */
  compatBranches?: readonly number[]
  /** The GPU is a data-center GPU (forward compatibility only works there); null = unknown. */
  datacenterGpu: boolean | null
  /** The driver the image declares for its toolkit (NGC `CUDA_DRIVER_VERSION`): used where Table 3 has no row. */
  releaseDriver?: string | null
  /** The CUDA version the driver reports supporting (nvidia-smi header), for the report. */
  driverCuda?: string | null
}

export type GateReason = 'ok' | 'below-release-driver' | 'below-floor' | 'forward-compat' | 'unknown-cuda'

export type DriverGateDetails = {
  driver: string
  cuda: string
  /** Minor-version compatibility floor for the CUDA major (CUDA init fails below it). */
  floor_driver: string | null
  /** Driver the toolkit release shipped with (full features at or above it). */
  release_driver: string | null
  /**
   * The driver branch the release notes give for the CUDA version, where they give only a branch (`R610` for
   * CUDA 13.3): a driver of that branch or newer has its features; no version within the branch is known.
   */
  release_branch: string | null
  release_driver_source: 'image' | 'table' | null
  reason: GateReason
  strict: boolean
  forward_compat: boolean
  /** The image's compat libcuda version, and whether the toolkit would use it on this driver (major newer). */
  compat_driver: string | null
  compat_applies: boolean | null
  /** The compat probe's listing (driver-checks adds it), when the image was probed. */
  compat_probe?: unknown
  datacenter_gpu: boolean | null
  driver_cuda: string | null
  /** Newest CUDA the driver fully supports per the table, and newest major it can run at all. */
  driver_max_cuda: string | null
  driver_max_cuda_major: number | null
}

/** Name of the driver gate's preflight row. */
export const DRIVER_GATE = 'driver-gate'

export type DriverGateResult = PreflightResult & { name: typeof DRIVER_GATE; details: DriverGateDetails }

/** A row the gate itself produced (with its details), not a "could not run" row. */
export function isDriverGateResult(row: PreflightResult): row is DriverGateResult {
  return row.name === DRIVER_GATE && typeof row.details?.floor_driver !== 'undefined'
}

const DRIVER_ALLOWED = 'a driver version like 580.65.06 (digits and dots, up to 4 parts)'
const CUDA_ALLOWED = 'a CUDA version like 12.4, 12.4.1 or 12.4.1.004'

export function validateDriverVersion(driver: string, input = 'driver'): string {
  const v = driver.trim()
  if (parseVersion(v) === null) throw new InputError(input, driver, DRIVER_ALLOWED)
  return v
}

export function validateCudaVersion(cuda: string, input = 'cuda'): string {
  const v = cuda.trim()
  const p = parseVersion(v)
  if (p === null || p.length < 2) throw new InputError(input, cuda, CUDA_ALLOWED)
  return v
}

/**
 * The driver gate: can a CUDA `cuda` runtime start on driver `driver`, and with all features?
 * Pure: no I/O. Throws InputError on malformed versions.
 */
export function gate(input: GateInput): DriverGateResult {
  const driver = validateDriverVersion(input.driver)
  const cuda = validateCudaVersion(input.cuda)
  const mm = majorMinor(cuda)
  const floor = minorVersionFloor(cuda)
  const imageRelease =
    input.releaseDriver && parseVersion(input.releaseDriver) !== null ? input.releaseDriver.trim() : null
  // NVIDIA's notes first (a release row, else a branch-only row): NGC's CUDA_DRIVER_VERSION only for a release
  // the table lacks.
  const entry = tableEntry(cuda)
  const tableRelease = entry?.kind === 'release' ? entry.driver : null
  const branchRow: BranchRow | null = entry?.kind === 'branch' ? entry : null
  const release = tableRelease ?? (branchRow === null ? imageRelease : null)
  /** The driver is below what the table (or the image) gives for the release: null when nothing is known. */
  const belowRelease =
    entry !== null ? !meetsRow(driver, entry) : release !== null ? compareVersions(driver, release) < 0 : null
  const newer = newerThanTable(cuda)
  /** Appended to a message about a CUDA newer than the table: the table is older, with its date. */
  const olderTable = newer ? `; ${tableOlderThan(cuda)}` : ''
  const max = maxCudaForDriver(driver)
  const compatDriver =
    input.compatDriver && parseVersion(input.compatDriver) !== null ? input.compatDriver.trim() : null
  const compatApplies = !input.forwardCompat
    ? false
    : compatDriver === null
      ? null
      : compatUsed(compatDriver, driver)
  const details: DriverGateDetails = {
    driver,
    cuda,
    floor_driver: floor,
    release_driver: release,
    release_branch: branchRow ? `R${branchRow.branch}` : null,
    release_driver_source: entry !== null ? 'table' : release ? 'image' : null,
    reason: 'ok',
    strict: input.strict,
    forward_compat: input.forwardCompat,
    compat_driver: compatDriver,
    compat_applies: compatApplies,
    datacenter_gpu: input.datacenterGpu,
    driver_cuda: input.driverCuda ?? null,
    driver_max_cuda: max.full,
    driver_max_cuda_major: max.minorCompat
  }
  const pinOlder = pinAdvice(max)

  if (floor === null) {
    details.reason = 'unknown-cuda'
    const covers = `CUDA ${majorMinor(oldestTabulatedCuda())} to ${majorMinor(newestTabulatedCuda())}`
    return result(
      input.strict ? 'fail' : 'warn',
      details,
      newer
        ? `no compatibility data for CUDA ${cuda}: ${tableOlderThan(cuda)}; cannot tell whether driver ${driver} runs it`
        : `no compatibility data for CUDA ${cuda} (the tables cover ${covers}); cannot tell whether driver ${driver} runs it`,
      `check NVIDIA's CUDA compatibility tables for CUDA ${mm}, or use an image with ${covers}`
    )
  }

  const compatWorks = compatApplies === true && input.datacenterGpu === true
  const admitted = (input.compatBranches ?? []).includes(parseVersion(driver)?.[0] ?? -1)
  const compatWords = (words: string): string =>
    `the image's CUDA forward-compatibility libraries (libcuda ${compatDriver ?? '?'}) are newer than the host's ` +
    `${driverBranch(driver)}, so the toolkit puts them in use, and the GPU is a data-center GPU: ${words}`

  /** The driver the fix asks for: the release driver, the notes' branch, else the floor. */
  const wanted = release
    ? `branch ${driverBranch(release)} or newer (≥ ${release})`
    : branchRow
      ? `branch R${branchRow.branch} or newer (the notes name the branch for CUDA ${mm}, no version within it)`
      : `branch ${driverBranch(floor)} or newer (≥ ${floor})`

  if (compareVersions(driver, floor) < 0) {
    const upgrade = `upgrade the host driver to ${wanted}`
    if (compatWorks) {
      details.reason = 'forward-compat'
      return admitted
        ? result(
            'pass',
            details,
            `driver ${driver} is below ${floor}, the minimum for CUDA ${mm}, but ` +
              compatWords(
                `CUDA initialises through them, on a branch the image itself admits (driver>=${parseVersion(driver)?.[0]})`
              ),
            null
          )
        : result(
            'warn',
            details,
            `driver ${driver} is below ${floor}, the minimum for CUDA ${mm}; ` +
              compatWords(
                `CUDA can initialise through them if ${driverBranch(driver)} is a branch the compat package supports (the image's requirement does not list it)`
              ),
            `${upgrade} to run without the compat layer, or ${pinOlder}`
          )
    }
    if (input.forwardCompat && compatApplies === null && input.datacenterGpu === true) {
      details.reason = 'forward-compat'
      return result(
        'warn',
        details,
        `driver ${driver} is below ${floor}, the minimum for CUDA ${mm} (minor-version compatibility); ` +
          `the image ships the CUDA forward-compatibility package, but no single compat libcuda version could be read ` +
          `from the image: ` +
          `CUDA initialises only if it is newer than ${driverBranch(driver)} and supports it`,
        `${upgrade}, or ${pinOlder}`
      )
    }
    details.reason = 'below-floor'
    // CUDA 10.x has no minor-version compatibility: its runtime refuses a driver older than its own minor.
    const failure = hasMinorVersionCompat(cuda)
      ? 'CUDA initialisation will fail (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)'
      : `CUDA ${mm} has no minor-version compatibility, so its runtime will not start (cudaErrorInsufficientDriver)`
    const compatNote = !input.forwardCompat
      ? ''
      : compatApplies === false
        ? ` The image's compat libraries (libcuda ${compatDriver ?? '?'}) are not newer than ${driverBranch(driver)}, so the toolkit does not use them.`
        : input.datacenterGpu === false
          ? ' The image ships the forward-compatibility package, but that works on data-center GPUs only.'
          : ' The image ships the forward-compatibility package; it applies only on a data-center GPU, which could not be confirmed.'
    return result(
      'fail',
      details,
      `driver ${driver} is below ${floor}, the minimum driver for CUDA ${mm}: ${failure}.${compatNote}`,
      `${upgrade}, or ${pinOlder}`
    )
  }

  if (compatWorks && belowRelease !== false) {
    details.reason = 'forward-compat'
    return result(
      'pass',
      details,
      compatWords(`CUDA ${mm} runs with the features of libcuda ${compatDriver ?? '?'}`) + olderTable,
      null
    )
  }

  if (branchRow !== null) {
    // A branch-only entry: the notes name the branch, not a version in it.
    const named = `R${branchRow.branch}, the driver branch NVIDIA's release notes give for CUDA ${mm}`
    if (belowRelease === false) {
      const own = parseVersion(driver)?.[0] === branchRow.branch
      return result(
        'pass',
        details,
        own
          ? `driver ${driver} is on ${named} (the notes give no version within the branch)`
          : `driver ${driver} is on ${driverBranch(driver)}, newer than ${named}`,
        null
      )
    }
    details.reason = 'below-release-driver'
    return result(
      input.strict ? 'fail' : 'warn',
      details,
      `driver ${driver} runs CUDA ${mm} only through minor-version compatibility (floor ${floor}; ${named}): ` +
        `limited features, and JIT of PTX newer than the driver fails`,
      `upgrade the host driver to ${wanted}, or ${pinOlder}`
    )
  }

  if (release === null) {
    // No release driver: the floor holds, features are unknown.
    const driverCuda = input.driverCuda ?? null
    if (driverCuda && parseVersion(driverCuda) !== null && compareVersions(driverCuda, mm) >= 0) {
      return result(
        'pass',
        details,
        `driver ${driver} supports CUDA ${driverCuda} (nvidia-smi), which covers CUDA ${mm}${olderTable}`,
        null
      )
    }
    details.reason = 'below-release-driver'
    return result(
      input.strict ? 'fail' : 'warn',
      details,
      newer
        ? `driver ${driver} meets the CUDA ${parseVersion(cuda)?.[0]}.x floor ${floor}, but ${tableOlderThan(cuda)}: ` +
            `features that need a newer driver may be missing`
        : `driver ${driver} meets the CUDA ${parseVersion(cuda)?.[0]}.x floor ${floor}, but the table ` +
            `(newest ${newestTabulatedCuda()}) has no release driver for CUDA ${mm}: features that need a newer driver ` +
            `may be missing`,
      `compare with the driver in NVIDIA's release notes for CUDA ${mm} and upgrade the host driver if it is older`
    )
  }

  const source = details.release_driver_source === 'image' ? ` (the image's CUDA_DRIVER_VERSION)` : ''
  if (belowRelease === true) {
    details.reason = 'below-release-driver'
    return result(
      input.strict ? 'fail' : 'warn',
      details,
      `driver ${driver} runs CUDA ${mm} only through minor-version compatibility (floor ${floor}, ` +
        `release driver ${release}${source}): limited features, and JIT of PTX newer than the driver fails${olderTable}`,
      `upgrade the host driver to ${wanted}, or ${pinOlder}`
    )
  }

  return result(
    'pass',
    details,
    `driver ${driver} ≥ ${release}, the release driver for CUDA ${mm}${source}${olderTable}`,
    null
  )
}

/**
 * Whether the toolkit puts an image's compat libcuda in use on this host driver: only when its major version is
 * newer (nvidia-container-toolkit cmd/nvidia-cdi-hook/cudacompat/cudacompat.go `useCompatLibraries`, at
 * d34b3046758cb1a5db606b2a39519c731bbf9f56; libnvidia-container src/nvc_mount.c `filter_libraries` drops compat
 * libraries of the host's own major).
 */
export function compatUsed(compatDriver: string, hostDriver: string): boolean {
  return (parseVersion(compatDriver)?.[0] ?? 0) > (parseVersion(hostDriver)?.[0] ?? Infinity)
}

function pinAdvice(max: { full: string | null; minorCompat: number | null }): string {
  if (max.full) return `pin an older image tag whose CUDA ≤ ${majorMinor(max.full)}`
  if (max.minorCompat !== null) return `pin an older image tag whose CUDA is ${max.minorCompat}.x`
  return 'pin an image whose CUDA this driver supports (see nvidia-smi "CUDA Version")'
}

function result(
  status: PreflightResult['status'],
  details: DriverGateDetails,
  message: string,
  fix: string | null
): DriverGateResult {
  return { name: DRIVER_GATE, status, message, fix: status === 'pass' ? null : fix, details }
}
