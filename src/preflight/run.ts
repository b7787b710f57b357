import type { ContainerRuntime, Device, Fingerprint, GpuAccess, PreflightResult } from '../types/index.js'
import { DRIVER_GATE } from './driver-gate-types.js'
import { driverChecks, imageCuda, visibleGpus } from './driver-checks.js'
import { checkClocks, checkIsolation, checkMig, checkPersistence, checkPowerLimit } from './gpu-checks.js'
import { readGpuFacts } from './gpu.js'
import type { GpuFacts } from './gpu.js'
import { imageRefOf, type ImageRef, type IoMountSpec } from '../config/index.js'
import { inspectImage, timeBudgetBudget } from './image.js'
import { compatProbeMatters, probeCompatLibs } from './compat-probe.js'
import type { ImageFacts } from './image.js'
import { checkMounts } from './io-check.js'
import { appendAll } from '../util/arrays.js'

/** What preflight needs; a small explicit slice of the run configuration. */
export interface PreflightInput {
  device: Device
  gpuAccess: GpuAccess
  /** Image reference (parsed by config; a string is validated here), or null for a native-only run. */
  image: ImageRef | string | null
  runtime: ContainerRuntime
  strict: boolean
  /** Run label value of the probe containers (the check id), so a cancel removes them too. */
  checkId?: string
  /** Dataset mount (a bind mount, or a path inside the image), parsed and judged by config. */
  data?: IoMountSpec | null
  /** Checkpoint mount. */
  ckpt?: IoMountSpec | null
  /** The GPU(s) the run uses (e.g. `all`, `0`, `MIG-<uuid>`), for the MIG check. */
  gpuDevices?: string | null
  /** Runtime arguments the workload containers get (GPU access, --tmpfs ...); the I/O check uses them too. */
  extraDockerArgs?: readonly string[]
  /** Size of the I/O probe per path (MiB); default 64. */
  probeMiB?: number
  /** nvidia-smi to run (default on PATH). */
  nvidiaSmi?: string
  /**
   * The check's time-budget (seconds): the image step (inspect, and a pull when the image is absent) gets no more.
   * Absent (no budget; the gate and io-check commands): a pull has its own limit only.
   */
  timeBudgetS?: number
}

export interface PreflightOutput {
  results: PreflightResult[]
  gpus: GpuFacts[]
  image: ImageFacts | null
  driver: string | null
  /** The CUDA version the driver supports (nvidia-smi). */
  driver_cuda: string | null
}

/**
 * All preflight checks for a run. Throws InputError (bad image ref) and
 * EnvironmentError (no nvidia-smi or GPU on a GPU run, image absent and not pullable) — exit 2.
 * Check outcomes (including a failed driver gate) come back as results; the caller decides.
 */
export async function runPreflight(input: PreflightInput): Promise<PreflightOutput> {
  // Bad input first, before any slow or host-touching step.
  const imageRef = input.image === null ? null : imageRefOf(input.image)

  const results: PreflightResult[] = []
  let gpus: GpuFacts[] = []
  let driver: string | null = null
  let driverCuda: string | null = null
  if (input.device === 'gpu') {
    const report = await readGpuFacts({ nvidiaSmi: input.nvidiaSmi })
    gpus = report.gpus
    driver = report.driver
    driverCuda = report.cuda_version
  }
  const image =
    imageRef !== null
      ? await inspectImage(imageRef, input.runtime, {
          ...(input.timeBudgetS === undefined ? {} : { budget: timeBudgetBudget(input.timeBudgetS) })
        })
      : null

  if (input.device !== 'gpu') {
    results.push({ name: DRIVER_GATE, status: 'skip', message: 'device cpu: no driver to check', fix: null })
  } else if (image === null) {
    results.push({ name: DRIVER_GATE, status: 'skip', message: 'no image: native run only', fix: null })
  } else {
    // The image's compat libraries matter only on a driver older than its CUDA's release driver.
    const compat = compatProbeMatters(imageCuda(image), driver)
      ? await probeCompatLibs(image.id, input.runtime, input.checkId)
      : null
    // The same rows `gpu-overhead gate` prints for this image and driver.
    appendAll(
      results,
      driverChecks({
        image,
        host: { driver, driverCuda, gpus: visibleGpus(gpus, input.gpuDevices) },
        strict: input.strict,
        access: input.gpuAccess,
        compat
      })
    )
  }

  if (input.device === 'gpu') {
    results.push(
      checkPersistence(gpus),
      checkMig(gpus, input.gpuDevices),
      checkClocks(gpus),
      checkPowerLimit(gpus)
    )
    if (image !== null) results.push(checkIsolation(gpus, input.gpuAccess))
  }

  if (input.data || input.ckpt) {
    if (image === null) {
      results.push({
        name: 'mounts',
        status: 'skip',
        message: 'no image: mount checks apply to containers only',
        fix: null
      })
    } else {
      appendAll(
        results,
        await checkMounts({
          image: imageRef ?? image.ref,
          runtime: input.runtime,
          data: input.data ?? null,
          ckpt: input.ckpt ?? null,
          extraDockerArgs: input.extraDockerArgs,
          imageId: image.id,
          label: input.checkId,
          probeMiB: input.probeMiB
        })
      )
    }
  }

  return { results, gpus, image, driver, driver_cuda: driverCuda }
}

/** Overall status of a set of results: fail > warn > pass (skip counts as pass). */
export function preflightStatus(results: readonly PreflightResult[]): 'pass' | 'warn' | 'fail' {
  if (results.some(r => r.status === 'fail')) return 'fail'
  if (results.some(r => r.status === 'warn')) return 'warn'
  return 'pass'
}

/** The fingerprint fields preflight knows (the first GPU's; the caller fills host, runtime, access). */
export function fingerprintFacts(
  out: Pick<PreflightOutput, 'gpus' | 'image' | 'driver' | 'driver_cuda'>
): Pick<
  Fingerprint,
  'gpu_name' | 'gpu_uuid' | 'driver' | 'cuda' | 'image_digest' | 'mig_mode' | 'persistence_mode' | 'clocks'
> {
  const g = out.gpus[0]
  const clocks =
    g === undefined
      ? null
      : `applications ${g.clocks_applications_graphics_mhz ?? '?'} MHz (default ${g.clocks_default_applications_graphics_mhz ?? '?'}), ` +
        `max sm ${g.clocks_max_sm_mhz ?? '?'} MHz, power limit ${g.power_limit_w ?? '?'} W`
  return {
    gpu_name: g?.name ?? null,
    gpu_uuid: g?.uuid ?? null,
    driver: out.driver,
    cuda: out.image?.cuda_version ?? out.driver_cuda,
    image_digest: out.image?.digest ?? null,
    mig_mode: g?.mig_mode ?? null,
    persistence_mode: g?.persistence_mode ?? null,
    clocks
  }
}
