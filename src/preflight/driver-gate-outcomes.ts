/** The driver gate's outcomes (preflight/driver-gate.ts gate): one function per case of the tables. */
import {
  compareVersions,
  driverBranch,
  hasMinorVersionCompat,
  majorMinor,
  newestTabulatedCuda,
  oldestTabulatedCuda,
  parseVersion,
  tableOlderThan
} from './cuda-compat.js'
import type { BranchRow } from './cuda-driver-table.js'
import { result, type DriverGateDetails, type DriverGateResult, type GateInput } from './driver-gate-types.js'

/** What every outcome of the gate reads: the validated versions, the table's rows, the compat libraries. */
export interface GateFacts {
  input: GateInput
  driver: string
  cuda: string
  /** The CUDA version as major.minor. */
  mm: string
  /** Minor-version compatibility floor; null when the tables know no such CUDA. */
  floor: string | null
  release: string | null
  branchRow: BranchRow | null
  /** The driver is below what the table (or the image) gives for the release: null when nothing is known. */
  belowRelease: boolean | null
  /** The CUDA version is newer than the table. */
  newer: boolean
  /** Appended to a message about a CUDA newer than the table: the table is older, with its date. */
  olderTable: string
  compatDriver: string | null
  compatApplies: boolean | null
  details: DriverGateDetails
  pinOlder: string
}

/** The facts of a CUDA the tables know (a floor). */
export interface KnownFacts extends GateFacts {
  floor: string
  /** The driver the fix asks for: the release driver, the notes' branch, else the floor. */
  wanted: string
  /** The image's compat libraries are in use on a data-center GPU. */
  compatWorks: boolean
  /** The image's NVIDIA_REQUIRE_CUDA admits the driver's branch through forward compatibility. */
  admitted: boolean
}

/** A CUDA version the tables do not know: nothing can be told. */
export function unknownCuda({ input, details, newer, cuda, driver, mm }: GateFacts): DriverGateResult {
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

export function compatWords({ compatDriver, driver }: GateFacts, words: string): string {
  return (
    `the image's CUDA forward-compatibility libraries (libcuda ${compatDriver ?? '?'}) are newer than the host's ` +
    `${driverBranch(driver)}, so the toolkit puts them in use, and the GPU is a data-center GPU: ${words}`
  )
}

/** A driver below the CUDA major's floor: only the image's compat libraries can start CUDA. */
export function belowFloor(f: KnownFacts): DriverGateResult {
  const { input, details, driver, floor, mm, cuda, compatApplies, compatDriver, pinOlder } = f
  const upgrade = `upgrade the host driver to ${f.wanted}`
  if (f.compatWorks) {
    details.reason = 'forward-compat'
    return f.admitted
      ? result(
          'pass',
          details,
          `driver ${driver} is below ${floor}, the minimum for CUDA ${mm}, but ` +
            compatWords(
              f,
              `CUDA initialises through them, on a branch the image itself admits (driver>=${parseVersion(driver)?.[0]})`
            ),
          null
        )
      : result(
          'warn',
          details,
          `driver ${driver} is below ${floor}, the minimum for CUDA ${mm}; ` +
            compatWords(
              f,
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

/** A branch-only entry: the notes name the branch, not a version in it. */
export function onBranchRow(f: KnownFacts, branchRow: BranchRow): DriverGateResult {
  const { input, details, driver, floor, mm } = f
  const named = `R${branchRow.branch}, the driver branch NVIDIA's release notes give for CUDA ${mm}`
  if (f.belowRelease === false) {
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
    `upgrade the host driver to ${f.wanted}, or ${f.pinOlder}`
  )
}

/** No release driver: the floor holds, features are unknown. */
export function withoutRelease({
  input,
  details,
  driver,
  cuda,
  floor,
  mm,
  newer,
  olderTable
}: KnownFacts): DriverGateResult {
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

/** A release driver is known (the table's or the image's): full features at or above it. */
export function againstRelease(f: KnownFacts, release: string): DriverGateResult {
  const { input, details, driver, floor, mm, olderTable } = f
  const source = details.release_driver_source === 'image' ? ` (the image's CUDA_DRIVER_VERSION)` : ''
  if (f.belowRelease === true) {
    details.reason = 'below-release-driver'
    return result(
      input.strict ? 'fail' : 'warn',
      details,
      `driver ${driver} runs CUDA ${mm} only through minor-version compatibility (floor ${floor}, ` +
        `release driver ${release}${source}): limited features, and JIT of PTX newer than the driver fails${olderTable}`,
      `upgrade the host driver to ${f.wanted}, or ${f.pinOlder}`
    )
  }
  return result(
    'pass',
    details,
    `driver ${driver} ≥ ${release}, the release driver for CUDA ${mm}${source}${olderTable}`,
    null
  )
}
