/** The CLI's small commands: validate flags, call the stage, print, return the exit code. */
import { aggregateCommand } from '../../fleet/index.js'
import { analyzeCommand } from './analyze.js'
import { percent } from '../../config/index.js'
import { InputError } from '../../util/errors.js'
import { parseNumber } from '../../util/number.js'
import { gateCommand } from './gate.js'
import { ioCheckCommand } from './io-check.js'
import { CONTAINER_RUNTIMES, type ContainerRuntime } from '../../types/index.js'

function runtimeOf(raw: unknown): ContainerRuntime {
  const v = typeof raw === 'string' ? raw : 'docker'
  if (!(CONTAINER_RUNTIMES as readonly string[]).includes(v))
    throw new InputError('container-runtime', v, CONTAINER_RUNTIMES.join(' | '))
  return v as ContainerRuntime
}

function alphaOf(raw: unknown): number {
  const n =
    typeof raw === 'string' ? parseNumber(raw, { kind: 'real', min: 0, minExclusive: true, max: 0.5 }) : null
  if (n === null || !n.ok) throw new InputError('alpha', raw, 'a number above 0 and at most 0.5, e.g. 0.05')
  return n.value
}

function optionalString(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw !== '' ? raw : undefined
}

export async function analyzeCli(opts: Record<string, unknown>): Promise<number> {
  const result = await analyzeCommand({
    input: String(opts.input),
    baselineEnv: optionalString(opts.baselineEnv),
    candidateEnv: optionalString(opts.candidateEnv),
    baselinePath: optionalString(opts.baseline),
    format: opts.format === 'json' ? 'json' : 'md',
    maxOverheadPct: percent('max-overhead', typeof opts.maxOverhead === 'string' ? opts.maxOverhead : '2%'),
    alpha: alphaOf(opts.alpha ?? '0.05')
  })
  process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`)
  return result.exitCode
}

export async function gateCli(opts: Record<string, unknown>): Promise<number> {
  const result = await gateCommand({
    driver: optionalString(opts.driver),
    cuda: optionalString(opts.cuda),
    image: optionalString(opts.image),
    strict: opts.strict === true,
    format: opts.format === 'json' ? 'json' : 'text',
    runtime: runtimeOf(opts.containerRuntime)
  })
  process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`)
  return result.exitCode
}

export async function ioCheckCli(opts: Record<string, unknown>): Promise<number> {
  const result = await ioCheckCommand({
    image: String(opts.image),
    data: optionalString(opts.data),
    ckpt: optionalString(opts.ckpt),
    format: opts.format === 'json' ? 'json' : 'text',
    runtime: runtimeOf(opts.containerRuntime)
  })
  process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`)
  return result.exitCode
}

export async function aggregateCli(dirs: string[], opts: Record<string, unknown>): Promise<number> {
  const result = aggregateCommand({
    dirs,
    out: optionalString(opts.out) ?? 'gpu-overhead-aggregate',
    format: opts.format === 'json' ? 'json' : 'md',
    maxOverheadPct: percent('max-overhead', typeof opts.maxOverhead === 'string' ? opts.maxOverhead : '2%'),
    alpha: alphaOf(opts.alpha ?? '0.05')
  })
  process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`)
  process.stderr.write(`aggregate: ${result.paths.markdown}, ${result.paths.json}\n`)
  return Promise.resolve(result.exitCode)
}
