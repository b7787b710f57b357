/** The driver gate: a host driver against an image's CUDA, from NVIDIA's compatibility tables (cuda-compat.ts). */
import { InputError } from '../util/errors.js'
import {
  compareVersions,
  driverBranch,
  majorMinor,
  maxCudaForDriver,
  meetsRow,
  minorVersionFloor,
  newerThanTable,
  parseVersion,
  tableEntry,
  tableOlderThan
} from './cuda-compat.js'
import type { BranchRow } from './cuda-driver-table.js'
import {
  againstRelease,
  belowFloor,
  compatWords,
  onBranchRow,
  unknownCuda,
  withoutRelease,
  type GateFacts,
  type KnownFacts
} from './driver-gate-outcomes.js'
import { result, type DriverGateDetails, type DriverGateResult, type GateInput } from './driver-gate-types.js'

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
  const facts = gateFacts(input)
  const { floor, release, branchRow, driver, mm, compatApplies } = facts
  if (floor === null) return unknownCuda(facts)
  const wanted = release
    ? `branch ${driverBranch(release)} or newer (≥ ${release})`
    : branchRow
      ? `branch R${branchRow.branch} or newer (the notes name the branch for CUDA ${mm}, no version within it)`
      : `branch ${driverBranch(floor)} or newer (≥ ${floor})`
  const known: KnownFacts = {
    ...facts,
    floor,
    wanted,
    compatWorks: compatApplies === true && input.datacenterGpu === true,
    admitted: (input.compatBranches ?? []).includes(parseVersion(driver)?.[0] ?? -1)
  }
  if (compareVersions(driver, floor) < 0) return belowFloor(known)
  if (known.compatWorks && known.belowRelease !== false) {
    known.details.reason = 'forward-compat'
    return result(
      'pass',
      known.details,
      compatWords(known, `CUDA ${mm} runs with the features of libcuda ${known.compatDriver ?? '?'}`) +
        known.olderTable,
      null
    )
  }
  if (branchRow !== null) return onBranchRow(known, branchRow)
  if (release === null) return withoutRelease(known)
  return againstRelease(known, release)
}

function gateFacts(input: GateInput): GateFacts {
  const driver = validateDriverVersion(input.driver)
  const cuda = validateCudaVersion(input.cuda)
  const floor = minorVersionFloor(cuda)
  const imageRelease =
    input.releaseDriver && parseVersion(input.releaseDriver) !== null ? input.releaseDriver.trim() : null
  // NVIDIA's notes first (a release row, else a branch-only row): NGC's CUDA_DRIVER_VERSION only for a release
  // the table lacks.
  const entry = tableEntry(cuda)
  const tableRelease = entry?.kind === 'release' ? entry.driver : null
  const branchRow: BranchRow | null = entry?.kind === 'branch' ? entry : null
  const release = tableRelease ?? (branchRow === null ? imageRelease : null)
  const belowRelease =
    entry !== null ? !meetsRow(driver, entry) : release !== null ? compareVersions(driver, release) < 0 : null
  const newer = newerThanTable(cuda)
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
  return {
    input,
    driver,
    cuda,
    mm: majorMinor(cuda),
    floor,
    release,
    branchRow,
    belowRelease,
    newer,
    olderTable: newer ? `; ${tableOlderThan(cuda)}` : '',
    compatDriver,
    compatApplies,
    details,
    pinOlder: pinAdvice(max)
  }
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
