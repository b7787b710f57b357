/**
 * The significance test of a split, as Apache Otava's TTestSignificanceTester: Student's two-sided
 * t-test (pooled variance) between the points before and after, fed with the population standard
 * deviations (numpy's default std). Distribution from jstat, computed from the lower tail so tiny p
 * keep their precision.
 */
import jStat from 'jstat'

export interface SplitStats {
  meanBefore: number
  meanAfter: number
  sdBefore: number
  sdAfter: number
  pValue: number
}

function mean(xs: readonly number[]): number {
  let s = 0
  for (const x of xs) s += x
  return s / xs.length
}

/** Population standard deviation (divides by n); 0 for one point. */
function populationSd(xs: readonly number[], m: number): number {
  if (xs.length < 2) return 0
  let s = 0
  for (const x of xs) s += (x - m) ** 2
  return Math.sqrt(s / xs.length)
}

/** Two-sided p that `before` and `after` share a mean. */
export function splitTest(before: readonly number[], after: readonly number[]): SplitStats {
  if (before.length === 0 || after.length === 0) throw new RangeError('a split needs points on both sides')
  const meanBefore = mean(before)
  const meanAfter = mean(after)
  const sdBefore = populationSd(before, meanBefore)
  const sdAfter = populationSd(after, meanAfter)
  const n1 = before.length
  const n2 = after.length
  const df = n1 + n2 - 2
  let pValue = 1
  if (df > 0) {
    const pooled = ((n1 - 1) * sdBefore ** 2 + (n2 - 1) * sdAfter ** 2) / df
    const se = Math.sqrt(pooled * (1 / n1 + 1 / n2))
    const diff = meanBefore - meanAfter
    // Zero spread: any difference is certain, none is no evidence (SciPy gives inf → 0 and 0/0 → nan).
    if (se === 0) pValue = diff === 0 ? 1 : 0
    else pValue = Math.min(1, 2 * jStat.studentt.cdf(-Math.abs(diff / se), df))
  }
  return { meanBefore, meanAfter, sdBefore, sdAfter, pValue }
}

/** Relative change after/before − 1 (0 when the mean before is 0, as Otava). */
export function forwardChange(s: Pick<SplitStats, 'meanBefore' | 'meanAfter'>): number {
  return s.meanBefore === 0 ? 0 : s.meanAfter / s.meanBefore - 1
}

/** The larger of the relative changes either way: symmetric, so a drop and its recovery weigh alike. */
export function magnitude(s: Pick<SplitStats, 'meanBefore' | 'meanAfter'>): number {
  const back = s.meanAfter === 0 ? 0 : s.meanBefore / s.meanAfter - 1
  return Math.max(Math.abs(forwardChange(s)), Math.abs(back))
}
