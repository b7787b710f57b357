/**
 * The two-sample figures of one pair of per-run series (Welch, Mann-Whitney, TOST, the ratio intervals and the
 * MDE), before the blocks' paired test replaces what it can (measure.ts).
 */
import type { Direction } from '../../types/index.js'
import type { ArmSeries } from '../../results/index.js'
import type { BootstrapOptions, Interval } from '../stats/index.js'
import {
  describe,
  mannWhitneyU,
  minimumDetectableEffect,
  ratioIntervals,
  tost,
  welchTTest
} from '../stats/index.js'
import { at } from '../../util/must.js'
import { commonUnit, metricDirection } from './direction.js'
import { equivalenceBounds, ratioToOverhead, widerInterval } from './overhead-interval.js'

/** Power of the minimum detectable effect, as stats/detectable-effect.ts uses it. */
export const POWER = 0.8

export interface MeasureOptions {
  baselineEnv: string
  candidateEnv: string
  maxOverheadPct: number
  alpha: number
  /** Fingerprint differences that make the pair incomparable (from fingerprintDifferences). */
  incomparable?: string[]
  bootstrap?: BootstrapOptions
}

/**
 * Percentile-bootstrap resamples: 10,000 for the usual 5–15 runs per arm, fewer (≥ 2,000) for many runs so
 * one comparison costs at most ~3·10^5 draws. With many runs the bootstrap and t-delta intervals agree
 * and the wider of the two is reported anyway, so the extra Monte Carlo error does not matter.
 */
export function resamplesFor(n: number): number {
  return Math.max(2000, Math.min(10_000, Math.floor(3e5 / Math.max(1, n))))
}

export function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return at(s, s.length >> 1)
}

type Descriptive = ReturnType<typeof describe>

/** What is known of both arms before any test: their summaries, the unit and which way is better. */
export interface Arms {
  base: ArmSeries
  cand: ArmSeries
  db: Descriptive
  dc: Descriptive
  unit: string
  direction: Direction
  source: 'declared' | 'unit'
  /** At least two runs per arm: spreads, intervals and tests exist. */
  enough: boolean
  /** Ratios need positive locations (times and throughputs are). */
  positive: boolean
}

export function describeArms(base: ArmSeries, cand: ArmSeries): Arms {
  const db = describe(base.values)
  const dc = describe(cand.values)
  const unit = commonUnit(base, cand)
  const { direction, source } = metricDirection({ ...cand, unit }, base)
  const enough = base.values.length >= 2 && cand.values.length >= 2
  return { base, cand, db, dc, unit, direction, source, enough, positive: db.mean > 0 && dc.mean > 0 }
}

/** The two-sample tests, and the p that gates when no blocks can be tested. */
export interface UnpairedTests {
  welch: ReturnType<typeof welchTTest>
  mw: ReturnType<typeof mannWhitneyU>
  gateFromMw: boolean
  pGate: number
}

export function unpairedTests(arms: Arms): UnpairedTests {
  const welch = welchTTest(arms.cand.values, arms.base.values)
  const mw = mannWhitneyU(arms.cand.values, arms.base.values)
  // Welch's t is undefined when both arms have zero variance. Identical arms: p = 1. Constant but
  // different arms: the limit p = 0 would gate on as few as 2 runs, so the rank test's p gates instead.
  const gateFromMw = arms.enough && !welch.defined && welch.p === 0
  return { welch, mw, gateFromMw, pGate: gateFromMw ? mw.p : welch.p }
}

/** The overhead of the means and the intervals of mean and median, the arms taken as independent samples. */
export interface UnpairedIntervals {
  overhead: number
  ci: Interval
  ciMethod: 'bootstrap' | 't-delta'
  ciMedian: Interval
  ciMedianMethod: 'bootstrap' | 't-delta'
  ciBoot?: Interval
  ciT?: Interval
  undefinedStats: string[]
}

