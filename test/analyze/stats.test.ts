import { readFileSync } from 'node:fs'
import {
  bootstrapRatios,
  describe as describeStats,
  holm,
  mannWhitneyU,
  minimumDetectableEffect,
  outliers,
  ratioIntervals,
  runsNeeded,
  tDeltaRatioInterval,
  tost,
  welchTTest
} from '../../src/analyze/stats/index.js'

interface RefInterval {
  low: number
  high: number
}
interface RefSet {
  name: string
  baseline: number[]
  candidate: number[]
  describe: Record<'baseline' | 'candidate', Record<string, number>>
  outliers: Record<'baseline' | 'candidate', { tukey: number[]; mad: number[] }>
  welch: { t: number | null; p: number | null; df: number | null }
  mann_whitney: {
    auto: { u: number; p: number; method: 'exact' | 'normal' }
    normal: { u: number; p: number }
    exact?: { u: number; p: number }
  }
  tost: Record<
    'lower' | 'higher',
    { low: number; high: number; p_lower: number | null; p_upper: number | null; p: number | null }
  >
  mde: number
  t_delta_ratio: RefInterval | null
  bootstrap_ratio_of_means?: RefInterval
}
interface Reference {
  alpha: number
  versions: Record<string, string>
  datasets: RefSet[]
  holm: { p: number[]; adjusted: number[] }
}

const ref = JSON.parse(
  readFileSync(new URL('../__fixtures__/stats/reference.json', import.meta.url), 'utf8')
) as Reference

/** |a − b| ≤ rel·|b| (plus a tiny absolute floor for values that are exactly 0). */
function expectRel(actual: number, expected: number, rel: number): void {
  const tol = rel * Math.abs(expected) + 1e-300
  if (!(Math.abs(actual - expected) <= tol))
    throw new Error(`expected ${actual} to be within ${rel} (relative) of ${expected}`)
}

test('the reference covers at least 6 data sets of the required kinds', () => {
  expect(ref.datasets.length).toBeGreaterThanOrEqual(6)
  const names = ref.datasets.map(d => d.name)
  for (const kind of [
    'equal_n_equal_var',
    'unequal_n_unequal_var',
    'ties',
    'tiny_n',
    'large_n',
    'identical_arms'
  ])
    expect(names).toContain(kind)
  expect(ref.versions.scipy).toBeDefined()
})

describe.each(ref.datasets.map(d => [d.name, d] as const))('SciPy agreement: %s', (_name, d) => {
  const base = d.baseline
  const cand = d.candidate

  test('descriptive statistics (numpy / scipy.stats.median_abs_deviation)', () => {
    for (const arm of ['baseline', 'candidate'] as const) {
      const ours = describeStats(arm === 'baseline' ? base : cand) as unknown as Record<string, number>
      for (const [k, v] of Object.entries(d.describe[arm])) expectRel(ours[k]!, v, 1e-9)
    }
  })

  test('Welch t, df and p (ttest_ind equal_var=False)', () => {
    const w = welchTTest(cand, base)
    if (d.welch.t === null) return
    expect(w.defined).toBe(true)
    if (d.welch.t === 0) expect(w.t).toBe(0)
    else expectRel(w.t, d.welch.t, 1e-6)
    expectRel(w.df, d.welch.df!, 1e-6)
    expectRel(w.p, d.welch.p!, 1e-3)
  })

  test('Mann–Whitney U (method auto, asymptotic with continuity, exact)', () => {
    const auto = mannWhitneyU(cand, base)
    expect(auto.u).toBe(d.mann_whitney.auto.u)
    // Tied data small enough to enumerate use the exact permutation distribution instead of SciPy's
    // auto choice (normal); those p values are checked against SciPy's PermutationMethod in
    // mann-whitney.test.ts. Everything else follows SciPy's auto rule.
    if (auto.method !== 'permutation') {
      expect(auto.method).toBe(d.mann_whitney.auto.method)
      expectRel(auto.p, d.mann_whitney.auto.p, 1e-3)
    }
    const normal = mannWhitneyU(cand, base, 'normal')
    expect(normal.u).toBe(d.mann_whitney.normal.u)
    expectRel(normal.p, d.mann_whitney.normal.p, 1e-3)
    if (d.mann_whitney.exact !== undefined) {
      const exact = mannWhitneyU(cand, base, 'exact')
      expect(exact.method).toBe('exact')
      expectRel(exact.p, d.mann_whitney.exact.p, 1e-9)
    }
  })

  test('TOST p (two shifted one-sided ttest_ind; = statsmodels ttost_ind)', () => {
    for (const dir of ['lower', 'higher'] as const) {
      const r = d.tost[dir]
      if (r.p === null) continue
      const ours = tost(cand, base, r.low, r.high)
      expectRel(ours.pLower, r.p_lower!, 1e-3)
      expectRel(ours.pUpper, r.p_upper!, 1e-3)
      expectRel(ours.p, r.p, 1e-3)
    }
  })

  test('minimum detectable effect and t-delta interval (scipy.stats.t.ppf)', () => {
    const db = describeStats(base)
    const dc = describeStats(cand)
    expectRel(minimumDetectableEffect(dc.sd, dc.n, db.sd, db.n, ref.alpha), d.mde, 1e-6)
    if (d.t_delta_ratio !== null) {
      const i = tDeltaRatioInterval(base, cand, db.mean, dc.mean)
      // jstat's t quantile agrees with scipy's to ~1e-8 relative.
      expectRel(i.low, d.t_delta_ratio.low, 1e-7)
      expectRel(i.high, d.t_delta_ratio.high, 1e-7)
    }
  })

  test('outlier flags (Tukey 1.5 IQR, MAD 3.5)', () => {
    for (const arm of ['baseline', 'candidate'] as const) {
      const xs = arm === 'baseline' ? base : cand
      if (xs.length < 3) continue
      const o = outliers(xs)
      expect(o.tukey).toEqual(d.outliers[arm].tukey)
      expect(o.mad).toEqual(d.outliers[arm].mad)
    }
  })

  test('percentile bootstrap of the ratio of means is close to scipy.stats.bootstrap', () => {
    const sb = d.bootstrap_ratio_of_means
    if (sb === undefined) return
    const ours = bootstrapRatios(base, cand, { resamples: 20_000 }).mean
    // Different random streams: endpoints agree up to Monte Carlo error, a few % of the width.
    const width = sb.high - sb.low
    expect(Math.abs(ours.low - sb.low)).toBeLessThanOrEqual(0.06 * width + 1e-12)
    expect(Math.abs(ours.high - sb.high)).toBeLessThanOrEqual(0.06 * width + 1e-12)
  })
})

