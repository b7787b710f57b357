import { exitCodeFor } from '../../gate/index.js'
import { appendAll } from '../../util/arrays.js'
import type { ContainerRuntime, GpuAccess, PreflightResult } from '../../types/index.js'
import { EnvironmentError, InputError } from '../../util/errors.js'
import {
  driverChecks,
  preflightStatus,
  validateCudaVersion,
  validateDriverVersion,
  readGpuFacts,
  inspectImage,
  DRIVER_GATE,
  NVIDIA_REQUIRE_CHECK,
  isDriverGateResult,
  compatProbeMatters,
  imageCuda,
  probeCompatLibs,
  toolkitBrand,
  TOOLKIT_BRANDS
} from '../../preflight/index.js'
import { validateImageRef } from '../../config/index.js'
import type { CompatProbe, DriverFacts, DriverGateResult, ImageFacts } from '../../preflight/index.js'

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

/** `PASS name: message` and its fix, as the preflight table words them. */
function rowLines(row: PreflightResult): string[] {
  const lines = [`${row.status.toUpperCase()} ${row.name}: ${row.message}`]
  if (row.fix) lines.push(`  fix: ${row.fix}`)
  return lines
}

/**
 * `gate` command logic: the driver gate and the image's NVIDIA_REQUIRE_* rows, exit code from the worst
 * (gate/ maps it, as for the check): 0 pass/warn, 1 fail. Bad input throws InputError and a missing
 * nvidia-smi/image throws EnvironmentError (both exit 2 through exitCodeOf).
 */
export async function gateCommand(opts: GateCommandOptions): Promise<{ text: string; exitCode: number }> {
  const ev = await evaluateGate(opts)
  const { result, image, driverSource, cudaSource, gpus } = ev
  const exitCode = exitCodeFor(ev.status)
  const requirement = ev.checks.find(c => c.name === NVIDIA_REQUIRE_CHECK) ?? null
  /** The row that decides the outcome: the first with the overall status. */
  const deciding = ev.checks.find(c => c.status === ev.status) ?? ev.checks[0]
  if (result === null) throw new Error('gate: the driver gate row carries no details')
  const d = result.details
  if (opts.format === 'json') {
    return {
      exitCode,
      text: JSON.stringify(
        {
          status: ev.status,
          exit_code: exitCode,
          message: deciding?.message ?? result.message,
          fix: deciding?.fix ?? null,
          checks: ev.checks.map(c => ({ name: c.name, status: c.status, message: c.message, fix: c.fix })),
          driver_gate: { status: result.status, message: result.message, fix: result.fix },
          nvidia_require: requirement
            ? {
                status: requirement.status,
                message: requirement.message,
                fix: requirement.fix,
                ...requirement.details
              }
            : null,
          driver: d.driver,
          driver_source: driverSource,
          cuda: d.cuda,
          cuda_source: cudaSource,
          minimum_driver: d.floor_driver,
          release_driver: d.release_driver,
          release_branch: d.release_branch,
          release_driver_source: d.release_driver_source,
          reason: d.reason,
          strict: d.strict,
          forward_compat: d.forward_compat,
          compat_driver: d.compat_driver,
          compat_applies: d.compat_applies,
          compat_probe: result.details.compat_probe ?? null,
          datacenter_gpu: d.datacenter_gpu,
          driver_cuda: d.driver_cuda,
          driver_max_cuda: d.driver_max_cuda,
          gpus,
          image: image
            ? {
                ref: image.ref,
                digest: image.digest,
                digest_source: image.digest_source,
                cuda_version: image.cuda_version,
                cuda_driver_version: image.cuda_driver_version,
                require_cuda: image.require_cuda,
                require_vacuous: image.require_vacuous,
                compat_package: image.compat_package,
                forward_compat: image.forward_compat,
                forward_compat_branches: image.forward_compat_branches,
                product: image.product
              }
            : null
        },
        null,
        2
      )
    }
  }
  const lines = [`${result.status.toUpperCase()} ${result.name}: ${result.message}`]
  lines.push(
    `  driver ${d.driver} (${driverSource === 'input' ? '--driver' : 'nvidia-smi'}${d.driver_cuda ? `, supports CUDA ${d.driver_cuda}` : ''})` +
      ` · CUDA ${d.cuda} (${cudaSource === 'input' ? '--cuda' : `image ${image?.ref ?? ''}`})` +
      ` · minimum driver ${d.floor_driver ?? 'unknown'} · release driver ${d.release_driver ?? (d.release_branch ? `branch ${d.release_branch}` : 'unknown')}` +
      (d.release_driver_source ? ` (${d.release_driver_source})` : '')
  )
  if (image?.require_vacuous) {
    lines.push(
      `  note: NVIDIA_REQUIRE_CUDA=${image.require_cuda ?? ''} is weaker than the image's CUDA ${image.cuda_version ?? ''}; the driver gate uses CUDA_VERSION`
    )
  }
  if (d.compat_probe !== undefined && d.compat_probe !== null) {
    const p = d.compat_probe as CompatProbe
    lines.push(
      `  compat probe: ${p.status === 'found' ? p.libs.join(', ') : p.status === 'none' ? 'no /usr/local/cuda*/compat/libcuda.so.* in the image' : `could not list the image (${p.error ?? ''}); its ENV decides`}` +
        (d.compat_applies === null
          ? ''
          : d.compat_applies
            ? ' (newer than the host driver: used)'
            : ' (not newer than the host driver: not used)')
    )
  }
  if (result.fix) lines.push(`  fix: ${result.fix}`)
  if (requirement) {
    appendAll(lines, rowLines(requirement))
    if (driverSource === 'input' && ev.host.gpus === null) {
      const inferred = requirement.details?.driver_cuda
      lines.push(
        `  note: with --driver, the CUDA version the driver supports (${typeof inferred === 'string' ? inferred : 'unknown'}) ` +
          `comes from its branch, and the GPU brand and compute capability are unknown; leave out --driver on the GPU host to read them from nvidia-smi, or give --brand and --compute-cap`
      )
    }
  }
  return { text: lines.join('\n'), exitCode }
}
