/**
 * The statistics engine: descriptive statistics, Welch's t-test, Mann–Whitney U, bootstrap and
 * t-delta intervals of ratios, TOST equivalence, Holm correction, minimum detectable effect and
 * outlier flags. Pure functions over plain number arrays; no I/O.
 *
 * Distribution functions come from jstat and order statistics from simple-statistics: nothing here
 * re-implements a special function. Sign conventions follow SciPy: `welchTTest(x, y)` is positive
 * when mean(x) > mean(y), like `scipy.stats.ttest_ind(x, y, equal_var=False)`.
 */
import jStat from 'jstat'
import seedrandom from 'seedrandom'
import {
  max as ssMax,
  mean as ssMean,
  median as ssMedian,
  medianAbsoluteDeviation,
  min as ssMin,
  quantileSorted,
  sampleVariance
} from 'simple-statistics'
import type { Descriptive } from '../types/index.js'

// ---- distributions (jstat) ----

/** P(T <= x) for Student's t with `df` degrees of freedom (df may be fractional, as Welch's is). */
function tCdf(x: number, df: number): number {
  return jStat.studentt.cdf(x, df)
}
/** Quantile of Student's t. */
function tInv(p: number, df: number): number {
  return jStat.studentt.inv(p, df)
}

/** Two-sided p of a t statistic; computed from the lower tail so tiny p keep their precision. */
function twoSidedT(t: number, df: number): number {
  return Math.min(1, 2 * tCdf(-Math.abs(t), df))
}

// ---- descriptive ----

/** Variance with n−1 in the denominator; 0 for fewer than two values (no spread is measurable). */
export function variance(xs: readonly number[]): number {
  return xs.length < 2 ? 0 : sampleVariance(xs)
}

/** Linear-interpolation percentile (numpy's default, R type 7) of values already sorted ascending. */
function percentileSorted(sorted: readonly number[], p: number): number {
  return quantileSorted(sorted, p)
}

/** Descriptive statistics. An empty array gives zeros (n = 0) rather than NaN, so JSON stays valid. */
export function describe(xs: readonly number[]): Descriptive {
  const n = xs.length
  if (n === 0)
    return { n: 0, mean: 0, median: 0, sd: 0, mad: 0, min: 0, max: 0, p5: 0, p25: 0, p75: 0, p95: 0 }
  const arr = xs as number[]
  const sorted = [...xs].sort((a, b) => a - b)
  return {
    n,
    mean: ssMean(arr),
    median: ssMedian(arr),
    sd: Math.sqrt(variance(xs)),
    // Raw (unscaled) median absolute deviation; multiply by 1.4826 for a normal-consistent sd.
    mad: medianAbsoluteDeviation(arr),
    min: ssMin(arr),
    max: ssMax(arr),
    p5: percentileSorted(sorted, 0.05),
    p25: percentileSorted(sorted, 0.25),
    p75: percentileSorted(sorted, 0.75),
    p95: percentileSorted(sorted, 0.95)
  }
}

// ---- Welch's t-test ----

export interface TTestResult {
  t: number
  df: number
  /** Two-sided p. */
  p: number
  /** False when the test is undefined (fewer than 2 values in an arm, or zero variance in both). */
  defined: boolean
  /** Why the test is undefined. */
  note?: string
}

/** Welch–Satterthwaite degrees of freedom for the variance terms a = s1²/n1 and b = s2²/n2. */
function welchDf(a: number, n1: number, b: number, n2: number): number {
  return (a + b) ** 2 / (a ** 2 / (n1 - 1) + b ** 2 / (n2 - 1))
}

/**
 * Welch's unequal-variance t-test, two-sided; t > 0 when mean(x) > mean(y).
 * Degenerate inputs never produce NaN: with < 2 values in an arm, or zero variance in both arms, the
 * test is undefined (`defined: false`, t = 0, df = 0) and p is 1 when the means are equal, 0 when
 * they differ (the limit as the spread vanishes).
 */
export function welchTTest(x: readonly number[], y: readonly number[]): TTestResult {
  const nx = x.length
  const ny = y.length
  if (nx < 2 || ny < 2) return { t: 0, df: 0, p: 1, defined: false, note: 'needs at least 2 runs per arm' }
  const a = variance(x) / nx
  const b = variance(y) / ny
  const diff = ssMean(x) - ssMean(y)
  if (a + b === 0) {
    return diff === 0
      ? { t: 0, df: 0, p: 1, defined: false, note: 'both arms identical with zero variance' }
      : { t: 0, df: 0, p: 0, defined: false, note: 'zero variance in both arms but the means differ' }
  }
  const t = diff / Math.sqrt(a + b)
  const df = welchDf(a, nx, b, ny)
  return { t, df, p: twoSidedT(t, df), defined: true }
}

// ---- Mann–Whitney U (exact, permutation with ties, or normal with a log-space tail) ----

