import fc from 'fast-check'
import type { ArmSeries } from '../../src/results/run-values/index.js'
import { aggregateRows, isStartupMetric } from '../../src/results/run-values/index.js'
import {
  analyzeRecords,
  analyzeRows,
  analyzeSeries,
  decide,
  fingerprintDifferences,
  measureComparison,
  metricDirection,
  overallVerdict
} from '../../src/analyze/compare/index.js'
import { holm } from '../../src/analyze/stats/index.js'
import type { Comparison, SampleRecord } from '../../src/types/index.js'
import { noise, nonFiniteNumbers, series } from './helpers.js'

const opts = { baselineEnv: 'native', candidateEnv: 'container', maxOverheadPct: 2, alpha: 0.05 }

function compareOne(base: ArmSeries, cand: ArmSeries, max = 2): Comparison {
  const c = measureComparison(base, cand, { ...opts, maxOverheadPct: max })
  return decide([c], { alpha: 0.05, maxOverheadPct: max })[0]!
}

describe('metric direction is declared, never guessed from the name', () => {
  const dir = (metric: string, unit: string, better?: 'lower' | 'higher') =>
    metricDirection({ workload: 'w', metric, unit, ...(better ? { better } : {}) })
  test.each([
    ['kernel_ms', 'ms', 'lower'],
    ['whatever', 's', 'lower'],
    ['x', 'us', 'lower'],
    ['y', 'ns', 'lower']
  ])('%s [%s]: a time unit means lower', (metric, unit, direction) => {
    expect(dir(metric, unit)).toEqual({ direction, source: 'unit' })
  })
  // Issue 17 case 2: every one of these was taken as lower-is-better from its name.
  test.each([
    'gflop_s',
    'tok_s',
    'tokens_per_second',
    'items_per_second',
    'gbps',
    'fps',
    'qps',
    'it_s',
    'iters_s',
    'req_s',
    'mfu',
    'accuracy',
    'hit_rate',
    'gpu_util_pct',
    'tflops',
    'mystery'
  ])('%s without a declared direction is refused, naming how to declare it', metric => {
    expect(() => dir(metric, '')).toThrow(/'better' column \(lower\|higher\) in the CSV/)
    expect(() => dir(metric, 'items/s')).toThrow(metric)
  })
  test('a declared direction wins over the unit', () => {
    expect(dir('gflop_s', 'GFLOP/s', 'higher')).toEqual({ direction: 'higher', source: 'declared' })
    expect(dir('odd_ms', 'ms', 'higher')).toEqual({ direction: 'higher', source: 'declared' })
  })
  test('arms that declare opposite directions are refused', () => {
    expect(() =>
      metricDirection({ workload: 'w', metric: 'm', unit: '', better: 'lower' }, { better: 'higher' })
    ).toThrow(/one direction for both arms/)
  })
})

test('start-up metrics are recognised by name', () => {
  for (const m of [
    'launch_s',
    'interpreter_s',
    'imports_s',
    'device_init_s',
    'first_kernel_s',
    'total_startup_s'
  ])
    expect(isStartupMetric(m)).toBe(true)
  expect(isStartupMetric('kernel_ms')).toBe(false)
})

describe('aggregation: one value per process run', () => {
  test('iterations are reduced to the per-run mean (the request mean) before any test', () => {
    const rows = [
      ...[10, 11, 100].map((value, iteration) => ({
        workload: 'w',
        environment: 'native',
        run: 1,
        iteration,
        metric: 'm_ms',
        value
      })),
      ...[12, 13, 14].map((value, iteration) => ({
        workload: 'w',
        environment: 'native',
        run: 2,
        iteration,
        metric: 'm_ms',
        value
      }))
    ]
    const [s] = aggregateRows(rows).series()
    expect(s!.values).toEqual([121 / 3, 13])
    expect(s!.iterations).toEqual([3, 3])
    expect(s!.runs).toEqual(['1', '2'])
  })
  test('SampleRecords are accepted as they are; warm-ups are skipped', () => {
    const fp = {
      host: 'h',
      device: 'gpu' as const,
      gpu_name: 'H200',
      gpu_uuid: 'GPU-1',
      driver: '580.1',
      cuda: '13.0',
      image: null,
      image_digest: null,
      runtime: null,
      runtime_version: null,
      gpu_access: null,
      mig_mode: null,
      persistence_mode: null,
      clocks: null
    }
    const rec = (environment: string, run: number, value: number, driver = '580.1'): SampleRecord => ({
      check_id: 'c',
      workload: 'matmul',
      environment,
      run,
      iteration: 0,
      metric: 'kernel_ms',
      value,
      unit: 'ms',
      scope: 'steady',
      time: '2026-01-01T00:00:00Z',
      params: { n: 8192 },
      fingerprint: { ...fp, driver }
    })
    const rows = [1, 2, 3, 4].flatMap(r => [
      rec('native', r, 41 + r / 1000),
      rec('container', r, 41 + r / 1000, '570.1')
    ])
    const analysis = analyzeRows(rows, opts)
    expect(analysis.comparisons).toHaveLength(1)
    expect(analysis.comparisons[0]!.params).toBe('{"n":8192}')
    expect(analysis.comparisons[0]!.verdict).toBe('incomparable')
    expect(analysis.comparisons[0]!.incomparable_fields).toEqual(['driver: 580.1 vs 570.1'])
    expect(analysis.verdict).toBe('incomparable')
  })
})

