/**
 * Tests on paired differences (one per block of the interleaved schedule): a 20%-trimmed mean with its
 * Tukey–McLaughlin standard error and Yuen's degrees of freedom (Wilcox, "Introduction to Robust Estimation
 * and Hypothesis Testing", 4.3). Trimming makes the test robust to the few blocks whose two processes
 * straddle a change of host state; at normal data it keeps ≈ 94% of the t-test's efficiency, and below
 * 5 blocks it trims nothing (it is the paired t-test). Distribution functions come from jstat.
 */
import { mean } from 'simple-statistics'
import { variance } from './descriptive.js'
import { tCdf, tInv, twoSidedT } from './distributions.js'

/** Share trimmed from each end (Wilcox's default, 20%). */
export const TRIM = 0.2

export interface TrimmedMean {
  n: number
  /** Values trimmed from each end. */
  trimmed: number
  /** The trimmed mean. */
  estimate: number
  /** The plain mean, for the guard against a real difference hiding in the trimmed tails. */
  mean: number
  /** Standard error of the trimmed mean (winsorized variance); 0 when the kept values do not vary. */
  se: number
  df: number
}

/** Trimmed mean and its standard error; null below 2 values. */
export function trimmedMean(xs: readonly number[], gamma = TRIM): TrimmedMean | null {
  const n = xs.length
  if (n < 2 || xs.some(x => !Number.isFinite(x))) return null
  const sorted = [...xs].sort((a, b) => a - b)
  const g = Math.floor(gamma * n)
  const h = n - 2 * g
  const kept = sorted.slice(g, n - g)
  const lo = sorted[g]!
  const hi = sorted[n - g - 1]!
  const winsorized = sorted.map(x => Math.min(hi, Math.max(lo, x)))
  // Yuen: se² = (n − 1)·s²_w / (h·(h − 1)), df = h − 1 (g = 0: the one-sample t-test).
  const se = Math.sqrt(((n - 1) * variance(winsorized)) / (h * (h - 1)))
  return { n, trimmed: g, estimate: mean(kept), mean: mean(sorted), se, df: h - 1 }
}

export interface PairedTest {
  /** False when fewer than 2 pairs or no spread: nothing can be tested (a timer too coarse, constant arms). */
  defined: boolean
  n: number
  trimmed: number
  estimate: number
  mean: number
  se: number
  df: number
  /** Two-sided interval of the trimmed mean at 1 − alpha. */
  ci: { low: number; high: number }
  /** Two-sided p of "no difference". */
  p: number
  /** One-sided p of "the difference is ≤ low" (TOST's lower half). */
  pLower: number
  /** One-sided p of "the difference is ≥ high" (TOST's upper half). */
  pUpper: number
  /** TOST p; 1 when the plain mean lies outside (low, high), whatever the trimmed mean says. */
  pEquivalent: number
  /** One-sided p of "the difference is ≤ high": small means it exceeds the upper bound (a regression). */
  pAbove: number
  /** One-sided p of "the difference is ≥ low": small means it is below the lower bound (an improvement). */
  pBelow: number
}

/**
 * The paired tests against the bounds (low, high) of the equivalence region. Equivalence also needs the plain
 * mean inside the region: trimming may drop a real difference that only some blocks show (a slow path hit
 * by 30% of processes), and a claim of "no overhead" must not rest on what was trimmed away.
 */
export function pairedTest(d: readonly number[], low: number, high: number, alpha: number): PairedTest {
  const t = trimmedMean(d)
  const none = { low: NaN, high: NaN }
  if (t === null || !(t.se > 0) || !Number.isFinite(t.se))
    return {
      defined: false,
      n: d.length,
      trimmed: t?.trimmed ?? 0,
      estimate: t?.estimate ?? NaN,
      mean: t?.mean ?? NaN,
      se: t?.se ?? NaN,
      df: t?.df ?? 0,
      ci: t === null ? none : { low: t.estimate, high: t.estimate },
      p: 1,
      pLower: 1,
      pUpper: 1,
      pEquivalent: 1,
      pAbove: 1,
      pBelow: 1
    }
  const q = tInv(1 - alpha / 2, t.df)
  const pLower = low === -Infinity ? 0 : tCdf(-(t.estimate - low) / t.se, t.df)
  const pUpper = high === Infinity ? 0 : tCdf((t.estimate - high) / t.se, t.df)
  const inside = t.mean > low && t.mean < high
  return {
    defined: true,
    ...t,
    ci: { low: t.estimate - q * t.se, high: t.estimate + q * t.se },
    p: twoSidedT(t.estimate / t.se, t.df),
    pLower,
    pUpper,
    pEquivalent: inside ? Math.max(pLower, pUpper) : 1,
    pAbove: high === Infinity ? 1 : tCdf(-(t.estimate - high) / t.se, t.df),
    pBelow: low === -Infinity ? 1 : tCdf((t.estimate - low) / t.se, t.df)
  }
}

/**
 * Blocks at which a paired test at one-sided level `level` (evaluated per n) would clear `distance` given the
 * winsorized spread `sdW` of the differences: what an undecided metric would need. null when none up to `max`.
 */
export function pairsToClear(
  distance: number,
  sdW: number,
  levelAt: (n: number) => number,
  from: number,
  max: number
): number | null {
  if (!(distance > 0)) return null
  for (let n = Math.max(2, from); n <= max; n = n < 64 ? n + 1 : Math.ceil(n * 1.1)) {
    const g = Math.floor(TRIM * n)
    const h = n - 2 * g
    const se = Math.sqrt(((n - 1) * sdW * sdW) / (h * (h - 1)))
    const level = levelAt(n)
    if (!(level > 0)) continue
    if (se === 0 || distance / se >= tInv(1 - level, h - 1)) return n
  }
  return null
}

/** The winsorized standard deviation (the spread pairsToClear projects forward). */
export function winsorizedSd(xs: readonly number[], gamma = TRIM): number {
  const n = xs.length
  if (n < 2) return NaN
  const sorted = [...xs].sort((a, b) => a - b)
  const g = Math.floor(gamma * n)
  const lo = sorted[g]!
  const hi = sorted[n - g - 1]!
  return Math.sqrt(variance(sorted.map(x => Math.min(hi, Math.max(lo, x)))))
}

/**
 * Smallest number of blocks at which the trimmed paired test (two-sided `alpha`, power 0.8) detects `target`
 * on the log-ratio scale, given the winsorized spread `sdW` of the differences; null beyond `max`.
 */
export function pairsToDetect(sdW: number, target: number, alpha: number, max = 100_000): number | null {
  if (!(target > 0) || !Number.isFinite(sdW)) return null
  if (sdW === 0) return 2
  const mde = (n: number): number => {
    const h = n - 2 * Math.floor(TRIM * n)
    const se = Math.sqrt(((n - 1) * sdW * sdW) / (h * (h - 1)))
    return (tInv(1 - alpha / 2, h - 1) + tInv(0.8, h - 1)) * se
  }
  if (mde(max) > target) return null
  // Not monotone in n at every step (trimming drops a block from each end at multiples of 5): scan, then grow.
  for (let n = 2; n <= max; n = n < 256 ? n + 1 : Math.ceil(n * 1.05)) if (mde(n) <= target) return n
  return null
}