export { mannWhitneyU } from './mann-whitney.js'
export type { MannWhitneyResult } from './mann-whitney.js'

// ---- intervals of a ratio ----

export interface Interval {
  low: number
  high: number
}

export interface RatioIntervals {
  /** cand/base of the statistic on the full samples. */
  estimate: number
  bootstrap: Interval
  tDelta: Interval
}

export interface BootstrapOptions {
  /** Number of resamples (default 10,000). */
  resamples?: number
  /** PRNG seed: the same inputs and seed always give the same interval. */
  seed?: string
  /** Confidence level (default 0.95). */
  level?: number
}

export const DEFAULT_BOOTSTRAP_SEED = 'gpu-overhead-action'

/**
 * Percentile bootstrap intervals of mean(cand)/mean(base) and median(cand)/median(base), resampling each
 * arm independently with a seeded PRNG (seedrandom's Alea) so reports are reproducible.
 * Assumes positive data (times, throughputs); resamples with a zero denominator are dropped.
 */
export function bootstrapRatios(
  base: readonly number[],
  cand: readonly number[],
  options: BootstrapOptions = {}
): { mean: Interval; median: Interval } {
  const resamples = options.resamples ?? 10_000
  const level = options.level ?? 0.95
  const rng = seedrandom.alea(options.seed ?? DEFAULT_BOOTSTRAP_SEED)
  const nb = base.length
  const nc = cand.length
  const bufB = new Float64Array(nb)
  const bufC = new Float64Array(nc)
  const meanRatios: number[] = []
  const medianRatios: number[] = []
  const draw = (src: readonly number[], buf: Float64Array): number => {
    let sum = 0
    for (let i = 0; i < buf.length; i++) {
      const v = src[Math.floor(rng() * src.length)]!
      buf[i] = v
      sum += v
    }
    return sum / buf.length
  }
  const medianOf = (buf: Float64Array): number => {
    buf.sort()
    const h = buf.length >> 1
    return buf.length % 2 === 1 ? buf[h]! : (buf[h - 1]! + buf[h]!) / 2
  }
  for (let r = 0; r < resamples; r++) {
    const mb = draw(base, bufB)
    const mc = draw(cand, bufC)
    const rMean = mc / mb
    const rMedian = medianOf(bufC) / medianOf(bufB)
    if (Number.isFinite(rMean)) meanRatios.push(rMean)
    if (Number.isFinite(rMedian)) medianRatios.push(rMedian)
  }
  const interval = (ratios: number[]): Interval => {
    if (ratios.length === 0) return { low: Number.NaN, high: Number.NaN }
    ratios.sort((a, b) => a - b)
    const tail = (1 - level) / 2
    return { low: percentileSorted(ratios, tail), high: percentileSorted(ratios, 1 - tail) }
  }
  return { mean: interval(meanRatios), median: interval(medianRatios) }
}

/**
 * Delta-method interval of a ratio of two independent location estimates, on the log scale:
 * exp(ln(c/b) ± t(df)·SE), SE² = var_c/(n_c·c²) + var_b/(n_b·b²), Welch–Satterthwaite df.
 * `varianceFactor` inflates the variance of each estimate (π/2 for medians of normal data, 1 for means).
 * The log scale keeps the interval positive, so it can be inverted for higher-is-better metrics.
 */
export function tDeltaRatioInterval(
  base: readonly number[],
  cand: readonly number[],
  locBase: number,
  locCand: number,
  varianceFactor = 1,
  level = 0.95
): Interval {
  const nb = base.length
  const nc = cand.length
  const ratio = locCand / locBase
  if (nb < 2 || nc < 2 || !(ratio > 0)) return { low: Number.NaN, high: Number.NaN }
  const a = (varianceFactor * variance(cand)) / (nc * locCand ** 2)
  const b = (varianceFactor * variance(base)) / (nb * locBase ** 2)
  if (a + b === 0) return { low: ratio, high: ratio }
  const df = welchDf(a, nc, b, nb)
  const half = tInv(1 - (1 - level) / 2, df) * Math.sqrt(a + b)
  return { low: ratio * Math.exp(-half), high: ratio * Math.exp(half) }
}

/** Both intervals (bootstrap and t-delta) of the ratio of means and of the ratio of medians. */
export function ratioIntervals(
  base: readonly number[],
  cand: readonly number[],
  options: BootstrapOptions = {}
): { mean: RatioIntervals; median: RatioIntervals } {
  const level = options.level ?? 0.95
  const boot = bootstrapRatios(base, cand, options)
  const mb = ssMean(base)
  const mc = ssMean(cand)
  const medB = ssMedian(base)
  const medC = ssMedian(cand)
  return {
    mean: {
      estimate: mc / mb,
      bootstrap: boot.mean,
      tDelta: tDeltaRatioInterval(base, cand, mb, mc, 1, level)
    },
    median: {
      estimate: medC / medB,
      bootstrap: boot.median,
      // Asymptotic variance of a sample median is π/2 times that of the mean for normal data.
      tDelta: tDeltaRatioInterval(base, cand, medB, medC, Math.PI / 2, level)
    }
  }
}