describe('overhead direction and interval', () => {
  const base = noise(1, 10, 100, 0.5)
  test('time: candidate slower → positive overhead = cand/base − 1', () => {
    const cand = base.map(v => v * 1.1)
    const c = compareOne(series('native', 'kernel_ms', base), series('container', 'kernel_ms', cand))
    expect(c.direction).toBe('lower')
    expect(c.overhead_pct).toBeCloseTo(10, 6)
    expect(c.ci95.low).toBeLessThanOrEqual(c.overhead_pct)
    expect(c.ci95.high).toBeGreaterThanOrEqual(c.overhead_pct)
    expect(c.verdict).toBe('regression')
    expect(c.reason).toMatch(/^\+10\.00% \[\+\d+\.\d\d, \+\d+\.\d\d\] exceeds \+2% .*regression\.$/)
  })
  test('throughput: candidate lower → positive overhead = base/cand − 1', () => {
    const cand = base.map(v => v / 1.1)
    const c = compareOne(
      series('native', 'tflops', base, { unit: 'TFLOP/s' }),
      series('container', 'tflops', cand, { unit: 'TFLOP/s' })
    )
    expect(c.direction).toBe('higher')
    expect(c.overhead_pct).toBeCloseTo(10, 6)
    expect(c.ci95.low).toBeLessThanOrEqual(c.overhead_pct)
    expect(c.ci95.high).toBeGreaterThanOrEqual(c.overhead_pct)
    expect(c.verdict).toBe('regression')
  })
  test('ci95 is the wider of the bootstrap and t-delta intervals, and says which', () => {
    // Runs without a common label form no blocks: the two-sample intervals stand.
    const cand = series('container', 'k_ms', noise(3, 5, 50.5, 1))
    const c = compareOne(series('native', 'k_ms', noise(2, 5, 50, 1)), {
      ...cand,
      runs: cand.runs.map(r => `c${r}`)
    })
    expect(c.paired).toBeUndefined()
    const w = (i: { low: number; high: number }): number => i.high - i.low
    expect(c.ci95_bootstrap).toBeDefined()
    expect(c.ci95_t_delta).toBeDefined()
    expect(w(c.ci95)).toBe(Math.max(w(c.ci95_bootstrap!), w(c.ci95_t_delta!)))
    expect(c.ci95).toEqual(c.ci_method === 't-delta' ? c.ci95_t_delta : c.ci95_bootstrap)
    // At n = 5 the percentile bootstrap is too narrow: the t interval wins.
    expect(c.ci_method).toBe('t-delta')
  })
})

