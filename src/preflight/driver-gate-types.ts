/** The driver gate's input, its details and its preflight row (preflight/driver-gate.ts). */
import type { PreflightResult } from '../types/index.js'

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

/** The gate's row: a fix only where it does not pass. */
export function result(
  status: PreflightResult['status'],
  details: DriverGateDetails,
  message: string,
  fix: string | null
): DriverGateResult {
  return { name: DRIVER_GATE, status, message, fix: status === 'pass' ? null : fix, details }
}
