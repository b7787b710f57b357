/**
 * Welch's unequal-variance t-test and TOST equivalence on it. Sign conventions follow SciPy:
 * `welchTTest(x, y)` is positive when mean(x) > mean(y), like `scipy.stats.ttest_ind(x, y, equal_var=False)`.
 */
import { tCdf, twoSidedT, welchDf, welchTerms } from './distributions.js'

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

/**
 * Welch's unequal-variance t-test, two-sided; t > 0 when mean(x) > mean(y).
 * Degenerate inputs never produce NaN: with < 2 values in an arm, or zero variance in both arms, the
 * test is undefined (`defined: false`, t = 0, df = 0) and p is 1 when the means are equal, 0 when
 * they differ (the limit as the spread vanishes).
 */
export function welchTTest(x: readonly number[], y: readonly number[]): TTestResult {
  const w = welchTerms(x, y)
  if (w === null) return { t: 0, df: 0, p: 1, defined: false, note: 'needs at least 2 runs per arm' }
  const { a, b, diff } = w
  if (a + b === 0) {
    return diff === 0
      ? { t: 0, df: 0, p: 1, defined: false, note: 'both arms identical with zero variance' }
      : { t: 0, df: 0, p: 0, defined: false, note: 'zero variance in both arms but the means differ' }
  }
  const t = diff / Math.sqrt(a + b)
  const df = welchDf(a, w.nx, b, w.ny)
  return { t, df, p: twoSidedT(t, df), defined: true }
}

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
  const w = welchTerms(x, y)
  if (w === null) return { p: 1, pLower: 1, pUpper: 1 }
  const { a, b, diff } = w
  if (a + b === 0) {
    // No spread: the difference is known exactly.
    const pLower = diff > low ? 0 : 1
    const pUpper = diff < high ? 0 : 1
    return { p: Math.max(pLower, pUpper), pLower, pUpper }
  }
  const se = Math.sqrt(a + b)
  const df = welchDf(a, w.nx, b, w.ny)
  const pLower = low === -Infinity ? 0 : tCdf(-(diff - low) / se, df)
  const pUpper = high === Infinity ? 0 : tCdf((diff - high) / se, df)
  return { p: Math.max(pLower, pUpper), pLower, pUpper }
}