test('Holm adjustment equals statsmodels multipletests(method="holm")', () => {
  const ours = holm(ref.holm.p)
  ref.holm.adjusted.forEach((v, i) => expectRel(ours[i]!, v, 1e-12))
})

describe('degenerate inputs never give NaN', () => {
  test('identical constant arms: t undefined, p = 1', () => {
    const w = welchTTest([5, 5, 5], [5, 5, 5])
    expect(w).toMatchObject({ t: 0, df: 0, p: 1, defined: false })
    expect(mannWhitneyU([5, 5, 5], [5, 5, 5]).p).toBe(1)
  })
  test('constant but different arms: t undefined, p → 0, rank test still informative', () => {
    expect(welchTTest([6, 6, 6], [5, 5, 5])).toMatchObject({ t: 0, p: 0, defined: false })
    const mw = mannWhitneyU([6, 6, 6, 6, 6], [5, 5, 5, 5, 5])
    // Exact permutation: the observed split is 1 of C(10, 5) = 252, two-sided 2/252.
    expect(mw.method).toBe('permutation')
    expect(mw.p).toBeCloseTo(2 / 252, 15)
  })
  test('n < 2', () => {
    expect(welchTTest([1], [2, 3])).toMatchObject({ p: 1, defined: false })
    expect(tost([1], [2, 3], -1, 1).p).toBe(1)
    expect(minimumDetectableEffect(1, 1, 1, 5, 0.05)).toBe(Infinity)
    expect(describeStats([])).toMatchObject({ n: 0, mean: 0, sd: 0 })
    expect(describeStats([3])).toMatchObject({ n: 1, mean: 3, sd: 0, p95: 3 })
  })
  test('zero-variance TOST is decided exactly', () => {
    expect(tost([10, 10], [10, 10], -0.2, 0.2).p).toBe(0)
    expect(tost([11, 11], [10, 10], -0.2, 0.2).p).toBe(1)
  })
})

describe('bootstrap and intervals', () => {
  const base = [41.0, 41.02, 40.98, 41.05, 40.99, 41.01]
  const cand = [41.1, 41.08, 41.12, 41.15, 41.09, 41.11]
  test('seeded: the same inputs and seed give the same interval; another seed differs slightly', () => {
    const a = bootstrapRatios(base, cand, { seed: 's1' })
    const b = bootstrapRatios(base, cand, { seed: 's1' })
    const c = bootstrapRatios(base, cand, { seed: 's2' })
    expect(a).toEqual(b)
    expect(c).not.toEqual(a)
    expect(Math.abs(c.mean.low - a.mean.low)).toBeLessThan(0.001)
  })
  test('intervals contain the estimate; median interval exists', () => {
    const r = ratioIntervals(base, cand)
    for (const k of ['mean', 'median'] as const) {
      expect(r[k].bootstrap.low).toBeLessThanOrEqual(r[k].estimate)
      expect(r[k].bootstrap.high).toBeGreaterThanOrEqual(r[k].estimate)
      expect(r[k].tDelta.low).toBeLessThanOrEqual(r[k].estimate)
      expect(r[k].tDelta.high).toBeGreaterThanOrEqual(r[k].estimate)
    }
  })
})

describe('runs needed', () => {
  test('is the smallest n with MDE ≤ target', () => {
    const n = runsNeeded(0.5, 0.7, 0.4, 0.05)!
    expect(n).toBeGreaterThan(2)
    expect(minimumDetectableEffect(0.5, n, 0.7, n, 0.05)).toBeLessThanOrEqual(0.4)
    expect(minimumDetectableEffect(0.5, n - 1, 0.7, n - 1, 0.05)).toBeGreaterThan(0.4)
  })
  test('zero spread needs the minimum; hopeless targets give null', () => {
    expect(runsNeeded(0, 0, 0.1, 0.05)).toBe(2)
    expect(runsNeeded(1000, 1000, 1e-6, 0.05)).toBeNull()
  })
})
