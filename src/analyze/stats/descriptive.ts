/** Descriptive statistics and outlier flags; order statistics from simple-statistics. */
import {
  max as ssMax,
  mean as ssMean,
  median as ssMedian,
  medianAbsoluteDeviation,
  min as ssMin,
  quantileSorted,
  sampleVariance
} from 'simple-statistics'
import type { Descriptive } from '../../types/index.js'
import { at } from '../../util/must.js'

/** Variance with n−1 in the denominator; 0 for fewer than two values (no spread is measurable). */
export function variance(xs: readonly number[]): number {
  return xs.length < 2 ? 0 : sampleVariance(xs)
}

/** Linear-interpolation percentile (numpy's default, R type 7) of values already sorted ascending. */
export function percentileSorted(sorted: readonly number[], p: number): number {
  return quantileSorted(sorted, p)
}

/** Median of values already sorted ascending (the mean of the middle two for an even count); NaN when empty. */
export function medianSorted(sorted: ArrayLike<number>): number {
  const n = sorted.length
  if (n === 0) return NaN
  const h = n >> 1
  return n % 2 === 1 ? at(sorted, h) : (at(sorted, h - 1) + at(sorted, h)) / 2
}

/** Descriptive statistics. An empty array
 gives zeros (n = 0) rather than NaN, so JSON stays valid. */
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