describe('verdicts', () => {
  test('equivalent: tiny difference, tight runs', () => {
    const base = noise(4, 10, 41, 0.02)
    const c = compareOne(
      series('native', 'kernel_ms', base),
      series(
        'container',
        'kernel_ms',
        base.map(v => v + 0.01)
      )
    )
    expect(c.verdict).toBe('equivalent')
    expect(c.tost.equivalent).toBe(true)
    expect(c.runs_needed).toBeNull()
    expect(c.reason).toMatch(
      /^\+0\.0\d% \[[−+]?\d\.\d\d, \+\d\.\d\d\] is within ±2%: equivalent \(TOST p=.+\)\.$/
    )
  })
  test('inconclusive: noisy arms give MDE and the runs needed', () => {
    const c = compareOne(
      series('native', 'tpot_ms', noise(5, 5, 20, 3)),
      series('container', 'tpot_ms', noise(6, 5, 20.5, 3))
    )
    expect(c.verdict).toBe('inconclusive')
    expect(c.mde_pct).toBeGreaterThan(2)
    expect(c.runs_needed).toBeGreaterThan(5)
    expect(c.reason).toContain(`${c.runs_needed} runs per arm would detect 2%`)
  })
  test('significant but below the threshold is not a regression', () => {
    const base = noise(7, 20, 100, 0.3)
    const c = compareOne(
      series('native', 'k_ms', base),
      series(
        'container',
        'k_ms',
        base.map(v => v * 1.01)
      )
    )
    expect(c.p_adjusted).toBeLessThan(0.05)
    expect(c.verdict).not.toBe('regression')
  })
  test('identical constant arms (D3): inconclusive, never equivalent from zero spread; t undefined, p = 1, all JSON numbers finite', () => {
    const c = compareOne(series('native', 'k_ms', [5, 5, 5, 5]), series('container', 'k_ms', [5, 5, 5, 5]))
    expect(c.verdict).toBe('inconclusive')
    expect(c.tost.equivalent).toBe(false)
    expect(c.welch).toEqual({ t: 0, df: 0, p: 1, defined: false })
    expect(c.reason).toMatch(/both arms are constant .*timer resolution/)
    expect(nonFiniteNumbers(JSON.parse(JSON.stringify(c)))).toEqual([])
    expect(nonFiniteNumbers(c)).toEqual([])
  })
  test('constant but different arms: the rank test gives p, the zero-width CI warns and cannot make a regression', () => {
    const c = compareOne(
      series('native', 'k_ms', Array<number>(6).fill(10)),
      series('container', 'k_ms', Array<number>(6).fill(11))
    )
    expect(c.p_source).toBe('mann-whitney')
    expect(c.p_adjusted).toBe(c.mann_whitney.p)
    expect(c.mann_whitney.p).toBeCloseTo(2 / 924, 12) // exact: 1 of C(12, 6) arrangements each way
    expect(c.ci95.high - c.ci95.low).toBe(0)
    expect(c.ci95.low).toBeCloseTo(10, 9)
    expect(c.warnings?.[0]).toMatch(/timer resolution/)
    expect(c.verdict).toBe('inconclusive')
    expect(c.reason).toMatch(/not a regression on its own/)
    expect(nonFiniteNumbers(c)).toEqual([])
  })
  test('n < 2: inconclusive with a reason, no NaN', () => {
    const c = compareOne(series('native', 'k_ms', [10]), series('container', 'k_ms', [11, 12]))
    expect(c.verdict).toBe('inconclusive')
    expect(c.reason).toMatch(/at least 2 runs per arm/)
    expect(c.undefined_stats).toEqual(expect.arrayContaining(['welch', 'tost', 'mde_pct']))
    expect(nonFiniteNumbers(c)).toEqual([])
  })
  test('incomparable fingerprints: GPU/driver for arms; also digest and access mode for a stored baseline', () => {
    const a = { gpu_name: 'H200', gpu_uuid: 'GPU-1', driver: '580.1', image_digest: null, gpu_access: null }
    expect(fingerprintDifferences(a, { ...a, driver: '570.2' }, 'arms')).toEqual(['driver: 580.1 vs 570.2'])
    expect(fingerprintDifferences(a, { ...a, gpu_uuid: 'GPU-2' }, 'arms')).toEqual([
      'gpu_uuid: GPU-1 vs GPU-2'
    ])
    // Native vs container always differ in image digest; that only matters against a stored baseline.
    const withImage = { ...a, image_digest: 'sha256:aa', gpu_access: 'gpus' }
    expect(fingerprintDifferences(a, withImage, 'arms')).toEqual([])
    expect(
      fingerprintDifferences(withImage, { ...withImage, image_digest: 'sha256:bb' }, 'baseline')
    ).toEqual(['image_digest: sha256:aa vs sha256:bb'])
    expect(fingerprintDifferences(withImage, { ...withImage, gpu_access: 'cdi' }, 'baseline')).toEqual([
      'gpu_access: gpus vs cdi'
    ])
    // Unknown is not different.
    expect(fingerprintDifferences(a, { ...a, driver: null }, 'arms')).toEqual([])
  })
})

