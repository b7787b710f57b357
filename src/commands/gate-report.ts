/** How `gpu-overhead gate` shows its evaluation: the text lines, or one JSON object. */
import { appendAll } from '../util/arrays.js'
import type { PreflightResult } from '../types/index.js'
import { NVIDIA_REQUIRE_CHECK } from '../preflight/index.js'
import type { CompatProbe, DriverGateResult, ImageFacts } from '../preflight/index.js'
import type { GateEvaluation } from './gate-evaluate.js'

/** An evaluation whose driver gate row carries its details, and the exit code it maps to. */
export interface GateView extends GateEvaluation {
  result: DriverGateResult
  exitCode: number
}

/** `PASS name: message` and its fix, as the preflight table words them. */
function rowLines(row: PreflightResult): string[] {
  const lines = [`${row.status.toUpperCase()} ${row.name}: ${row.message}`]
  if (row.fix) lines.push(`  fix: ${row.fix}`)
  return lines
}

function imageJson(image: ImageFacts): Record<string, unknown> {
  return {
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
}

/** The JSON report: the outcome, every row, the driver gate's details and the image. */
export function gateJson(ev: GateView): string {
  const { result, driverSource, cudaSource, gpus, exitCode, image } = ev
  const d = result.details
  const requirement = ev.checks.find(c => c.name === NVIDIA_REQUIRE_CHECK) ?? null
  /** The row that decides the outcome: the first with the overall status. */
  const deciding = ev.checks.find(c => c.status === ev.status) ?? ev.checks[0]
  return JSON.stringify(
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
      image: image ? imageJson(image) : null
    },
    null,
    2
  )
}

/** The text report: the driver gate line, what it compared, notes and fixes, then the NVIDIA_REQUIRE_* row. */
export function gateText(ev: GateView): string {
  const { result, image, driverSource, cudaSource } = ev
  const d = result.details
  const requirement = ev.checks.find(c => c.name === NVIDIA_REQUIRE_CHECK) ?? null
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
  return lines.join('\n')
}
