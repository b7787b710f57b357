/**
 * Tail metrics (issue 39): per-process p99s are shown, and gate only where gate-metrics names them. Generated
 * data: the container's p99 TPOT is +10% while its request mean is unchanged.
 */
import seedrandom from 'seedrandom'
import { analyzeRecords } from '../../src/analyze/compare/index.js'
import { SequentialController } from '../../src/analyze/sequential-check.js'
import { logRatioTest } from '../../src/analyze/stats/index.js'
import { gateMetricSet, isTailMetric, parseGateMetrics, valuesNeeded } from '../../src/config/index.js'
import { sampleScope } from '../../src/execute/metrics.js'
import type { SampleRecord } from '../../src/types/index.js'
import { sampleRecord } from '../helpers/sample-record.js'
import { estimatorFootnote } from '../../src/report/analysis-text.js'

const REQUESTS = 300
/** Every 50th request is slow: 2% of requests, so the p99 lies among them. */
const TAIL_EVERY = 50
const BASE = 10
const SLOW = 1.5

function normal(rand: () => number): number {
  const u = Math.max(rand(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand())
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const h = (s.length - 1) * 0.99
  const lo = Math.floor(h)
  return s[lo]! + (h - lo) * (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!)
}

/**
 * One process's TPOTs: the bulk ±2% per request, every 50th request ×1.5 (×1.65 in the container, its p99
 * +10%), and the container's bulk lowered so that its request mean equals the native one.
 */
function process(rand: () => number, level: number, container: boolean, requests = REQUESTS): number[] {
  const tail = container ? SLOW * 1.1 : SLOW
  const share = 1 / TAIL_EVERY
  // The extra tail cost the container's bulk gives back: mean unchanged.
  const bulk = container ? 1 - (share * (tail - SLOW)) / (1 - share) : 1
  return Array.from({ length: requests }, (_, k) =>
    (k + 1) % TAIL_EVERY === 0
      ? level * tail * (1 + 0.01 * normal(rand))
      : level * bulk * (1 + 0.02 * normal(rand))
  )
}

function record(env: string, run: number, iteration: number, metric: string, value: number, scope: string) {
  return sampleRecord({
    check_id: 'tail',
    workload: 'llm',
    environment: env,
    run,
    iteration,
    metric,
    value,
    scope: scope as SampleRecord['scope']
  })
}

/** A check of `blocks` blocks: per-request tpot_ms and one tpot_p99_ms per process, scoped as the runner would. */
function check(blocks: number, seed: number, gateMetrics: string, requests = REQUESTS): SampleRecord[] {
  const rand = seedrandom.alea(`tail-${seed}`)
  const parsed = parseGateMetrics(gateMetrics)
  if (!parsed.ok) throw new Error(parsed.entry)
  const gate = gateMetricSet(parsed.list)
  const out: SampleRecord[] = []
  for (let r = 1; r <= blocks; r++) {
    // A host state both processes of the block share.
    const level = BASE * (1 + 0.01 * normal(rand))
    for (const env of ['native', 'container']) {
      const tpots = process(rand, level, env === 'container', requests)
      tpots.forEach((v, k) => out.push(record(env, r, k + 1, 'tpot_ms', v, 'steady')))
      const scope = sampleScope({ metric: 'tpot_p99_ms' }, false, 'llm', gate)
      out.push(record(env, r, 0, 'tpot_p99_ms', p99(tpots), scope))
    }
  }
  return out
}

const opts = {
  baselineEnv: 'native',
  candidateEnvs: ['container'],
  maxOverheadPct: 2,
  alpha: 0.05,
  bootstrap: { resamples: 400, seed: '1' }
}
const find = (a: ReturnType<typeof analyzeRecords>, metric: string) =>
  a.comparisons.find(c => c.metric === metric)!

describe('tail metrics: p99 TPOT +10%, request mean unchanged', () => {
  it('named in gate-metrics: the p99 gates and is flagged a regression; the mean stays equivalent', () => {
    // Ten blocks: an equivalence needs 10 processes per arm (compare/mode-exclusion.ts).
    const a = analyzeRecords(check(10, 1, 'llm/tpot_p99_ms'), opts)
    const tail = find(a, 'tpot_p99_ms')
    expect(tail.scope).toBe('steady')
    expect(tail.overhead_pct).toBeGreaterThan(8)
    expect(tail.overhead_pct).toBeLessThan(12)
    expect(tail.verdict).toBe('regression')
    expect(find(a, 'tpot_ms').verdict).toBe('equivalent')
    expect(a.verdict).toBe('regression')
  })

  it('not named: the p99 is shown (scope tail, its overhead reported) and does not gate', () => {
    const a = analyzeRecords(check(10, 1, ''), opts)
    const tail = find(a, 'tpot_p99_ms')
    expect(tail.scope).toBe('tail')
    expect(tail.overhead_pct).toBeGreaterThan(8)
    expect(tail.reason).toMatch(/^Tail percentile, shown and not gating \(name it in gate-metrics/)
    expect(find(a, 'tpot_ms').verdict).toBe('equivalent')
    expect(a.verdict).toBe('equivalent')
    expect(estimatorFootnote(a.comparisons)).toMatch(/Tail rows \(p90\/p99, one value per process\)/)
  })

  it('over 20 checks: flagged whenever named, never gating when not', () => {
    for (let seed = 1; seed <= 20; seed++) {
      expect(analyzeRecords(check(8, seed, 'llm/tpot_p99_ms'), opts).verdict).toBe('regression')
      expect(analyzeRecords(check(8, seed, ''), opts).verdict).not.toBe('regression')
    }
  })

  it('analyze names them too: a recorded tail scope follows gate-metrics given at analysis', () => {
    const rows = check(8, 2, '')
    const gated = analyzeRecords(rows, {
      ...opts,
      gateMetrics: gateMetricSet([{ workload: 'llm', metric: 'tpot_p99_ms' }])
    })
    expect(find(gated, 'tpot_p99_ms').scope).toBe('steady')
    expect(gated.verdict).toBe('regression')
    const shown = analyzeRecords(rows, { ...opts, gateMetrics: gateMetricSet([]) })
    expect(find(shown, 'tpot_p99_ms').scope).toBe('tail')
  })
})

describe('issue 52, T3: a percentile of too few requests is not a tail, and is not tested', () => {
  it('a gated p99 of 6 requests per process (the llm default until 1.1; 3 now) is refused with the count needed and available', () => {
    // Every 50th request is slow, so a process of 6 has none: its "p99" is its largest ordinary request.
    const a = analyzeRecords(check(12, 1, 'llm/tpot_p99_ms', 6), opts)
    const tail = find(a, 'tpot_p99_ms')
    expect(tail.scope).toBe('steady')
    expect(tail.tail_support).toEqual({ per_process: 6, needed: 300 })
    expect(tail.verdict).toBe('inconclusive')
    expect(tail.reason).toMatch(/rests on 6 values, where this percentile needs 300/)
    expect(tail.runs_needed).toBeNull()
    // Never a pass: the gated tail is undecided, whatever the request mean says.
    expect(a.verdict).toBe('inconclusive')
  })
  it('the same at 299 requests; at 300 it is tested (and flagged), and a p90 needs 30', () => {
    expect(
      find(analyzeRecords(check(6, 2, 'llm/tpot_p99_ms', 299), opts), 'tpot_p99_ms').tail_support
    ).toEqual({
      per_process: 299,
      needed: 300
    })
    const at300 = find(analyzeRecords(check(8, 2, 'llm/tpot_p99_ms', 300), opts), 'tpot_p99_ms')
    expect(at300.tail_support).toBeUndefined()
    expect(at300.verdict).toBe('regression')
    expect(valuesNeeded(90)).toBe(30)
    expect(valuesNeeded(99.9)).toBe(3000)
  })
})

describe('the log-ratio paired test', () => {
  it('is the paired t on log(w/b): geometric-mean ratio, exact interval', () => {
    const w = [10.5, 11.2, 10.9, 11.4, 10.8]
    const b = [10, 10.1, 9.9, 10.3, 10.0]
    const t = logRatioTest({ w, b }, 0.98, 1.02, 0.05)
    const d = w.map((x, i) => Math.log(x / b[i]!))
    const mean = d.reduce((a, x) => a + x, 0) / d.length
    expect(t.ratio).toBeCloseTo(Math.exp(mean), 12)
    expect(t.df).toBe(4)
    expect(t.ci.low).toBeLessThan(t.ratio)
    expect(t.ci.high).toBeGreaterThan(t.ratio)
    expect(t.pAbove).toBeLessThan(0.025)
  })
  it('is undefined for constant ratios and fewer than 2 blocks', () => {
    expect(logRatioTest({ w: [2, 4], b: [1, 2] }, 0.98, 1.02, 0.05).defined).toBe(false)
    expect(logRatioTest({ w: [2], b: [1] }, 0.98, 1.02, 0.05).defined).toBe(false)
  })
})

describe('which metrics are tail metrics', () => {
  it.each([
    ['llm', 'tpot_p99_ms', true],
    ['llm', 'itl_p90_ms', true],
    ['llm', 'tpot_ms', false],
    ['vllm-bench-serve', 'p99_ttft_ms', true],
    ['vllm-bench-serve', 'p99.9_itl_ms', true],
    ['vllm-bench-serve', 'mean_ttft_ms', false],
    ['vllm-bench-serve', 'median_tpot_ms', false],
    ['sglang-bench-serving', 'p90_ttft_ms', true],
    ['trtllm-bench', 'ttft_percentiles.p99', true],
    ['trtllm-bench', 'ttft_percentiles.p50', false],
    ['aiperf', 'time_to_first_token.p90', true],
    ['aiperf', 'time_to_first_token.avg', false],
    ['mycmd', 'latency_p99', false]
  ])('%s/%s: %s', (workload, metric, tail) => {
    expect(isTailMetric(workload, metric)).toBe(tail)
  })
})

describe('sequential stopping with a named tail metric', () => {
  it('the looks test the p99 on its log-ratios and stop at a regression', () => {
    const rows = check(12, 3, 'llm/tpot_p99_ms')
    const ctl = new SequentialController({
      minRuns: 3,
      maxRuns: 12,
      timeBudgetS: null,
      maxOverheadPct: 2,
      alpha: 0.05,
      baselineEnv: 'native',
      candidateEnvs: ['container'],
      gatedWorkloads: 1
    })
    let stop: string | null = null
    let run = 0
    for (run = 1; run <= 12 && stop === null; run++) {
      const samples = rows.filter(r => r.run <= run)
      stop = ctl.afterBlock({ workload: 'llm', run, samples, elapsedMs: 0, blockMs: 0 })
    }
    expect(stop).not.toBeNull()
    const a = ctl.applyTo(
      analyzeRecords(
        rows.filter(r => r.run < run),
        opts
      )
    )
    expect(find(a, 'tpot_p99_ms').verdict).toBe('regression')
    expect(a.verdict).toBe('regression')
  })
})
