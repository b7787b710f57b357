/**
 * From a ratio interval (candidate/baseline) to an overhead interval in percent, in the metric's natural
 * direction, and the equivalence bounds that correspond to ±max-overhead.
 */
import type { Direction } from '../../types/index.js'
import type { Interval } from '../stats/index.js'

/**
 * Map a ratio interval (candidate/baseline, within [0, +∞]) to an overhead interval in percent, natural
 * direction. Every finite end lies above −100%: an end at −100% (a ratio of 0 or +∞, or one a double cannot
 * tell from it) is no bound the data give and reads −∞ ("not bounded below"); +∞ reads "not bounded above".
 * NaN (an undefined interval) stays NaN.
 */
export function ratioToOverhead(r: Interval, direction: Direction): Interval {
  const raw =
    direction === 'lower'
      ? { low: (r.low - 1) * 100, high: (r.high - 1) * 100 }
      : { low: (1 / r.high - 1) * 100, high: (1 / r.low - 1) * 100 }
  return boundedOverhead(raw)
}

/**
 * Below this overhead (a ratio under 10⁻⁶) an end is no bound anyone can read as one: it is as good as the
 * −100% that no ratio reaches, so it reads "not bounded below" rather than as −99.9999%.
 */
const NO_BOUND_BELOW = -100 + 1e-4

/** An overhead interval whose ends at or below −100% (no ratio has them) read "not bounded below". */
export function boundedOverhead(i: Interval): Interval {
  return {
    low: i.low <= NO_BOUND_BELOW ? -Infinity : i.low,
    high: i.high <= NO_BOUND_BELOW ? -Infinity : i.high
  }
}

/** An overhead interval with an end the data do not bound (an unbounded Fieller set, a ratio not kept from 0). */
export const unboundedInterval = (i: Interval): boolean => i.low === -Infinity || i.high === Infinity

/**
 * The overhead interval widened (or narrowed) on the log scale of the ratio: each end's distance from the
 * estimate, as log(1 + x/100), times its factor. The log scale keeps every end above −100%, and it is where the
 * t-delta interval is symmetric; an unbounded end stays unbounded.
 */
export function scaleOnLogRatio(
  estimate: number,
  ci: Interval,
  factors: { low: number; high: number }
): Interval {
  const e = Math.log1p(estimate / 100)
  const end = (x: number, f: number): number => {
    if (!Number.isFinite(x)) return x
    return Math.expm1(e + (Math.log1p(x / 100) - e) * f) * 100
  }
  return boundedOverhead({ low: end(ci.low, factors.low), high: end(ci.high, factors.high) })
}

export const finiteInterval = (i: Interval): boolean => Number.isFinite(i.low) && Number.isFinite(i.high)

/**
 * The wider of the percentile-bootstrap and t-delta intervals: the percentile bootstrap under-covers at
 * the 5–10 runs per arm we usually have, so the gate must never rely on it alone.
 */
export function widerInterval(
  boot: Interval,
  tDelta: Interval,
  point: number
): { ci: Interval; method: 'bootstrap' | 't-delta' } {
  const bootOk = finiteInterval(boot)
  const tOk = finiteInterval(tDelta)
  if (bootOk && tOk)
    return tDelta.high - tDelta.low > boot.high - boot.low
      ? { ci: tDelta, method: 't-delta' }
      : { ci: boot, method: 'bootstrap' }
  if (tOk) return { ci: tDelta, method: 't-delta' }
  if (bootOk) return { ci: boot, method: 'bootstrap' }
  return { ci: { low: point, high: point }, method: 'bootstrap' }
}

/**
 * Bounds on mean(candidate) − mean(baseline) that correspond exactly to overhead ∈ (−m, +m) in the
 * metric's natural direction: ±m·b for lower-is-better; b/(1+m) − b … b/(1−m) − b for higher-is-better.
 */
export function equivalenceBounds(meanBase: number, marginPct: number, direction: Direction): Interval {
  const m = marginPct / 100
  if (direction === 'lower') return { low: -m * meanBase, high: m * meanBase }
  return { low: meanBase / (1 + m) - meanBase, high: m >= 1 ? Infinity : meanBase / (1 - m) - meanBase }
}