export function unpairedIntervals(arms: Arms, bootstrap: BootstrapOptions | undefined): UnpairedIntervals {
  const { db, dc, direction } = arms
  if (!arms.positive)
    return {
      overhead: 0,
      ci: { low: 0, high: 0 },
      ciMethod: 'bootstrap',
      ciMedian: { low: 0, high: 0 },
      ciMedianMethod: 'bootstrap',
      undefinedStats: ['overhead_pct', 'ci95', 'ci95_median']
    }
  const b = arms.base.values
  const c = arms.cand.values
  const ratioMean = dc.mean / db.mean
  const overhead = ((direction === 'lower' ? ratioMean : 1 / ratioMean) - 1) * 100
  const intervals = ratioIntervals(b, c, { resamples: resamplesFor(b.length + c.length), ...bootstrap })
  const ciBoot = ratioToOverhead(intervals.mean.bootstrap, direction)
  const ciT = ratioToOverhead(intervals.mean.tDelta, direction)
  const { ci, method: ciMethod } = widerInterval(ciBoot, ciT, overhead)
  const median = medianInterval(arms, intervals.median)
  const undefinedStats = [...median.undefinedStats, ...(arms.enough ? [] : ['ci95', 'ci95_median'])]
  return { overhead, ci, ciMethod, ...median, ciBoot, ciT, undefinedStats }
}

/** The interval of the medians' overhead: the wider of bootstrap and t-delta, as for the means. */
function medianInterval(
  arms: Arms,
  median: ReturnType<typeof ratioIntervals>['median']
): Pick<UnpairedIntervals, 'ciMedian' | 'ciMedianMethod' | 'undefinedStats'> {
  const { db, dc, direction } = arms
  if (!(db.median > 0 && dc.median > 0))
    return { ciMedian: { low: 0, high: 0 }, ciMedianMethod: 'bootstrap', undefinedStats: ['ci95_median'] }
  const medPoint = ((direction === 'lower' ? median.estimate : 1 / median.estimate) - 1) * 100
  const { ci, method } = widerInterval(
    ratioToOverhead(median.bootstrap, direction),
    ratioToOverhead(median.tDelta, direction),
    medPoint
  )
  return { ciMedian: ci, ciMedianMethod: method, undefinedStats: [] }
}

/** The figures the gate reads; the blocks' replace the two samples' where the blocks can be tested. */
export interface GateFigures {
  overhead: number
  ci: Interval
  ciMethod: 'bootstrap' | 't-delta' | 'paired'
  tostP: number
  pRegression: number
  mdePct: number
}

/** The gate's figures from the two samples: the intervals above, TOST, the regression p and the MDE. */
export function unpairedFigures(
  arms: Arms,
  iv: UnpairedIntervals,
  opts: MeasureOptions
): { figures: GateFigures; undefinedStats: string[] } {
  const { db, dc, direction } = arms
  const undefinedStats: string[] = []
  // Both arms constant: zero spread proves nothing either way (a timer coarser than the run-to-run
  // variation), so neither equivalence nor a regression can rest on it.
  const constantArms = arms.enough && db.sd === 0 && dc.sd === 0
  let tostP = 1
  let pRegression = 1
  if (arms.positive && arms.enough && !constantArms) {
    const bounds = equivalenceBounds(db.mean, opts.maxOverheadPct, direction)
    const t = tost(arms.cand.values, arms.base.values, bounds.low, bounds.high)
    tostP = t.p
    // One-sided against the threshold: worse is larger for lower-is-better, smaller for higher-is-better.
    pRegression = direction === 'lower' ? 1 - t.pUpper : 1 - t.pLower
  } else undefinedStats.push('tost')
  let mdePct = 0
  if (arms.enough && db.mean !== 0) {
    mdePct = (minimumDetectableEffect(db.sd, db.n, dc.sd, dc.n, opts.alpha) / Math.abs(db.mean)) * 100
  } else undefinedStats.push('mde_pct')
  const figures = { overhead: iv.overhead, ci: iv.ci, ciMethod: iv.ciMethod, tostP, pRegression, mdePct }
  return { figures, undefinedStats }
}