describe('Holm family and start-up scope', () => {
  const steady = (metric: string, shift: number, seed: number): ArmSeries[] => [
    series('native', metric, noise(seed, 8, 100, 1)),
    series('container', metric, noise(seed + 1, 8, 100 + shift, 1))
  ]
  const all = [
    ...steady('a_ms', 0.5, 10),
    ...steady('b_ms', 1.0, 20),
    ...steady('c_ms', 3, 30),
    series('native', 'launch_s', noise(40, 8, 1.0, 0.05), { unit: 's' }),
    series('container', 'launch_s', noise(41, 8, 1.5, 0.05), { unit: 's' }),
    series('native', 'sm_ms', noise(50, 8, 5, 0.01), { scope: 'startup' }),
    series('container', 'sm_ms', noise(51, 8, 6, 0.01), { scope: 'startup' })
  ]
  const analysis = analyzeSeries(all, opts)
  const by = (m: string): Comparison => analysis.comparisons.find(c => c.metric === m)!

  test('Holm applies across the steady comparisons only', () => {
    const fam = ['a_ms', 'b_ms', 'c_ms'].map(by)
    const adjusted = holm(fam.map(c => c.p_gate!))
    fam.forEach((c, i) => expect(c.p_adjusted).toBeCloseTo(adjusted[i]!, 12))
    for (const m of ['launch_s', 'sm_ms']) {
      expect(by(m).scope).toBe('startup')
      expect(by(m).p_adjusted).toBe(by(m).p_gate)
    }
  })
  test('start-up regressions are reported but never gate', () => {
    expect(by('launch_s').verdict).toBe('regression')
    expect(by('launch_s').reason).toMatch(/^Start-up phase, reported and never gating/)
    expect(by('sm_ms').verdict).toBe('regression')
    // The overall regression comes from the steady c_ms; without it, start-up regressions alone do not gate.
    expect(by('c_ms').verdict).toBe('regression')
    expect(analysis.verdict).toBe('regression')
    const withoutC = analyzeSeries(
      all.filter(s => s.metric !== 'c_ms'),
      opts
    )
    expect(withoutC.verdict).not.toBe('regression')
  })
  test('overall verdict rules', () => {
    const mk = (verdict: Comparison['verdict'], scope: Comparison['scope'] = 'steady'): Comparison =>
      ({ verdict, scope }) as Comparison
    expect(overallVerdict([mk('equivalent'), mk('regression')])).toBe('regression')
    expect(overallVerdict([mk('equivalent'), mk('incomparable')])).toBe('incomparable')
    expect(overallVerdict([mk('equivalent'), mk('regression', 'startup')])).toBe('equivalent')
    expect(overallVerdict([mk('equivalent'), mk('inconclusive')])).toBe('inconclusive')
    expect(overallVerdict([])).toBe('inconclusive')
  })
  test('no NaN or Infinity anywhere in the analysis', () => {
    expect(nonFiniteNumbers(analysis)).toEqual([])
  })
})

describe('properties', () => {
  const arm = fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: 2, maxLength: 12 })
  const fast = { resamples: 200 }
  const measure = (b: number[], c: number[], metric = 'k_ms', unit = 'ms'): Comparison =>
    measureComparison(series('native', metric, b, { unit }), series('container', metric, c, { unit }), {
      ...opts,
      bootstrap: fast
    })

  test('swapping arms negates t and flips the sign of the overhead', () => {
    fc.assert(
      fc.property(arm, arm, fc.boolean(), (a, b, higher) => {
        const [metric, unit] = higher ? ['tflops', 'TFLOP/s'] : ['k_ms', 'ms']
        const ab = measure(a, b, metric, unit)
        const ba = measure(b, a, metric, unit)
        if (ab.welch.defined) expect(ba.welch.t).toBeCloseTo(-ab.welch.t, 9)
        if (Math.abs(ab.overhead_pct) > 1e-9)
          expect(Math.sign(ba.overhead_pct)).toBe(-Math.sign(ab.overhead_pct))
        expect(ba.mann_whitney.u).toBeCloseTo(ab.n_baseline * ab.n_candidate - ab.mann_whitney.u, 9)
      }),
      { numRuns: 150 }
    )
  })

  test('scaling both arms by a positive constant leaves p values and overhead unchanged', () => {
    // Integer data: scaling cannot round two distinct values into a tie and change the ranks.
    const intArm = fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 2, maxLength: 12 })
    fc.assert(
      fc.property(intArm, intArm, fc.double({ min: 1e-3, max: 1e3, noNaN: true }), (a, b, k) => {
        const x = measure(a, b)
        const y = measure(
          a.map(v => v * k),
          b.map(v => v * k)
        )
        // Rank tests are exact under scaling; t-based p values to 1e-6: with equal integer means the scaled
        // means can differ by an ulp, a t of ~1e-8 that moves p = 1 to 0.99999996.
        expect(y.welch.p).toBeCloseTo(x.welch.p, 6)
        expect(y.mann_whitney.p).toBeCloseTo(x.mann_whitney.p, 12)
        expect(y.tost.p).toBeCloseTo(x.tost.p, 6)
        expect(y.overhead_pct).toBeCloseTo(x.overhead_pct, 6)
      }),
      { numRuns: 150 }
    )
  })

  test('candidate identical to baseline is never a regression, and never NaN', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(0.5, 2, 10),
        (a, max) => {
          const c = decide([measure(a, [...a])], { alpha: 0.05, maxOverheadPct: max })[0]!
          expect(c.verdict).not.toBe('regression')
          expect(c.overhead_pct).toBe(0)
          expect(nonFiniteNumbers(c)).toEqual([])
        }
      ),
      { numRuns: 200 }
    )
  })
})

