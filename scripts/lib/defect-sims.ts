/**
 * Issue 39's defects (and issue 38's duet offsets), each with a generator of its own, driven through the
 * production entry points: per-request sample rows → analyzeRecords (a fixed-count check, `analyze`) and
 * SequentialController (a check that looks after every block, then applyTo). scripts/simulate-verdicts.ts
 * prints one row per defect; test/analyze/issue-39.test.ts builds each defect's test from the same generators.
 *
 * A generator gives, for block i of a check, each arm's per-request values (one process per arm and block)
 * and, for a duet, the GPU each arm ran on. The effect is applied by the generator, and `truth` is the
 * overhead it implies: the ratio of the arms' request means − 1 (README, "Overhead").
 */
import seedrandom from 'seedrandom'
import { analyzeRecords } from '../../src/analyze/compare/index.js'
import { pooledRows } from '../../src/analyze/multi-gpu.js'
import { SequentialController } from '../../src/analyze/sequential-check.js'
import { guardNativeModes, historyKey, type NativeHistory } from '../../src/analyze/native-modes.js'
import type { Analysis, Comparison, SampleRecord } from '../../src/types/index.js'
import { DEFAULTS, valuesNeeded } from '../../src/config/index.js'
import { Inputs } from '../../src/types/inputs.js'

export interface Block {
  native: number[]
  container: number[]
  /** GPUs of the arms (a duet); absent on one GPU. */
  gpu?: { native: number; container: number }
}

export interface Generator {
  name: string
  /** The overhead the generator implies (ratio of request means − 1), in %. */
  truthPct: number
  /** Gated metrics per check (each its own series, drawn alike); 1 unless a multiplicity row. */
  metrics?: number
  /** A check: block i → per-request values of each arm, for metric m. */
  check: (rand: () => number) => (i: number, m: number) => Block
  /**
   * A tail metric gated through gate-metrics: each process also reports the q-th percentile of its requests
   * (`tpot_p<q>_ms`, one value per process, as the built-in llm does), and the row is judged on it. `truthPct`:
   * its true overhead where the generator implies one (a scale change of every request), else undefined.
   */
  tail?: { q: number; truthPct?: number }
}

export const MAX = 2
export const ALPHA = 0.05
/** A default check's `max-runs` (action.yml): "sequential" rows run 3 to this many blocks. */
export const DEFAULT_MAX_RUNS = Number(DEFAULTS[Inputs.MaxRuns])
/** How a "sequential" row is labelled in the tables: the default check's range of blocks. */
export const SEQUENTIAL_LABEL = `sequential (3–${DEFAULT_MAX_RUNS})`

