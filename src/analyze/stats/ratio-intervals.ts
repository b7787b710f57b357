/**
 * Intervals of a ratio cand/base of two independent arms: the percentile bootstrap (seeded, so reports
 * are reproducible) and the t-delta interval on the log scale, for means and for medians.
 */
import seedrandom from 'seedrandom'
import { mean, median } from 'simple-statistics'
import { numAt } from '../../util/must.js'
import { medianSorted, percentileSorted, variance } from './descriptive.js'
import { tInv, welchDf } from './distributions.js'

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
const DEFAULT_RESAMPLES = 10_000
const DEFAULT_LEVEL = 0.95
const UNDEFINED_INTERVAL: Interval = { low: Number.NaN, high: Number.NaN }

/**
 * Percentile bootstrap intervals of mean(cand)/mean(base) and median(cand)/median(base), resampling each
 * arm independently with a seeded PRNG (seedrandom's Alea) so reports are reproducible.
 * Assumes positive data (times, throughputs); resamples with a zero denominator are dropped.
 */
export function bootstrapRatios(
  baseIn: readonly number[],
  candIn: readonly number[],
  options: BootstrapOptions = {}
): { mean: Interval; median: Interval } {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES
  const level = options.level ?? DEFAULT_LEVEL
  const rng = seedrandom.alea(options.seed ?? DEFAULT_BOOTSTRAP_SEED)
  // Each arm in value order: the resamples then depend on the values, never on the order the runs were read in
  // (the order of `analyze --input` changed an interval, issue 51).
  const base = [...baseIn].sort((x, y) => x - y)
  const cand = [...candIn].sort((x, y) => x - y)
  const bufB = new Float64Array(base.length)
  const bufC = new Float64Array(cand.length)
  const meanRatios: number[] = []
  const medianRatios: number[] = []
  const draw = (src: readonly number[], buf: Float64Array): number => {
    let sum = 0
    for (let i = 0; i < buf.length; i++) {
      const v = numAt(src, Math.floor(rng() * src.length))
      buf[i] = v
      sum += v
    }
    return sum / buf.length
  }
  const medianOf = (buf: Float64Array): number => medianSorted(buf.sort())
  for (let r = 0; r < resamples; r++) {
    const mb = draw(base, bufB)
    const mc = draw(cand, bufC)
    const rMean = mc / mb
    const rMedian = medianOf(bufC) / medianOf(bufB)
    if (Number.isFinite(rMean)) meanRatios.push(rMean)
    if (Number.isFinite(rMedian)) medianRatios.push(rMedian)
  }
  const interval = (ratios: number[]): Interval => {
    if (ratios.length === 0) return { ...UNDEFINED_INTERVAL }
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
  level = DEFAULT_LEVEL
): Interval {
  const nb = base.length
  const nc = cand.length
  const ratio = locCand / locBase
  if (nb < 2 || nc < 2 || !(ratio > 0)) return { ...UNDEFINED_INTERVAL }
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
  const boot = bootstrapRatios(base, cand, options)
  const level = options.level ?? DEFAULT_LEVEL
  const mb = mean(base)
  const mc = mean(cand)
  const medB = median(base)
  const medC = median(cand)
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
