/** The driver gate of `gpu-overhead gate`: the flags validated, the host and image read, preflight's rows. */
import type { ContainerRuntime, GpuAccess, PreflightResult } from '../types/index.js'
import { EnvironmentError, InputError } from '../util/errors.js'
import {
  driverChecks,
  preflightStatus,
  validateCudaVersion,
  validateDriverVersion,
  readGpuFacts,
  inspectImage,
  DRIVER_GATE,
  isDriverGateResult,
  compatProbeMatters,
  imageCuda,
  probeCompatLibs,
  toolkitBrand,
  TOOLKIT_BRANDS
} from '../preflight/index.js'
import { validateImageRef } from '../config/index.js'
import type { DriverFacts, DriverGateResult, ImageFacts } from '../preflight/index.js'

export interface GateCommandOptions {
  driver?: string
  cuda?: string
  image?: string
  strict: boolean
  format: 'text' | 'json'
  runtime: ContainerRuntime
  /** How the containers get the GPU: under `gpus` an unmet NVIDIA_REQUIRE_* fails (default), else warns. */
  gpuAccess?: GpuAccess
  /** nvidia-smi to run when no driver is given (default `nvidia-smi` on PATH). */
  nvidiaSmi?: string
  /** With --driver: the host described by hand, as nvidia-smi would report it. */
  driverCuda?: string
  /** nvidia-smi "Product Brand" (`NVIDIA`, `GeForce RTX`, `NVIDIA Virtual Compute Server`) or the toolkit's word (`vcs`). */
  brand?: string
  /** Compute capability `MAJOR.MINOR` (`9.0`). */
  computeCap?: string
  /** GPU name (`NVIDIA H100 80GB HBM3`): tells a data-center GPU (forward compatibility) from others. */
  gpuName?: string
}

const MAJOR_MINOR = /^\d{1,4}\.\d{1,4}$/
const GPU_NAME = /^[\w .()+-]{1,80}$/

/** The GPU described by --brand/--compute-cap/--gpu-name (with --driver), validated; null when none is given. */
function handGpu(
  opts: GateCommandOptions
): { name: string | null; brand: string | null; compute_cap: string | null } | null {
  const given = [
    ['driver-cuda', opts.driverCuda],
    ['brand', opts.brand],
    ['compute-cap', opts.computeCap],
    ['gpu-name', opts.gpuName]
  ] as const
  for (const [name, v] of given)
    if (v !== undefined && opts.driver === undefined)
      throw new InputError(
        name,
        v,
        `--${name} together with --driver (without --driver the host's nvidia-smi is read)`
      )
  if (opts.driverCuda !== undefined && !MAJOR_MINOR.test(opts.driverCuda))
    throw new InputError(
      'driver-cuda',
      opts.driverCuda,
      'the CUDA version the driver supports, MAJOR.MINOR (13.0)'
    )
  if (opts.computeCap !== undefined && !MAJOR_MINOR.test(opts.computeCap))
    throw new InputError('compute-cap', opts.computeCap, 'a compute capability MAJOR.MINOR (9.0)')
  if (opts.brand !== undefined && toolkitBrand(opts.brand) === null)
    throw new InputError(
      'brand',
      opts.brand,
      `an nvidia-smi "Product Brand" or one of ${TOOLKIT_BRANDS.join(', ')}`
    )
  if (opts.gpuName !== undefined && !GPU_NAME.test(opts.gpuName))
    throw new InputError(
      'gpu-name',
      opts.gpuName,
      'a GPU name as nvidia-smi prints it (letters, digits, spaces, . ( ) + -)'
    )
  if (opts.brand === undefined && opts.computeCap === undefined && opts.gpuName === undefined) return null
  return { name: opts.gpuName ?? null, brand: opts.brand ?? null, compute_cap: opts.computeCap ?? null }
}

/** The access mode the action uses by default (config/defaults). */
const DEFAULT_GPU_ACCESS: GpuAccess = 'gpus'

export interface GateEvaluation {
  /** Worst of the rows: what the exit code follows. */
  status: 'pass' | 'warn' | 'fail'
  /** The rows the check's preflight shows for the same image and driver (driver gate, nvidia-require). */
  checks: PreflightResult[]
  result: DriverGateResult | null
  image: ImageFacts | null
  host: DriverFacts
  driverSource: 'input' | 'nvidia-smi'
  cudaSource: 'input' | 'image'
  gpus: string[]
}

/** Gate an image (or a CUDA version) against a driver (or the host's), through preflight's own checks. */
export async function evaluateGate(opts: GateCommandOptions): Promise<GateEvaluation> {
  if (!opts.cuda && !opts.image)
    throw new InputError('cuda', opts.cuda ?? null, 'one of --cuda VERSION or --image REF')
  // Validate every input before touching the host.
  if (opts.driver !== undefined) validateDriverVersion(opts.driver)
  if (opts.cuda !== undefined) validateCudaVersion(opts.cuda)
  const imageRef = opts.image !== undefined ? validateImageRef(opts.image, 'image') : null

  const gpu = handGpu(opts)

  let host: DriverFacts
  if (opts.driver !== undefined) {
    // A driver given by hand: what nvidia-smi would say of the GPU is unknown unless described by the flags.
    host = {
      driver: validateDriverVersion(opts.driver),
      driverCuda: opts.driverCuda ?? null,
      gpus: gpu === null ? null : [gpu]
    }
  } else {
    const report = await readGpuFacts({
      nvidiaSmi: opts.nvidiaSmi,
      // gate has no --device: without a GPU it judges a driver given by hand.
      otherwise: 'give the host by hand: --driver VER (and --driver-cuda, --brand, --compute-cap)'
    })
    if (!report.driver)
      throw new EnvironmentError('nvidia-smi reported no driver version; pass --driver VERSION')
    host = { driver: report.driver, driverCuda: report.cuda_version, gpus: report.gpus }
  }

  const image = imageRef !== null ? await inspectImage(imageRef, opts.runtime) : null
  if ((opts.cuda ?? imageCuda(image)) === null) {
    throw new InputError(
      'image',
      opts.image,
      'an image that declares its CUDA version (CUDA_VERSION, or NVIDIA_REQUIRE_CUDA=cuda>=X), or pass --cuda VERSION'
    )
  }
  // Forward compatibility is read from the image's own compat libraries (a short probe container), when it can matter.
  const compat =
    image !== null && opts.cuda === undefined && compatProbeMatters(imageCuda(image), host.driver)
      ? await probeCompatLibs(image.id, opts.runtime)
      : null
  const checks = driverChecks({
    image,
    cuda: opts.cuda ?? null,
    host,
    strict: opts.strict,
    access: opts.gpuAccess ?? DEFAULT_GPU_ACCESS,
    compat
  })
  const gateRow = checks.find(c => c.name === DRIVER_GATE)
  return {
    status: preflightStatus(checks),
    checks,
    // The CLI always has a driver and a CUDA version, so the row is the gate's own (with its details).
    result: gateRow !== undefined && isDriverGateResult(gateRow) ? gateRow : null,
    image,
    host,
    driverSource: opts.driver !== undefined ? 'input' : 'nvidia-smi',
    cudaSource: opts.cuda !== undefined ? 'input' : 'image',
    gpus: (host.gpus ?? []).map((g, i) => g.name ?? `GPU ${i}`)
  }
}