export function normal(rand: () => number): number {
  const u = Math.max(rand(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand())
}

/** Student-t with 3 df, scaled to unit variance. */
export function t3(rand: () => number): number {
  const chi = normal(rand) ** 2 + normal(rand) ** 2 + normal(rand) ** 2
  return normal(rand) / Math.sqrt(chi / 3) / Math.sqrt(3)
}

// Requests per simulated process (1% noise each). 20 by default; SIM_REQUESTS=3 models the built-in llm's
// 3 requests per GPU process since 1.1 (docs/error-rates.md, "Slow modes").
const REQUESTS = Number(process.env['SIM_REQUESTS'] ?? 20)
const BASE = 3

/** One process's requests: a process level (CV `procCv`) times per-request noise (CV `reqCv`). */
function requests(
  rand: () => number,
  level: number,
  opts: { procCv?: number; reqCv?: number; slowShare?: number; slowFactor?: number; n?: number } = {}
): number[] {
  const p = level * (1 + (opts.procCv ?? 0.005) * normal(rand))
  return Array.from({ length: opts.n ?? REQUESTS }, () => {
    const slow = opts.slowShare !== undefined && rand() < opts.slowShare ? (opts.slowFactor ?? 1) : 1
    return p * slow * (1 + (opts.reqCv ?? 0.01) * normal(rand))
  })
}

/** S2: 15% of the native processes take a slow path (+10%); the candidate's request mean is +`pct`% above. */
export function nativeSlowPath(pct: number): Generator {
  const nativeMean = 1 + 0.15 * 0.1
  return {
    name: `S2: 15% of native processes +10%, candidate mean +${pct}%`,
    truthPct: pct,
    check: rand => () => ({
      native: requests(rand, BASE * (rand() < 0.15 ? 1.1 : 1)),
      container: requests(rand, BASE * nativeMean * (1 + pct / 100))
    })
  }
}

/**
 * T2 (issue 52): a share of the container's processes take a slow path (×`factor` on every request of the
 * process), the rest as native: a mode that a check of n processes misses with probability (1 − share)^n.
 */
export function candidateSlowPath(share: number, factor: number): Generator {
  return {
    name: `T2: ${Math.round(share * 100)}% of container processes ×${factor}`,
    truthPct: share * (factor - 1) * 100,
    check: rand => () => ({
      native: requests(rand, BASE),
      container: requests(rand, BASE * (rand() < share ? factor : 1))
    })
  }
}

/** S5: a share of the container's requests is slower by `factor` (a tail the per-process median hides). */
export function requestTail(share: number, factor: number, n = REQUESTS): Generator {
  return {
    name: `S5: ${share * 100}% of container requests ×${factor}${n === REQUESTS ? '' : `, ${n} requests per process`}`,
    truthPct: share * (factor - 1) * 100,
    check: rand => () => ({
      native: requests(rand, BASE, { n }),
      container: requests(rand, BASE, { slowShare: share, slowFactor: factor, n })
    })
  }
}

/**
 * S5 through gate-metrics: the same slowdown, with the per-process q-th percentile named in gate-metrics. Its
 * truth is a percentile of a two-level mixture read from the requests, which no one number states: no coverage.
 * Requests per process: `n`, by default what a check that gates the percentile runs (100, or valuesNeeded(q)).
 */
export function requestTailGated(share: number, factor: number, q: number, n = tailRequests(q)): Generator {
  const g = requestTail(share, factor, n)
  return { ...g, name: `${g.name}, p${q} gated`, tail: { q } }
}

/** Requests per process of a row that gates the q-th percentile: 100, or what the percentile needs (p99: 300). */
export const tailRequests = (q: number): number => Math.max(100, valuesNeeded(q))

/**
 * Tail metrics at the threshold: every container request ×(1 + pct), so every percentile of a process is too
 * (a scale change) and the gated p<q>'s true overhead is `pct`. Requests are log-normal (CV 3%, a right-skewed
 * latency), tailRequests(q) per process, around a process level (CV 0.5%).
 */
export function tailScale(pct: number, q: number): Generator {
  const reqs = (rand: () => number, level: number): number[] => {
    const p = level * (1 + 0.005 * normal(rand))
    return Array.from({ length: tailRequests(q) }, () => p * Math.exp(0.03 * normal(rand)))
  }
  return {
    name: `tail: every container request +${pct}%, log-normal CV 3%, p${q} gated`,
    truthPct: pct,
    tail: { q, truthPct: pct },
    check: rand => () => ({ native: reqs(rand, BASE), container: reqs(rand, BASE * (1 + pct / 100)) })
  }
}

/** The q-th percentile by linear interpolation, as workloads/_stats.py computes the llm's. */
export function percentile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b)
  const pos = ((s.length - 1) * q) / 100
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, s.length - 1)
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo)
}

/** S4/S8: every process at +`pct`%, per-process noise normal or Student-t (3 df), CV 0.5%. */
export function uniform(pct: number, tail: 'normal' | 't3', metrics = 1): Generator {
  const draw = tail === 'normal' ? normal : t3
  return {
    name: `S4/S8: ${tail === 'normal' ? 'normal' : 'Student-t 3 df'} per process, CV 0.5%, +${pct}%${metrics > 1 ? `, ${metrics} gated metrics` : ''}`,
    truthPct: pct,
    metrics,
    check: rand => () => ({
      native: requests(rand, BASE * (1 + 0.005 * draw(rand)), { procCv: 0 }),
      container: requests(rand, BASE * (1 + pct / 100) * (1 + 0.005 * draw(rand)), { procCv: 0 })
    })
  }
}

/**
 * Several gated metrics: metric 0 at +`pct`%, the rest at `others`% (a false equivalence of the check needs
 * metric 0 called equivalent; a false regression, any metric called a regression).
 */
