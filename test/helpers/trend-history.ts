/**
 * Baseline files with a trend history, built through the real store (appendToBaseline), for the trend
 * tests: nightly checks of a native and a container arm, values from a function of the night.
 */
import seedrandom from 'seedrandom'
import {
  appendToBaseline,
  BASELINE_SCHEMA,
  type BaselineFile,
  type CurrentResults
} from '../../src/analyze/baseline/index.js'
import type { ArmSeries, PartialFingerprint } from '../../src/results/run-values/index.js'

export interface Night {
  /** 0-based night. */
  night: number
  /** Container kernel time level (ms) for the night, before noise. */
  level: number
  digest: string
}

export interface HistoryOptions {
  nights: number
  /** Container kernel time level (ms) of night i (noise is added). */
  level: (night: number) => number
  /** Image digest of night i (default: one digest). */
  digest?: (night: number) => string
  /** Relative noise sd of the per-check mean (default 0.5%). */
  cv?: number
  seed?: string
  /** Declare `better` on the kernel metric (default 'lower'; null: undeclared). */
  better?: 'lower' | 'higher' | null
  runs?: number
  host?: string
}

const START = Date.UTC(2026, 8, 1, 3, 17)
const DAY_MS = 86_400_000

export const NATIVE_MS = 41

function arm(environment: string, values: number[], better: 'lower' | 'higher' | null): ArmSeries {
  return {
    workload: 'matmul',
    params: '{"n":10000}',
    metric: 'kernel_ms',
    environment,
    unit: 'ms',
    scope: 'steady',
    ...(better ? { better } : {}),
    runs: values.map((_, i) => String(i + 1)),
    values,
    iterations: values.map(() => 1)
  }
}

export function nightDigest(n: number): string {
  return `sha256:${n.toString(16).padStart(2, '0').repeat(32)}`
}

/** The accepted checks of nights `from` … `from + nights − 1`, as the pipeline hands them to the store. */
export function nightChecks(opts: HistoryOptions, from = 0): CurrentResults[] {
  const rng = seedrandom(`${opts.seed ?? 'trend'}-${from}`)
  const gauss = (): number =>
    Math.sqrt(-2 * Math.log(rng() || Number.MIN_VALUE)) * Math.cos(2 * Math.PI * rng())
  const cv = opts.cv ?? 0.005
  const runs = opts.runs ?? 3
  const better = opts.better === undefined ? 'lower' : opts.better
  const out: CurrentResults[] = []
  for (let night = from; night < from + opts.nights; night++) {
    const digest = (opts.digest ?? (() => nightDigest(1)))(night)
    const facts = (image: string | null): PartialFingerprint => ({
      host: opts.host ?? 'gpu-runner-1',
      gpu_name: 'NVIDIA H100 80GB HBM3',
      gpu_access: 'devices',
      device: 'gpu',
      driver: '580.159.04',
      image_digest: image
    })
    const check = (center: number): number[] =>
      Array.from({ length: runs }, () => center * (1 + cv * gauss()))
    out.push({
      check_id: `night-${String(night).padStart(3, '0')}`,
      time: new Date(START + night * DAY_MS).toISOString(),
      commit: night.toString(16).padStart(40, 'c'),
      series: [arm('native', check(NATIVE_MS), better), arm('container', check(opts.level(night)), better)],
      fingerprints: { native: facts(null), container: facts(digest) }
    })
  }
  return out
}

/** Append `nights` accepted checks to `data` (a new file when omitted); returns the file. */
export function buildHistory(opts: HistoryOptions, data?: BaselineFile, from = 0): BaselineFile {
  const file: BaselineFile = data ?? { schema: BASELINE_SCHEMA, updated_at: '', entries: {} }
  for (const check of nightChecks(opts, from)) appendToBaseline(file, check)
  return file
}
