import fc from 'fast-check'
import {
  bestSplit,
  changePoints,
  DEFAULT_MAX_P,
  DEFAULT_MIN_MAGNITUDE,
  DEFAULT_WINDOW,
  splitTest
} from '../../src/analyze/changepoints/index.js'
import seedrandom from 'seedrandom'

/** Seeded normal noise (Box–Muller on seedrandom's ARC4 stream). */
function noise(seed: number, n: number, mean: number, sd: number): number[] {
  const rng = seedrandom(`changepoints-${seed}`)
  const u = (): number => rng() || Number.MIN_VALUE
  return Array.from(
    { length: n },
    () => mean + sd * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * rng())
  )
}

/** Q̂ straight from its definition (Matteson & James), for every split τ < κ: the best τ. */
function bruteForceBest(s: number[]): { index: number; qhat: number } {
  let best = { index: 1, qhat: Number.NEGATIVE_INFINITY }
  for (let t = 1; t < s.length; t++)
    for (let k = t + 1; k <= s.length; k++) {
      const x = s.slice(0, t)
      const y = s.slice(t, k)
      const n = x.length
      const m = y.length
      let cross = 0
      for (const a of x) for (const b of y) cross += Math.abs(a - b)
      let wx = 0
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) wx += Math.abs(x[i]! - x[j]!)
      let wy = 0
      for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) wy += Math.abs(y[i]! - y[j]!)
      const q =
        (2 / (m + n)) * cross -
        (n > 1 ? ((2 * m) / (m + n) / (n - 1)) * wx : 0) -
        (m > 1 ? ((2 * n) / (m + n) / (m - 1)) * wy : 0)
      // Strictly greater with a relative tolerance: equal Q̂ (summed in another order) keeps the first.
      if (t === 1 && k === 2) best = { index: t, qhat: q }
      else if (q > best.qhat + 1e-9 * Math.max(1, Math.abs(best.qhat))) best = { index: t, qhat: q }
    }
  return best
}

/** Seeded Laplace noise (inverse CDF): heavier tails than normal, sd = scale·√2. */
function laplace(seed: number, n: number, mean: number, sd: number): number[] {
  const rng = seedrandom(`laplace-${seed}`)
  const b = sd / Math.SQRT2
  return Array.from({ length: n }, () => {
    const u = rng() - 0.5
    return mean - b * Math.sign(u) * Math.log(1 - 2 * Math.abs(u))
  })
}

const steps = (...parts: [n: number, mean: number, sd: number][]): number[] =>
  parts.flatMap(([n, mean, sd], i) => noise(1000 + i * 7919 + n, n, mean, sd))

describe('Q̂ candidate (e-divisive means)', () => {
  it('matches the definition on random series', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 2, maxLength: 25 }), ints => {
        const s = ints.map(i => i / 7)
        const fast = bestSplit(s, { start: 0, end: s.length })
        const slow = bruteForceBest(s)
        expect(fast.qhat).toBeCloseTo(slow.qhat, 9)
        expect(fast.index).toBe(slow.index)
      }),
      { numRuns: 300, seed: 21 }
    )
  })

  it('works on a sub-interval and reports absolute indexes', () => {
    const s = [9, 9, 9, 1, 1, 1, 5, 5, 5, 5, 9, 9]
    expect(bestSplit(s, { start: 3, end: 10 }).index).toBe(6)
  })
})

describe('split t-test', () => {
  it('is Student’s pooled t-test on population standard deviations (as Otava)', () => {
    // Reference: SciPy 1.17.1 ttest_ind_from_stats(2, np.std([1,2,3]), 3, 5, np.std([4,5,6]), 3)
    // (Otava's call); ttest_ind on the raw values (sample sd) would give 0.0213.
    const r = splitTest([1, 2, 3], [4, 5, 6])
    expect(r.meanBefore).toBe(2)
    expect(r.meanAfter).toBe(5)
    expect(r.sdBefore).toBeCloseTo(Math.sqrt(2 / 3), 12)
    expect(r.pValue).toBeCloseTo(0.010822550462608249, 12)
  })

  it('gives p 0 for a step between constant segments and 1 for no change at all', () => {
    expect(splitTest([1, 1, 1], [2, 2]).pValue).toBe(0)
    expect(splitTest([1, 1], [1, 1]).pValue).toBe(1)
    expect(splitTest([1], [2]).pValue).toBe(1)
  })
})

