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

/** Largest lag-1 autocorrelation the split test accounts for: beyond it a short segment's estimate is mostly noise. */
const MAX_RHO = 0.9

/**
 * Lag-1 autocorrelation ρ of the noise of the points on each side, read from their first differences: for AR(1)
 * noise the differences' own lag-1 autocorrelation is −(1 − ρ)/2, so ρ = 1 + 2·r. Differences, not deviations
 * from a side's mean, so a slow drift (a trend, which makes deviations look correlated) is not taken for
 * correlated noise, and the split's own step is never among them. 0 where negative or not estimable, at most
 * MAX_RHO.
 */
export function noiseLag1(before: readonly number[], after: readonly number[]): number {
  const sides = [before, after]
    .filter(xs => xs.length >= 3)
    .map(xs => xs.slice(1).map((x, i) => x - (xs[i] ?? x)))
  const all = sides.flat()
  if (all.length < 4) return 0
  // Another step inside a side is one large difference: left out (beyond 5 robust sds), it would read as ρ ≈ 1.
  const sorted = [...all].sort((a, b) => a - b)
  const med = sorted[Math.floor(sorted.length / 2)] ?? 0
  const mad = [...all.map(d => Math.abs(d - med))].sort((a, b) => a - b)[Math.floor(all.length / 2)] ?? 0
  const cut = 5 * 1.4826 * mad
  const ok = (d: number | undefined): d is number => d !== undefined && Math.abs(d - med) <= cut
  let num = 0
  let den = 0
  for (const d of sides) {
    const kept = d.filter(ok)
    if (kept.length < 2) continue
    const m = kept.reduce((a, b) => a + b, 0) / kept.length
    for (let i = 0; i < d.length; i++) {
      const x = d[i]
      if (!ok(x)) continue
      den += (x - m) ** 2
      const prev = d[i - 1]
      if (ok(prev)) num += (x - m) * (prev - m)
    }
  }
  if (!(den > 0)) return 0
  return Math.min(MAX_RHO, Math.max(0, 1 + (2 * num) / den))
}

/**
 * The split test on serially correlated points (issue 52, T7): nightly checks share slow host states, so
 * neighbouring points move together and the plain t-test, which takes them as independent, overstates the
 * evidence (AR(1) noise of ρ 0.8, sd 1%: a false change point in 5.75% of series, iid 0.0%). With lag-1
 * autocorrelation ρ̂ > 0 of the noise (noiseLag1), the variance of each side's mean is larger by
 * (1 + ρ̂)/(1 − ρ̂) (the effective sample size of an AR(1) series), so t shrinks by the square root of that and
 * the degrees of freedom by the same factor. Independent points (ρ̂ ≤ 0) keep Student's test unchanged.
 */
export function splitTestSerial(before: readonly number[], after: readonly number[]): SplitStats {
  const plain = splitTest(before, after)
  const rho = noiseLag1(before, after)
  if (rho === 0 || plain.pValue === 0 || plain.pValue === 1) return plain
  const n1 = before.length
  const n2 = after.length
  const f = (1 - rho) / (1 + rho)
  // Student's t as splitTest computes it (pooled, population sds), then deflated.
  const pooled = ((n1 - 1) * plain.sdBefore ** 2 + (n2 - 1) * plain.sdAfter ** 2) / (n1 + n2 - 2)
  const t = Math.abs(plain.meanBefore - plain.meanAfter) / Math.sqrt(pooled * (1 / n1 + 1 / n2))
  const dfEff = Math.max(1, (n1 + n2) * f - 2)
  const pValue = Math.min(1, 2 * jStat.studentt.cdf(-t * Math.sqrt(f), dfEff))
  return { ...plain, pValue }
}
