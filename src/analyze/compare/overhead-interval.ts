/**
 * From a ratio interval (candidate/baseline) to an overhead interval in percent, in the metric's natural
 * direction, and the equivalence bounds that correspond to ±max-overhead.
 */
import type { Direction } from '../../types/index.js'
import type { Interval } from '../stats/index.js'

/** Map a ratio interval (candidate/baseline) to an overhead interval in percent, natural direction. */
export function ratioToOverhead(r: Interval, direction: Direction): Interval {
  return direction === 'lower'
    ? { low: (r.low - 1) * 100, high: (r.high - 1) * 100 }
    : { low: (1 / r.high - 1) * 100, high: (1 / r.low - 1) * 100 }
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
