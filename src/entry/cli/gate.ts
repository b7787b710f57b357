import { exitCodeFor } from '../../gate/index.js'
import type { ContainerRuntime } from '../../types/index.js'
import { EnvironmentError, InputError } from '../../util/errors.js'
import {
  gate,
  validateCudaVersion,
  validateDriverVersion,
  allDatacenter,
  readGpuFacts,
  inspectImage
} from '../../preflight/index.js'
import { validateImageRef } from '../../config/index.js'
import type { DriverGateResult, ImageFacts } from '../../preflight/index.js'

export interface GateCommandOptions {
  driver?: string
  cuda?: string
  image?: string
  strict: boolean
  format: 'text' | 'json'
  runtime: ContainerRuntime
  /** nvidia-smi to run when no driver is given (default `nvidia-smi` on PATH). */
  nvidiaSmi?: string
}

/** Gate an image (or a CUDA version) against a driver (or the host's) and an image's facts. */
export async function evaluateGate(opts: GateCommandOptions): Promise<{
  result: DriverGateResult
  image: ImageFacts | null
  driverSource: 'input' | 'nvidia-smi'
  cudaSource: 'input' | 'image'
  gpus: string[]
}> {
  if (!opts.cuda && !opts.image)
    throw new InputError('cuda', opts.cuda ?? null, 'one of --cuda VERSION or --image REF')
  // Validate every input before touching the host.
  if (opts.driver !== undefined) validateDriverVersion(opts.driver)
  if (opts.cuda !== undefined) validateCudaVersion(opts.cuda)
  const imageRef = opts.image !== undefined ? validateImageRef(opts.image, 'image') : null

  let driver: string
  let driverCuda: string | null = null
  let datacenter: boolean | null = null
  let gpus: string[] = []
  if (opts.driver !== undefined) {
    driver = validateDriverVersion(opts.driver)
  } else {
    const report = await readGpuFacts({ nvidiaSmi: opts.nvidiaSmi })
    if (!report.driver)
      throw new EnvironmentError('nvidia-smi reported no driver version; pass --driver VERSION')
    driver = report.driver
    driverCuda = report.cuda_version
    gpus = report.gpus.map(g => g.name ?? `GPU ${g.index}`)
    datacenter = allDatacenter(report.gpus.map(g => g.name))
  }

  const image = imageRef !== null ? await inspectImage(imageRef, opts.runtime) : null
  const cuda = opts.cuda ?? image?.required_cuda ?? null
  if (cuda === null) {
    throw new InputError(
      'image',
      opts.image,
      'an image that declares its CUDA version (CUDA_VERSION, or NVIDIA_REQUIRE_CUDA=cuda>=X), or pass --cuda VERSION'
    )
  }
  const result = gate({
    driver,
    cuda,
    strict: opts.strict,
    forwardCompat: image?.forward_compat ?? false,
    datacenterGpu: datacenter,
    // The image's own release driver only describes the image's CUDA, not a --cuda override.
    releaseDriver: opts.cuda === undefined ? (image?.cuda_driver_version ?? null) : null,
    driverCuda
  })
  return {
    result,
    image,
    driverSource: opts.driver !== undefined ? 'input' : 'nvidia-smi',
    cudaSource: opts.cuda !== undefined ? 'input' : 'image',
    gpus
  }
}

/**
 * `gate` command logic. Exit 0 pass/warn, 1 fail. Bad input throws InputError and a missing
 * nvidia-smi/image throws EnvironmentError (both exit 2 through exitCodeOf).
 */
export async function gateCommand(opts: GateCommandOptions): Promise<{ text: string; exitCode: number }> {
  const { result, image, driverSource, cudaSource, gpus } = await evaluateGate(opts)
  const exitCode = exitCodeFor(result.status)
  const d = result.details
  if (opts.format === 'json') {
    return {
      exitCode,
      text: JSON.stringify(
        {
          status: result.status,
          exit_code: exitCode,
          message: result.message,
          fix: result.fix,
          driver: d.driver,
          driver_source: driverSource,
          cuda: d.cuda,
          cuda_source: cudaSource,
          minimum_driver: d.floor_driver,
          release_driver: d.release_driver,
          release_driver_source: d.release_driver_source,
          reason: d.reason,
          strict: d.strict,
          forward_compat: d.forward_compat,
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
  const lines = [`${result.status.toUpperCase()} driver-gate: ${result.message}`]
  lines.push(
    `  driver ${d.driver} (${driverSource === 'input' ? '--driver' : 'nvidia-smi'}${d.driver_cuda ? `, supports CUDA ${d.driver_cuda}` : ''})` +
      ` · CUDA ${d.cuda} (${cudaSource === 'input' ? '--cuda' : `image ${image?.ref ?? ''}`})` +
      ` · minimum driver ${d.floor_driver ?? 'unknown'} · release driver ${d.release_driver ?? 'unknown'}` +
      (d.release_driver_source ? ` (${d.release_driver_source})` : '')
  )
  if (image?.require_vacuous) {
    lines.push(
      `  note: NVIDIA_REQUIRE_CUDA=${image.require_cuda ?? ''} is weaker than the image's CUDA ${image.cuda_version ?? ''}; ignored`
    )
  }
  if (result.fix) lines.push(`  fix: ${result.fix}`)
  return { text: lines.join('\n'), exitCode }
}