// ---- TOST ----

export interface TostResult {
  /** max of the two one-sided p values; equivalence is shown when p < alpha. */
  p: number
  /** p of H0: mean(x) − mean(y) <= low. */
  pLower: number
  /** p of H0: mean(x) − mean(y) >= high. */
  pUpper: number
}

/**
 * Two one-sided Welch t-tests for equivalence of mean(x) − mean(y) within (low, high), on the
 * difference scale. Equal to SciPy's `ttest_ind(x, y + low, equal_var=False, alternative='greater')`
 * and `ttest_ind(x, y + high, equal_var=False, alternative='less')`.
 */
export function tost(x: readonly number[], y: readonly number[], low: number, high: number): TostResult {
  const nx = x.length
  const ny = y.length
  if (nx < 2 || ny < 2) return { p: 1, pLower: 1, pUpper: 1 }
  const a = variance(x) / nx
  const b = variance(y) / ny
  const diff = ssMean(x) - ssMean(y)
  if (a + b === 0) {
    // No spread: the difference is known exactly.
    const pLower = diff > low ? 0 : 1
    const pUpper = diff < high ? 0 : 1
    return { p: Math.max(pLower, pUpper), pLower, pUpper }
  }
  const se = Math.sqrt(a + b)
  const df = welchDf(a, nx, b, ny)
  const pLower = low === -Infinity ? 0 : tCdf(-(diff - low) / se, df)
  const pUpper = high === Infinity ? 0 : tCdf((diff - high) / se, df)
  return { p: Math.max(pLower, pUpper), pLower, pUpper }
}

// ---- multiplicity ----

/** Holm's step-down adjusted p values, in the input order (monotone, capped at 1). */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p)
  const adjusted = new Array<number>(m)
  let running = 0
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p))
    adjusted[i] = running
  })
  return adjusted
}

// ---- power ----

/**
 * Minimum detectable difference of means (absolute units) for a two-sided Welch test at `alpha` with
 * the given power: (t(1−α/2, df) + t(power, df)) · sqrt(sd1²/n1 + sd2²/n2). Infinity below 2 runs.
 */
export function minimumDetectableEffect(
  sd1: number,
  n1: number,
  sd2: number,
  n2: number,
  alpha: number,
  power = 0.8
): number {
  if (n1 < 2 || n2 < 2) return Infinity
  const a = sd1 ** 2 / n1
  const b = sd2 ** 2 / n2
  if (a + b === 0) return 0
  const df = welchDf(a, n1, b, n2)
  return (tInv(1 - alpha / 2, df) + tInv(power, df)) * Math.sqrt(a + b)
}

/**
 * Smallest equal number of runs per arm at which the minimum detectable effect is at most `target`
 * (absolute units), from the observed SDs; null when more than `maxRuns` would be needed.
 */
export function runsNeeded(
  sd1: number,
  sd2: number,
  target: number,
  alpha: number,
  power = 0.8,
  maxRuns = 100_000
): number | null {
  const mde = (n: number): number => minimumDetectableEffect(sd1, n, sd2, n, alpha, power)
  if (!(target > 0)) return null
  if (mde(maxRuns) > target) return null
  // MDE falls monotonically with n (smaller SE, smaller t quantiles): binary search.
  let lo = 2
  let hi = maxRuns
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (mde(mid) <= target) hi = mid
    else lo = mid + 1
  }
  return lo
}

// ---- outliers ----

export interface OutlierFlags {
  /** Indices outside [Q1 − 1.5·IQR, Q3 + 1.5·IQR]. */
  tukey: number[]
  /** Indices with |x − median| / (1.4826·MAD) > 3.5 (none when MAD = 0: the score is undefined). */
  mad: number[]
  /** Union of both, ascending. */
  any: number[]
}

/** Outlier flags by Tukey's fences and by the MAD rule. Flags only: nothing is dropped. */
export function outliers(xs: readonly number[]): OutlierFlags {
  if (xs.length < 3) return { tukey: [], mad: [], any: [] }
  const d = describe(xs)
  const iqr = d.p75 - d.p25
  const lowFence = d.p25 - 1.5 * iqr
  const highFence = d.p75 + 1.5 * iqr
  const scale = 1.4826 * d.mad
  const tukey: number[] = []
  const mad: number[] = []
  xs.forEach((x, i) => {
    if (x < lowFence || x > highFence) tukey.push(i)
    if (scale > 0 && Math.abs(x - d.median) / scale > 3.5) mad.push(i)
  })
  const any = [...new Set([...tukey, ...mad])].sort((a, b) => a - b)
  return { tukey, mad, any }
}
