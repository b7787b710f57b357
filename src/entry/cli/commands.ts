/** The CLI's small commands: validate flags, call the stage, print, return the exit code. */
import { aggregateCommand } from '../../fleet/index.js'
import { analyzeCommand } from './analyze.js'
import { alpha, DEFAULTS, gateMetrics, maxOverhead, oneOf } from '../../config/index.js'
import { Inputs } from '../../types/inputs.js'
import { gateCommand } from './gate.js'
import { ioCheckCommand } from './io-check.js'
import {
  CONTAINER_RUNTIMES,
  GPU_ACCESS_MODES,
  ON_INCONCLUSIVE,
  type ContainerRuntime,
  type OnInconclusive
} from '../../types/index.js'
import { writeErr, writeOut } from '../../util/log.js'

/** A flag's raw value, or the input's default: commander hands strings (or true for a bare flag). */
function flag(opts: Record<string, unknown>, key: string, input: Inputs): string {
  const v = opts[key]
  return typeof v === 'string' ? v : DEFAULTS[input]
}

function runtimeOf(opts: Record<string, unknown>): ContainerRuntime {
  return oneOf(
    '--container-runtime',
    flag(opts, 'containerRuntime', Inputs.ContainerRuntime),
    CONTAINER_RUNTIMES
  )
}

function limits(opts: Record<string, unknown>): {
  maxOverheadPct: number
  alpha: number
  onInconclusive: OnInconclusive
} {
  return {
    maxOverheadPct: maxOverhead('--max-overhead', flag(opts, 'maxOverhead', Inputs.MaxOverhead)),
    alpha: alpha('--alpha', flag(opts, 'alpha', Inputs.Alpha)),
    onInconclusive: oneOf(
      '--on-inconclusive',
      flag(opts, 'onInconclusive', Inputs.OnInconclusive),
      ON_INCONCLUSIVE
    )
  }
}

/** Prints a command's text (one trailing newline) and hands back its exit code. */
function printed(result: { text: string; exitCode: number }): number {
  writeOut(result.text)
  return result.exitCode
}

function optionalString(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw !== '' ? raw : undefined
}

export async function analyzeCli(opts: Record<string, unknown>): Promise<number> {
  const result = await analyzeCommand({
    input: Array.isArray(opts.input) ? opts.input.map(String) : String(opts.input),
    formatIn: optionalString(opts.formatIn),
    ...(Array.isArray(opts.arm) ? { arms: opts.arm.map(String) } : {}),
    baselineEnv: optionalString(opts.baselineEnv),
    candidateEnv: optionalString(opts.candidateEnv),
    baselinePath: optionalString(opts.baseline),
    format: opts.format === 'json' ? 'json' : 'md',
    gateMetrics: gateMetrics('--gate-metrics', optionalString(opts.gateMetrics) ?? ''),
    ...limits(opts)
  })
  return printed(result)
}

export async function gateCli(opts: Record<string, unknown>): Promise<number> {
  const result = await gateCommand({
    driver: optionalString(opts.driver),
    cuda: optionalString(opts.cuda),
    image: optionalString(opts.image),
    strict: opts.strict === true,
    format: opts.format === 'json' ? 'json' : 'text',
    runtime: runtimeOf(opts),
    gpuAccess: oneOf('--gpu-access', flag(opts, 'gpuAccess', Inputs.GpuAccess), GPU_ACCESS_MODES),
    driverCuda: optionalString(opts.driverCuda),
    brand: optionalString(opts.brand),
    computeCap: optionalString(opts.computeCap),
    gpuName: optionalString(opts.gpuName)
  })
  return printed(result)
}

export async function ioCheckCli(opts: Record<string, unknown>): Promise<number> {
  const result = await ioCheckCommand({
    image: String(opts.image),
    data: optionalString(opts.data),
    ckpt: optionalString(opts.ckpt),
    format: opts.format === 'json' ? 'json' : 'text',
    runtime: runtimeOf(opts)
  })
  return printed(result)
}

export async function aggregateCli(dirs: string[], opts: Record<string, unknown>): Promise<number> {
  const result = aggregateCommand({
    dirs,
    out: optionalString(opts.out) ?? 'gpu-overhead-aggregate',
    format: opts.format === 'json' ? 'json' : 'md',
    ...limits(opts)
  })
  printed(result)
  writeErr(`aggregate: ${result.paths.markdown}, ${result.paths.json}`)
  return Promise.resolve(result.exitCode)
}
