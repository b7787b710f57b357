/**
 * The paired t-test on within-block log-ratios, for a statistic that is one value per process (a per-process
 * p99: config/tail-metrics.ts says why this test and not the ratio of request means). d_r = log(w_r / b_r);
 * the overhead is exp(mean d) − 1, the geometric mean of the block ratios. Every block counts (no screening:
 * issue 39, S4). Strata as in stats/ratio-of-means.ts: each stratum's mean alone, the strata averaged with
 * equal weights, the variance pooled within strata with n − S degrees of freedom. The result has the
 * ratio-of-means test's shape so the comparison reads it the same way.
 */
import { numAt } from '../../util/must.js'
import { tCdf, tInv } from './distributions.js'
import { UNDEFINED, type RatioBlocks, type RatioTest } from './ratio-of-means.js'

export function logRatioTest(blocks: RatioBlocks, low: number, high: number, alpha: number): RatioTest {
  const { w, b } = blocks
  const n = w.length
  const groups = new Map<string, number[]>()
  for (let i = 0; i < n; i++) {
    const s = blocks.strata?.[i] ?? ''
    let g = groups.get(s)
    if (g === undefined) groups.set(s, (g = []))
    g.push(i)
  }
  const S = Math.max(1, groups.size)
  const df = n - S
  const undefinedTest = (ratio: number): RatioTest => ({ ...UNDEFINED(n, S), ratio })
  if (n !== b.length || df < 1) return undefinedTest(NaN)
  const d = w.map((wi, i) => Math.log(wi / numAt(b, i)))
  if (d.some(x => !Number.isFinite(x))) return undefinedTest(NaN)
  let mean = 0
  let varFactor = 0
  let ss = 0
  for (const idx of groups.values()) {
    const m = idx.reduce((acc, i) => acc + numAt(d, i), 0) / idx.length
    mean += m
    varFactor += 1 / idx.length
    for (const i of idx) ss += (numAt(d, i) - m) ** 2
  }
  mean /= S
  varFactor /= S * S
  const sd = Math.sqrt(ss / df)
  const ratio = Math.exp(mean)
  if (!(sd > 0)) return undefinedTest(ratio)
  const se = sd * Math.sqrt(varFactor)
  const lLow = low > 0 ? Math.log(low) : -Infinity
  const lHigh = Math.log(high)
  const q = tInv(1 - alpha / 2, df)
  // One-sided p values as ratioTest gives them: "ratio ≤ high" rejected for a large mean; "≥ low" for a small.
  const tHigh = (mean - lHigh) / se
  const tLow = lLow === -Infinity ? Infinity : (mean - lLow) / se
  const pAbove = 1 - tCdf(tHigh, df)
  const pBelow = lLow === -Infinity ? 1 : tCdf(tLow, df)
  const pOverLow = lLow === -Infinity ? 0 : 1 - tCdf(tLow, df)
  return {
    defined: true,
    n,
    strata: S,
    df,
    ratio,
    ci: { low: Math.exp(mean - q * se), high: Math.exp(mean + q * se) },
    p: Math.min(1, 2 * tCdf(-Math.abs(mean / se), df)),
    pAbove,
    pBelow,
    pEquivalent: Math.max(tCdf(tHigh, df), pOverLow),
    sdRel: sd,
    varFactor
  }
}