describe('analyzeRecords (the pipeline entry)', () => {
  const fp = { gpu_name: 'H200', gpu_uuid: 'GPU-1', driver: '580.1' }
  const rows = (
    environment: string,
    metric: string,
    mean: number,
    scope: string,
    seed: number,
    unit = 'ms'
  ) =>
    // Ten runs: an equivalence claim needs them (mode-exclusion.ts).
    noise(seed, 10, mean, mean * 0.001).map((value, i) => ({
      workload: 'io',
      environment,
      run: i + 1,
      metric,
      value,
      unit,
      better: unit === 'ms' ? 'lower' : 'higher',
      scope,
      fingerprint: fp
    }))
  const all = [
    ...rows('native', 'write_mb_s', 2000, 'steady', 1, 'MB/s'),
    ...rows('container', 'write_mb_s', 2000, 'steady', 2, 'MB/s'),
    ...rows('container#2', 'write_mb_s', 2000, 'steady', 3, 'MB/s'),
    ...rows('native', 'scratch_write_mb_s', 2000, 'info', 4, 'MB/s'),
    ...rows('container', 'scratch_write_mb_s', 1000, 'info', 5, 'MB/s'),
    ...rows('container#2', 'scratch_write_mb_s', 1000, 'info', 6, 'MB/s'),
    { ...rows('native', 'write_mb_s', 1, 'steady', 7)[0]!, value: Number.NaN }
  ]
  const analysis = analyzeRecords(all, {
    baselineEnv: 'native',
    candidateEnvs: ['container', 'container#2'],
    maxOverheadPct: 2,
    alpha: 0.05,
    seed: 42
  })
  test('every candidate arm is compared with the baseline arm, gating ones first', () => {
    expect(analysis.comparisons.map(c => `${c.candidate_env}:${c.metric}:${c.scope}`)).toEqual([
      'container:write_mb_s:steady',
      'container#2:write_mb_s:steady',
      'container:scratch_write_mb_s:info',
      'container#2:scratch_write_mb_s:info'
    ])
  })
  test('info metrics (writable layer) are reported, never gate, and stay out of the Holm family', () => {
    const info = analysis.comparisons.filter(c => c.scope === 'info')
    for (const c of info) {
      expect(c.verdict).toBe('regression')
      expect(c.p_adjusted).toBe(c.p_gate)
      expect(c.reason).toMatch(/^Reported for information/)
    }
    expect(analysis.verdict).toBe('equivalent')
    const steady = analysis.comparisons.filter(c => c.scope === 'steady')
    const adjusted = holm(steady.map(c => c.p_gate!))
    steady.forEach((c, i) => expect(c.p_adjusted).toBeCloseTo(adjusted[i]!, 12))
  })
  test('the seed makes the intervals reproducible; non-finite rows are skipped and noted', () => {
    const again = analyzeRecords(all, {
      baselineEnv: 'native',
      candidateEnvs: ['container', 'container#2'],
      maxOverheadPct: 2,
      alpha: 0.05,
      seed: 42
    })
    expect(again).toEqual(analysis)
    expect(analysis.notes).toContain('1 row(s) with a negative or non-finite value were skipped.')
  })
})
