/**
 * The interval printed after a sequential stop (issue 39, S9). A check looks after every block and stops when
 * decided, so the fixed-n 95% interval at the stop is nominal: it covered the true overhead in ~93% of simulated
 * stops (as low as 90.5%). A repeated confidence interval (Jennison & Turnbull 1989) holds at every look at once,
 * so also at whichever look the check stopped: each look gets its own share of α, and by the union bound the
 * chance that any look's interval misses is at most α.
 *
 * The shares are those of the claims the ends stand for: the lower end spends α/2 as the regression claim
 * does (power family, α·t⁶), so a decided regression's interval lies above the threshold as its test says;
 * the upper end spends α/2 Pocock-type, as the equivalence claim does (which has a budget of its own, α, so it
 * may decide a little before this end is inside the margin). Together at most α: 95% after the stop.
 *
 * Each end is the fixed-n interval widened by the ratio of t quantiles (one-sided level of the look over α/2, at
 * the same degrees of freedom), on the log scale of the ratio (compare/overhead-interval.ts scaleOnLogRatio):
 * exact for the t-delta interval, which is symmetric there, and first-order equal to Fieller's where the
 * denominator is well determined (times and rates always are). Widening on the percent scale took a paired
 * interval below −100%, which no ratio has (README command 1 printed +42% [−160, +417], issue 51). An end the
 * data do not bound stays unbounded.
 */
import type { Comparison } from '../types/index.js'
import { tInv } from './stats/index.js'
import { lookAlpha, type SequentialOptions } from './sequential.js'
import { scaleOnLogRatio } from './compare/overhead-interval.js'

export interface RepeatedCi {
  ci: { low: number; high: number }
  /** One-sided levels the lower and upper ends were taken at. */
  levels: { low: number; high: number }
}

/** The repeated interval of a comparison the sequential rule stopped at look `n` (blocks, or runs per arm). */
export function repeatedCi(
  c: Pick<Comparison, 'overhead_pct' | 'ci95' | 'paired' | 'welch'>,
  n: number,
  alpha: number,
  opts: Pick<SequentialOptions, 'minRuns' | 'maxRuns' | 'spendingRegression' | 'spendingEquivalence'>
): RepeatedCi | null {
  const df = c.paired?.df ?? c.welch.df
  if (!(df > 0) || Number.isNaN(c.ci95.low) || Number.isNaN(c.ci95.high)) return null
  if (!(c.overhead_pct > -100) || !Number.isFinite(c.overhead_pct)) return null
  const maxRuns = Math.max(n, opts.maxRuns)
  const low = lookAlpha(opts.spendingRegression, alpha / 2, n, Math.min(n, opts.minRuns), maxRuns)
  const high = lookAlpha(opts.spendingEquivalence, alpha / 2, n, Math.min(n, opts.minRuns), maxRuns)
  if (!(low > 0) || !(high > 0)) return null
  const q = tInv(1 - alpha / 2, df)
  return {
    ci: scaleOnLogRatio(c.overhead_pct, c.ci95, {
      low: tInv(1 - low, df) / q,
      high: tInv(1 - high, df) / q
    }),
    levels: { low, high }
  }
}
