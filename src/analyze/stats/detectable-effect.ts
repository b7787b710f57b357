/** Statistical power of the Welch test: the smallest detectable difference, and the runs a target needs. */
import { tInv, welchDf } from './distributions.js'

const DEFAULT_POWER = 0.8
const MAX_RUNS = 100_000

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
  power = DEFAULT_POWER
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
  power = DEFAULT_POWER,
  maxRuns = MAX_RUNS
): number | null {
  const mde = (n: number): number => minimumDetectableEffect(sd1, n, sd2, n, alpha, power)
  if (!(target > 0)) return null
  if (mde(maxRuns) > target) return null
  return smallestDetecting(mde, target, maxRuns)
}

/**
 * The smallest n in [2, max] with mde(n) ≤ target, by binary search: the MDE falls monotonically with n
 * (smaller SE, smaller t quantiles). The caller has checked mde(max) ≤ target.
 */
export function smallestDetecting(mde: (n: number) => number, target: number, max: number): number {
  let lo = 2
  let hi = max
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (mde(mid) <= target) hi = mid
    else lo = mid + 1
  }
  return lo
}