export function multiMetric(pct: number, others: number, metrics: number): Generator {
  return {
    name: `S4/S8: ${metrics} gated metrics, one at +${pct}%, the rest at +${others}%`,
    truthPct: pct,
    metrics,
    check: rand => (_i, m) => ({
      native: requests(rand, BASE),
      container: requests(rand, BASE * (1 + (m === 0 ? pct : others) / 100))
    })
  }
}

/**
 * Issue 38, duet: the arms run at once on two GPUs and swap every block (crossover); the GPUs differ by
 * `offsetPct`% and every process also shares its block's host state (two levels 5% apart).
 */
export function duet(pct: number, offsetPct: number): Generator {
  return {
    name: `duet: GPUs ${offsetPct}% apart, crossover, +${pct}%`,
    truthPct: pct,
    check: rand => i => {
      const state = rand() < 0.3 ? 1.05 : 1
      const swap = i % 2
      const gpuOf = (arm: 0 | 1): number => (arm + swap) % 2
      const speed = (g: number): number => (g === 1 ? 1 + offsetPct / 100 : 1)
      return {
        native: requests(rand, BASE * state * speed(gpuOf(0)), { procCv: 0.01 }),
        container: requests(rand, BASE * state * speed(gpuOf(1)) * (1 + pct / 100), { procCv: 0.01 }),
        gpu: { native: gpuOf(0), container: gpuOf(1) }
      }
    }
  }
}

/** An independent stream per check (alea, seeded by the check's number as text). */
export const streamOf = (seed: number): (() => number) => seedrandom.alea(`issue-39-${seed}`)

/** One process's sample rows. */
function rows(
  env: string,
  run: number,
  metric: string,
  values: readonly number[],
  gpu: number | undefined
): SampleRecord[] {
  return values.map(
    (value, k) =>
      ({
        check_id: 'sim',
        workload: 'llm',
        environment: env,
        run,
        iteration: k + 1,
        metric,
        value,
        unit: 'ms',
        better: 'lower',
        scope: 'steady',
        time: '',
        params: {},
        ...(gpu === undefined ? {} : { gpu }),
        fingerprint: {}
      }) as unknown as SampleRecord
  )
}

const metricName = (m: number): string => (m === 0 ? 'tpot_ms' : `tpot${m}_ms`)

/** Block i's rows of every metric. */
export function blockRows(g: Generator, draw: (i: number, m: number) => Block, i: number): SampleRecord[] {
  const out: SampleRecord[] = []
  for (let m = 0; m < (g.metrics ?? 1); m++) {
    const b = draw(i, m)
    out.push(
      ...rows('native', i + 1, metricName(m), b.native, b.gpu?.native),
      ...rows('container', i + 1, metricName(m), b.container, b.gpu?.container)
    )
    // A named tail metric: one value per process (iteration 0), scope steady as a check records it when
    // gate-metrics names it (execute/metrics.ts).
    if (g.tail !== undefined && m === 0) {
      const name = tailMetric(g.tail.q)
      const one = (env: string, v: number[], gpu: number | undefined): SampleRecord => ({
        ...rows(env, i + 1, name, [percentile(v, g.tail!.q)], gpu)[0]!,
        iteration: 0
      })
      out.push(one('native', b.native, b.gpu?.native), one('container', b.container, b.gpu?.container))
    }
  }
  return out
}

const tailMetric = (q: number): string => `tpot_p${q}_ms`

/** The rows a check analyses: on several GPUs, pooled as check.ts pools them (multi-gpu.ts). */
export const asCheck = (samples: SampleRecord[]): SampleRecord[] =>
  samples.some(s => s.gpu !== undefined) ? pooledRows(samples) : samples

export const analyzeOpts = (seed: number) => ({
  baselineEnv: 'native',
  candidateEnvs: ['container'],
  maxOverheadPct: MAX,
  alpha: ALPHA,
  bootstrap: { resamples: 400, seed: String(seed) }
})

/** The sample rows of a fixed-count check of `n` blocks, as the check records them (before pooling). */
export function checkSamples(g: Generator, n: number, seed: number): SampleRecord[] {
  const draw = g.check(streamOf(seed))
  const samples: SampleRecord[] = []
  for (let i = 0; i < n; i++) samples.push(...blockRows(g, draw, i))
  return samples
}