describe('change points on synthetic series (defaults: window 50, p 0.001, 2%)', () => {
  it('uses the documented defaults', () => {
    expect([DEFAULT_WINDOW, DEFAULT_MAX_P, DEFAULT_MIN_MAGNITUDE]).toEqual([50, 0.001, 0.02])
  })

  it('finds a single 4% step where it happened', () => {
    const s = steps([40, 100, 1], [40, 104, 1])
    const [cp, ...rest] = changePoints(s).changePoints
    expect(rest).toEqual([])
    expect(cp!.index).toBe(40)
    expect(cp!.meanBefore).toBeCloseTo(100, 0)
    expect(cp!.meanAfter).toBeCloseTo(104, 0)
    expect(cp!.magnitude).toBeGreaterThan(0.03)
    expect(cp!.pValue).toBeLessThanOrEqual(0.001)
    expect(cp!.pRaw).toBeLessThan(cp!.pValue)
  })

  it('finds two steps, up then down', () => {
    const s = steps([30, 50, 0.4], [30, 52, 0.4], [40, 49, 0.4])
    expect(changePoints(s).changePoints.map(c => c.index)).toEqual([30, 60])
  })

  it('finds a step longer ago than one window', () => {
    const s = steps([70, 10, 0.1], [130, 10.5, 0.1])
    expect(changePoints(s).changePoints.map(c => c.index)).toEqual([70])
  })

  it('drops a significant step smaller than the minimum magnitude', () => {
    const s = steps([50, 100, 0.1], [50, 101, 0.1])
    expect(changePoints(s).changePoints).toEqual([])
    expect(changePoints(s, { minMagnitude: 0.005 }).changePoints.map(c => c.index)).toEqual([50])
  })

  it('flags slow drift once it has added up (8% over 160 checks), never a drop', () => {
    const s = noise(77, 160, 0, 0.5).map((e, i) => 100 + 0.05 * i + e)
    const cps = changePoints(s).changePoints
    expect(cps.length).toBeGreaterThan(0)
    for (const c of cps) expect(c.meanAfter).toBeGreaterThan(c.meanBefore * 1.02)
  })

  it('ignores drift that stays within the minimum magnitude (1% over 100 checks)', () => {
    const s = noise(78, 100, 0, 0.5).map((e, i) => 100 + 0.01 * i + e)
    expect(changePoints(s).changePoints).toEqual([])
  })

  it('ignores a single outlier', () => {
    const s = [...noise(5, 30, 1, 0.01), 1.5, ...noise(6, 30, 1, 0.01)]
    expect(changePoints(s).changePoints).toEqual([])
  })

  it('does not split off one outlying night (min segment 3), unlike Otava', () => {
    const s = noise(9, 100, 100, 1)
    s[49] = 106
    expect(changePoints(s).changePoints).toEqual([])
    // Left out of the tests as an isolated outlier, and named.
    expect(changePoints(s).outliers).toEqual([49])
    expect(changePoints(s, { minSegment: 1 }).changePoints).toEqual([])
    expect(changePoints(s, { minSegment: 1, outliers: false }).changePoints.map(c => c.index)).toEqual([
      49, 50
    ])
    expect(changePoints(s, { otavaExact: true, minMagnitude: 0.02 }).changePoints.map(c => c.index)).toEqual([
      49, 50
    ])
  })

  it('handles short and constant series', () => {
    expect(changePoints([]).changePoints).toEqual([])
    expect(changePoints([1]).changePoints).toEqual([])
    expect(changePoints([1, 2]).changePoints).toEqual([])
    expect(changePoints(Array(60).fill(3)).changePoints).toEqual([])
    const flatStep = [...Array<number>(10).fill(1), ...Array<number>(10).fill(2)]
    expect(changePoints(flatStep).changePoints.map(c => [c.index, c.pValue])).toEqual([[10, 0]])
  })

  it('refuses values that are not finite numbers and bad options, naming them', () => {
    expect(() => changePoints([1, Number.NaN, 2])).toThrow('series value 1 is not a finite number (NaN)')
    expect(() => changePoints([1, 2], { window: 1 })).toThrow('window must be an integer ≥ 2, got 1')
    expect(() => changePoints([1, 2], { maxP: 0 })).toThrow('max p must be in (0, 1], got 0')
    expect(() => changePoints([1, 2], { minMagnitude: -1 })).toThrow('min magnitude must be ≥ 0, got -1')
    expect(() => changePoints([1, 2], { minSegment: 0 })).toThrow('min segment must be an integer ≥ 1, got 0')
    expect(() => changePoints([1, 2, 3], { resume: { newPoints: 0, weak: [] } })).toThrow(
      'resume.newPoints must be'
    )
    expect(() => changePoints([1, 2, 3, 4], { resume: { newPoints: 1, weak: [3] } })).toThrow(
      'resume.weak holds 3'
    )
  })
})

