/**
 * The image-vs-driver checks, one function for the check's preflight and the stand-alone `gate` command, so
 * both give the same rows for the same image and driver: the driver gate (can the image's CUDA start on this
 * driver, with all features?) and the image's `NVIDIA_REQUIRE_*` requirements as the NVIDIA Container
 * Toolkit evaluates them (driver, the CUDA version the driver supports, GPU brand, compute capability).
 * Pure: the caller reads nvidia-smi and inspects the image.
 */
import type { GpuAccess, PreflightResult } from '../types/index.js'
import { first } from '../util/must.js'
import type { CompatProbe } from './compat-probe.js'
import { reportedCudaForDriver } from './cuda-compat.js'
import { gate } from './driver-gate.js'
import { DRIVER_GATE } from './driver-gate-types.js'
import { allDatacenter } from './gpu.js'
import type { ImageFacts } from './image.js'
import { parseMajorMinorVersion, requireGate, type HostFacts } from './nvidia-require.js'

/** Name of the preflight row of the image's NVIDIA_REQUIRE_* requirements. */
export const NVIDIA_REQUIRE_CHECK = 'nvidia-require'

/** What is known of the host the image is to run on. */
export interface DriverFacts {
  /** Driver version (nvidia-smi, or given); null when nvidia-smi reported none. */
  driver: string | null
  /** CUDA version the driver supports as nvidia-smi reports it; null: inferred from the driver's branch. */
  driverCuda: string | null
  /**
   * The visible GPUs as nvidia-smi reports them; null when they were not read (a driver version given by
   * hand): the requirements are then judged for one GPU of unknown brand and compute capability, never
   * for "no GPU", which the toolkit would let through.
   */
  gpus: readonly { name: string | null; brand: string | null; compute_cap?: string | null }[] | null
}

export interface DriverChecksInput {
  /** The image (its ENV carries CUDA_VERSION, NVIDIA_REQUIRE_*); null for a bare CUDA version. */
  image: ImageFacts | null
  /** CUDA version to gate instead of the image's (gate --cuda). */
  cuda?: string | null
  host: DriverFacts
  strict: boolean
  /** Under `gpus` the toolkit refuses an unmet requirement (fail); under cdi/devices nothing checks it (warn). */
  access: GpuAccess
  /** The image's compat libraries as the probe listed them; null/absent: not probed (the ENV hints decide). */
  compat?: CompatProbe | null
}

/**
 * The GPUs a run's containers see (`gpus: 0,1` or GPU UUIDs): the toolkit judges brand and arch on those only.
 * `all`, an empty choice, or a MIG device (whose parent GPU the facts do not name) keep every GPU.
 */
export function visibleGpus<G extends { index: number; uuid: string | null }>(
  gpus: readonly G[],
  devices: string | null | undefined
): G[] {
  const wanted = (devices ?? 'all')
    .split(',')
    .map(d => d.trim())
    .filter(d => d !== '')
  if (wanted.length === 0 || wanted.includes('all') || wanted.some(d => d.startsWith('MIG-')))
    return [...gpus]
  const chosen = gpus.filter(
    g => wanted.includes(String(g.index)) || (g.uuid !== null && wanted.includes(g.uuid))
  )
  return chosen.length > 0 ? chosen : [...gpus]
}

/**
 * The CUDA version the driver gate checks for an image: what image inspection found (CUDA_VERSION, or a meaningful
 * `cuda>=`), else, for a legacy image whose CUDA_VERSION only semver reads (`13`, `v12.6`), the version of the
 * toolkit's legacy requirement.
 */
export function imageCuda(image: ImageFacts | null): string | null {
  if (image === null) return null
  if (image.required_cuda !== null) return image.required_cuda
  const legacy = (image.require_cuda ?? '') === '' ? (image.env.CUDA_VERSION ?? '') : ''
  const mm = legacy === '' ? null : parseMajorMinorVersion(legacy)
  return typeof mm === 'string' ? mm : null
}

/** The CUDA version the driver supports: nvidia-smi's word, else what the driver's branch reports. */
function driverCudaOf(host: DriverFacts): string | null {
  if (host.driverCuda !== null) return host.driverCuda
  return host.driver === null ? null : reportedCudaForDriver(host.driver)
}

function driverGateRow(input: DriverChecksInput): PreflightResult {
  const { image, host } = input
  const cuda = input.cuda ?? imageCuda(image)
  if (cuda === null || host.driver === null) {
    return {
      name: DRIVER_GATE,
      status: 'warn',
      message:
        host.driver === null
          ? 'nvidia-smi reported no driver version; the driver gate could not run'
          : `image ${image?.ref ?? ''} declares no CUDA version (CUDA_VERSION or NVIDIA_REQUIRE_CUDA=cuda>=X)` +
            `${image?.require_vacuous ? ` beyond the vacuous ${image.require_cuda ?? ''}` : ''}; the driver gate could not run`,
      fix:
        host.driver === null
          ? 'check the NVIDIA driver'
          : 'set ENV CUDA_VERSION in the image, or check the driver against the CUDA it bundles by hand (gpu-overhead gate --cuda X)',
      details: { image: image?.ref ?? null }
    }
  }
  // The probe's listing is the fact; the ENV (NV_CUDA_COMPAT_PACKAGE, LD_LIBRARY_PATH) only when it could not run.
  const compat = input.compat
  const probed = compat !== null && compat !== undefined && compat.status !== 'failed'
  const versions = probed ? compat.versions : []
  const row = gate({
    driver: host.driver,
    cuda,
    strict: input.strict,
    forwardCompat: probed ? versions.length > 0 : (image?.forward_compat ?? false),
    // Several versions: the toolkit's hook uses none of them (it expects exactly one libcuda.so.*.*).
    compatDriver: versions.length === 1 ? first(versions) : null,
    compatBranches: image?.forward_compat_branches ?? [],
    datacenterGpu: host.gpus === null ? null : allDatacenter(host.gpus.map(g => g.name)),
    // The image's own release driver only describes the image's CUDA, not a --cuda override.
    releaseDriver: input.cuda ? null : (image?.cuda_driver_version ?? null),
    driverCuda: host.driverCuda
  })
  return { ...row, details: { ...row.details, compat_probe: input.compat ?? null } }
}

function requirementRow(image: ImageFacts, input: DriverChecksInput): PreflightResult {
  const { host } = input
  const facts: HostFacts = {
    driver: host.driver,
    driverCuda: driverCudaOf(host),
    // nvidia-smi's compute_cap decides `arch`; a driver given by hand leaves brand and arch unknown.
    gpus: (host.gpus ?? [{ brand: null, compute_cap: null }]).map(g => ({
      brand: g.brand,
      arch: g.compute_cap ?? null
    }))
  }
  const r = requireGate(image.env, facts, input.access)
  return {
    name: NVIDIA_REQUIRE_CHECK,
    status: r.status,
    message: r.message,
    fix: r.fix,
    details: {
      outcomes: r.outcomes,
      gpu_access: input.access,
      driver_cuda: facts.driverCuda,
      driver_cuda_source:
        host.driverCuda !== null ? 'nvidia-smi' : facts.driverCuda !== null ? 'driver branch' : null,
      brands: facts.gpus.map(g => g.brand),
      compute_caps: facts.gpus.map(g => g.arch)
    }
  }
}

/** The driver gate and, for an image, its NVIDIA_REQUIRE_* row: what both the check and `gate` report. */
export function driverChecks(input: DriverChecksInput): PreflightResult[] {
  const rows = [driverGateRow(input)]
  if (input.image !== null) rows.push(requirementRow(input.image, input))
  return rows
}