/** One fixed-count check of `n` blocks, analysed as `analyze` does. */
export function fixedCheck(g: Generator, n: number, seed: number): Analysis {
  return analyzeRecords(asCheck(checkSamples(g, n, seed)), analyzeOpts(seed))
}

/** One sequential check (3 to `maxRuns` blocks, a look after each; the default check's by default), analysed as `run` does. */
export function sequentialCheck(
  g: Generator,
  seed: number,
  maxRuns = DEFAULT_MAX_RUNS,
  minRuns = 3
): { analysis: Analysis; runs: number } {
  const draw = g.check(streamOf(seed))
  const ctl = new SequentialController({
    minRuns,
    maxRuns,
    timeBudgetS: null,
    maxOverheadPct: MAX,
    alpha: ALPHA,
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    gatedWorkloads: 1
  })
  const samples: SampleRecord[] = []
  let run = 0
  for (let i = 0; i < maxRuns; i++) {
    samples.push(...blockRows(g, draw, i))
    run = i + 1
    if (ctl.afterBlock({ workload: 'llm', run, samples, elapsedMs: 0, blockMs: 0 }) !== null) break
  }
  return { analysis: ctl.applyTo(analyzeRecords(asCheck(samples), analyzeOpts(seed))), runs: run }
}

/** The printed interval of a comparison (after a sequential stop, the one that holds after the stop). */
export const printedCi = (c: Comparison): { low: number; high: number } => c.ci95

export interface Rates {
  regression: number
  equivalent: number
  covered: number
  meanRuns: number
  sims: number
}

/**
 * The native arm's stored history a check of `g` would find (issue 52, T1): `checks` earlier accepted checks of
 * `n` processes each, drawn from the same generator on a stream of their own; each process its request mean, as
 * the store keeps it.
 */
export function nativeHistory(g: Generator, checks: number, n: number, seed: number): NativeHistory {
  const rand = seedrandom.alea(`issue-52-history-${seed}`)
  const stored: number[][] = []
  for (let k = 0; k < checks; k++) {
    const draw = g.check(rand)
    stored.push(
      Array.from({ length: n }, (_, i) => {
        const v = draw(i, 0).native
        return v.reduce((a, b) => a + b, 0) / v.length
      })
    )
  }
  return new Map([[historyKey('llm', '', metricName(0)), stored]])
}

/** Rates over `sims` checks: `sequential` or a fixed count of blocks; `history`: stored native checks to guard with. */
export function rates(
  g: Generator,
  how: 'sequential' | number | { minRuns: number; maxRuns: number },
  sims: number,
  seed0 = 1,
  history?: { checks: number; n: number }
): Rates {
  let regression = 0
  let equivalent = 0
  let covered = 0
  let runs = 0
  for (let s = 0; s < sims; s++) {
    const seed = seed0 + s
    const { analysis: measured, runs: n } =
      how === 'sequential'
        ? sequentialCheck(g, seed)
        : typeof how === 'number'
          ? { analysis: fixedCheck(g, how, seed), runs: how }
          : sequentialCheck(g, seed, how.maxRuns, how.minRuns)
    const analysis =
      history === undefined
        ? measured
        : guardNativeModes(measured, nativeHistory(g, history.checks, history.n, seed), {
            maxOverheadPct: MAX,
            alpha: ALPHA
          })
    runs += n
    const gated = analysis.comparisons.filter(c => c.scope === 'steady')
    // A tail row is judged on its gated percentile; the request mean is gated beside it, as in a check.
    const judged = g.tail === undefined ? metricName(0) : tailMetric(g.tail.q)
    const truth = g.tail === undefined ? g.truthPct : g.tail.truthPct
    const first = gated.find(c => c.metric === judged)
    if (gated.some(c => c.verdict === 'regression')) regression++
    if (first?.verdict === 'equivalent') equivalent++
    const ci = first ? printedCi(first) : null
    if (truth !== undefined && ci && ci.low <= truth && ci.high >= truth) covered++
  }
  return {
    regression: regression / sims,
    equivalent: equivalent / sims,
    covered: g.tail !== undefined && g.tail.truthPct === undefined ? NaN : covered / sims,
    meanRuns: runs / sims,
    sims
  }
}