describe('pure noise: 1,000 series of length 100 (seeded)', () => {
  const SERIES = 1000
  const count = (sd: number, minMagnitude?: number, make = noise): number => {
    let found = 0
    for (let i = 0; i < SERIES; i++)
      found += changePoints(make(50_000 + i, 100, 100, sd), { minMagnitude }).changePoints.length
    return found
  }

  it('no false change point at p 0.001 with the defaults (noise CV 1% and 5%)', () => {
    expect(count(1)).toBe(0)
    expect(count(5)).toBe(0)
  })

  it('about the nominal rate in heavy-tailed noise (Laplace, CV 1%)', () => {
    // The t-test assumes normal segments: measured 1 in 1,000 here (scripts/changepoints/noise-calibration.ts).
    expect(count(1, undefined, laplace)).toBeLessThanOrEqual(2)
  })

  it('at most the nominal rate without the magnitude floor (p alone)', () => {
    // Bonferroni over split positions bounds a false split at 0.001 per series: ≤ ~1 in 1,000
    // (the uncorrected t-test of Otava gave 42 series with one; scripts/changepoints/noise-calibration.ts).
    expect(count(1, 0)).toBeLessThanOrEqual(2)
  })
})

/**
 * Issue 28, D7 (statistics audit): one ×1.25 outlier night hid a later +5% step in ~20% of histories (Otava:
 * 3%), and loosening max p found fewer steps. Histories as the audit describes them: 100 checks, CV 1%,
 * a +5% step at check 50–74, one night ×1.25 (or a dip ×0.8) at check 12 to 3 before the step or after it.
 * The full count (1,000 histories) is scripts/changepoints/outlier-step.ts, recorded in docs/trend.md.
 */
describe('an outlying night next to a step (issue 28, D7)', () => {
  const HISTORIES = 150
  const history = (
    seed: number,
    { night = 1.25, where = 'before' }: { night?: number; where?: 'before' | 'after' } = {}
  ): { series: number[]; step: number; night: number } => {
    const rng = seedrandom(`d7-${where}-${night}-${seed}`)
    const normal = (): number =>
      Math.sqrt(-2 * Math.log(rng() || Number.MIN_VALUE)) * Math.cos(2 * Math.PI * rng())
    const step = 50 + Math.floor(rng() * 25)
    const at =
      where === 'before' ? 12 + Math.floor(rng() * (step - 15)) : step + 3 + Math.floor(rng() * (96 - step))
    const series = Array.from({ length: 100 }, (_, i) => 100 * (i >= step ? 1.05 : 1) * (1 + 0.01 * normal()))
    series[at]! *= night
    return { series, step, night: at }
  }
  const finds = (h: { series: number[]; step: number }, maxP?: number): boolean =>
    changePoints(h.series, { maxP }).changePoints.some(c => Math.abs(c.index - h.step) <= 2)

  it('an outlier night before the step hides it in ≤ 2% of histories (was ~20%; Otava 3%)', () => {
    const histories = Array.from({ length: HISTORIES }, (_, i) => history(i))
    const found = histories.filter(h => finds(h)).length
    expect(found).toBeGreaterThanOrEqual(0.98 * HISTORIES)
    // The night is named, not a level: no change point at it.
    for (const h of histories.slice(0, 20)) {
      const r = changePoints(h.series)
      expect(r.outliers).toEqual([h.night])
      expect(r.changePoints.some(c => Math.abs(c.index - h.night) <= 1)).toBe(false)
    }
  })

  it.each([
    ['a ×1.25 night before the step', { night: 1.25, where: 'before' as const }],
    ['a ×1.25 night after the step', { night: 1.25, where: 'after' as const }],
    ['a ×0.8 night before the step', { night: 0.8, where: 'before' as const }]
  ])('a looser max p never finds fewer steps: %s (1e-4, 1e-3, 1e-2)', (_, how) => {
    const ps = [1e-4, 1e-3, 1e-2]
    const found = ps.map(() => 0)
    let lost = 0
    for (let i = 0; i < HISTORIES; i++) {
      const h = history(i, how)
      const f = ps.map(p => finds(h, p))
      f.forEach((x, k) => (found[k]! += x ? 1 : 0))
      if (f.some((x, k) => x && f.slice(k + 1).includes(false))) lost++
    }
    expect(found[0]!).toBeLessThanOrEqual(found[1]!)
    expect(found[1]!).toBeLessThanOrEqual(found[2]!)
    expect(lost).toBe(0)
    expect(found[0]!).toBeGreaterThanOrEqual(0.98 * HISTORIES)
  })
})
