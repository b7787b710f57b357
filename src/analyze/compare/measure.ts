/**
 * Every statistic of one pair of per-run series (baseline arm, candidate arm). overhead =
 * candidate/baseline − 1 for lower-is-better metrics and baseline/candidate − 1 for higher-is-better
 * ones, so a positive overhead always means the candidate is worse.
 */
import type { Comparison, MetricScope } from '../../types/index.js'
import type { ArmSeries } from '../../results/index.js'
import { isStartupMetric } from '../../results/index.js'
import type { BootstrapOptions, Interval } from '../stats/index.js'
import {
  describe,
  mannWhitneyU,
  minimumDetectableEffect,
  outliers,
  ratioIntervals,
  logRatioTest,
  ratioTest,
  tInv,
  tost,
  welchTTest
} from '../stats/index.js'
import { maxOf, minOf } from '../../util/arrays.js'
import { at } from '../../util/must.js'
import { commonUnit, metricDirection } from './direction.js'
import { equivalenceBounds, finiteInterval, ratioToOverhead, widerInterval } from './overhead-interval.js'
import { screenedView } from './agreement.js'
import { blockRatios, logToPct, MIN_BLOCKS, ratioBounds, ratioToPct } from './pairs.js'
import { isTailMetric } from '../../config/index.js'

/** Power of the minimum detectable effect, as stats/detectable-effect.ts uses it. */
const POWER = 0.8

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

/** Label of each run for outlier reports: its number, or its 1-based position. */
function runNumbers(series: ArmSeries, indices: number[]): number[] {
  return indices.map(i => {
    const run = series.runs[i]
    const n = Number(run)
    return run !== undefined && Number.isFinite(n) && run.trim() !== '' ? n : i + 1
  })
}

/** Start-up phases, info metrics (writable-layer I/O) and derived metrics are reported only; the rest gates. */
function comparisonScope(base: ArmSeries, cand: ArmSeries): MetricScope {
  if (cand.scope === 'startup' || base.scope === 'startup' || isStartupMetric(cand.metric)) return 'startup'
  if (cand.scope === 'info' || base.scope === 'info') return 'info'
  if (cand.scope === 'derived' || base.scope === 'derived') return 'derived'
  if (cand.scope === 'tail' || base.scope === 'tail') return 'tail'
  return 'steady'
}

/** Both arms constant: a zero-width CI that says more about the timer's resolution than about the arms. */
function constantArmsWarning(db: { n: number; sd: number }, dc: { n: number; sd: number }): string | null {
  if (db.n < 2 || dc.n < 2 || db.sd !== 0 || dc.sd !== 0) return null
  return (
    `every run of both arms gave the same value (zero spread at ${db.n}+${dc.n} runs): the interval has no ` +
    'width, which usually means the timer resolution is coarser than the run-to-run variation; not a ' +
    'regression on its own — time with a finer clock or longer iterations'
  )
}

/** Magnitudes beyond which squares and variances overflow or underflow a double (1e±150 → NaN p). */
const EXTREME_HIGH = 2 ** 100
const EXTREME_LOW = 2 ** -100

/**
 * Every statistic for one pair of series; p_adjusted is the unadjusted gating p until `decide` runs. Values so
 * large or small that their squares leave the range of a double are measured in a rescaled unit — a power of
 * two, so every ratio, test and interval is exactly what it would be — and the arms' means, medians and sds
 * are given back in the original unit.
 */
export function measureComparison(base: ArmSeries, cand: ArmSeries, opts: MeasureOptions): Comparison {
  const all = [...base.values, ...cand.values].filter(v => Number.isFinite(v) && v !== 0).map(Math.abs)
  const big = all.length > 0 && maxOf(all) > EXTREME_HIGH
  const small = all.length > 0 && minOf(all) < EXTREME_LOW
  if (!big && !small) return measureUnscaled(base, cand, opts)
  const exp = Math.round(Math.log2(medianOf(all)))
  const f = 2 ** -exp
  const scaled = (s: ArmSeries): ArmSeries => ({ ...s, values: s.values.map(v => v * f) })
  const c = measureUnscaled(scaled(base), scaled(cand), opts)
  const back = 2 ** exp
  return {
    ...c,
    mean_baseline: c.mean_baseline * back,
    mean_candidate: c.mean_candidate * back,
    median_baseline: c.median_baseline * back,
    median_candidate: c.median_candidate * back,
    sd_baseline: c.sd_baseline * back,
    sd_candidate: c.sd_candidate * back
  }
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return at(s, s.length >> 1)
}

function measureUnscaled(base: ArmSeries, cand: ArmSeries, opts: MeasureOptions): Comparison {
  const b = base.values
  const c = cand.values
  const db = describe(b)
  const dc = describe(c)
  const unit = commonUnit(base, cand)
  const { direction, source } = metricDirection({ ...cand, unit }, base)
  const undefinedStats: string[] = []
  const enough = b.length >= 2 && c.length >= 2

  const welch = welchTTest(c, b)
  const mw = mannWhitneyU(c, b)
  if (!welch.defined) undefinedStats.push('welch')
  // Welch's t is undefined when both arms have zero variance. Identical arms: p = 1. Constant but
  // different arms: the limit p = 0 would gate on as few as 2 runs, so the rank test's p gates instead.
  const gateFromMw = enough && !welch.defined && welch.p === 0
  const pGate = gateFromMw ? mw.p : welch.p

  // Ratios need positive locations (times and throughputs are).
  const positive = db.mean > 0 && dc.mean > 0
  const ratioMean = dc.mean / db.mean
  let overhead = positive ? ((direction === 'lower' ? ratioMean : 1 / ratioMean) - 1) * 100 : 0
  let ci: Interval = { low: overhead, high: overhead }
  let ciMedian: Interval = { low: 0, high: 0 }
  let ciMethod: 'bootstrap' | 't-delta' | 'paired' = 'bootstrap'
  let ciMedianMethod: 'bootstrap' | 't-delta' = 'bootstrap'
  let ciBoot: Interval | undefined
  let ciT: Interval | undefined
  if (!positive) undefinedStats.push('overhead_pct', 'ci95', 'ci95_median')
  else {
    const intervals = ratioIntervals(b, c, {
      resamples: resamplesFor(b.length + c.length),
      ...opts.bootstrap
    })
    ciBoot = ratioToOverhead(intervals.mean.bootstrap, direction)
    ciT = ratioToOverhead(intervals.mean.tDelta, direction)
    ;({ ci, method: ciMethod } = widerInterval(ciBoot, ciT, overhead))
    const medPositive = db.median > 0 && dc.median > 0
    const medRatio = intervals.median.estimate
    const medPoint = ((direction === 'lower' ? medRatio : 1 / medRatio) - 1) * 100
    if (medPositive) {
      ;({ ci: ciMedian, method: ciMedianMethod } = widerInterval(
        ratioToOverhead(intervals.median.bootstrap, direction),
        ratioToOverhead(intervals.median.tDelta, direction),
        medPoint
      ))
    } else undefinedStats.push('ci95_median')
    if (!enough) undefinedStats.push('ci95', 'ci95_median')
  }

  // Both arms constant: zero spread proves nothing either way (a timer coarser than the run-to-run
  // variation), so neither equivalence nor a regression can rest on it.
  const constantArms = enough && db.sd === 0 && dc.sd === 0
  let tostP = 1
  let pRegression = 1
  if (positive && enough && !constantArms) {
    const bounds = equivalenceBounds(db.mean, opts.maxOverheadPct, direction)
    const t = tost(c, b, bounds.low, bounds.high)
    tostP = t.p
    // One-sided against the threshold: worse is larger for lower-is-better, smaller for higher-is-better.
    pRegression = direction === 'lower' ? 1 - t.pUpper : 1 - t.pLower
  } else undefinedStats.push('tost')

  let mdePct = 0
  if (enough && db.mean !== 0) {
    mdePct = (minimumDetectableEffect(db.sd, db.n, dc.sd, dc.n, opts.alpha) / Math.abs(db.mean)) * 100
  } else undefinedStats.push('mde_pct')

  // Blocks (run r of both arms, adjacent in the schedule): where they can be tested, the overhead, its
  // interval, the tests and the MDE come from the ratio of the arms' request means within blocks
  // (stats/ratio-of-means.ts), so a host-wide state that both processes of a block shared cancels. Without two
  // testable blocks (no common runs, a constant ratio) the two-sample figures above stand.
  const blocks = positive ? blockRatios(base, cand, direction) : { runs: [], d: [], w: [], b: [], strata: [] }
  const bounds = ratioBounds(opts.maxOverheadPct)
  // A per-process percentile (a tail metric) is one value per process, not a mean of requests: the paired
  // t-test on the blocks' log-ratios (config/tail-metrics.ts says why).
  const tail = isTailMetric(cand.workload, cand.metric)
  const paired =
    blocks.d.length >= MIN_BLOCKS
      ? (tail ? logRatioTest : ratioTest)(
          { w: blocks.w, b: blocks.b, strata: blocks.strata },
          bounds.low,
          bounds.high,
          opts.alpha
        )
      : null
  let pGatePaired: number | null = null
  if (paired?.defined) {
    overhead = ratioToPct(paired.ratio)
    ci = { low: ratioToPct(paired.ci.low), high: ratioToPct(paired.ci.high) }
    ciMethod = 'paired'
    tostP = paired.pEquivalent
    pRegression = paired.pAbove
    pGatePaired = paired.p
    const se = paired.sdRel * Math.sqrt(paired.varFactor)
    mdePct = (tInv(1 - opts.alpha / 2, paired.df) + tInv(POWER, paired.df)) * se * 100
    for (const s of ['tost', 'mde_pct', 'ci95']) {
      const at = undefinedStats.indexOf(s)
      if (at >= 0) undefinedStats.splice(at, 1)
    }
  }

  const out = outliers(b)
  const outC = outliers(c)
  const comparison: Comparison = {
    workload: cand.workload,
    metric: cand.metric,
    baseline_env: opts.baselineEnv,
    candidate_env: opts.candidateEnv,
    n_baseline: db.n,
    n_candidate: dc.n,
    mean_baseline: db.mean,
    mean_candidate: dc.mean,
    median_baseline: db.median,
    median_candidate: dc.median,
    overhead_pct: overhead,
    ci95: ci,
    welch: { t: welch.t, df: welch.df, p: welch.p, defined: welch.defined },
    mann_whitney: { u: mw.u, p: mw.p, method: mw.method },
    tost: { margin_pct: opts.maxOverheadPct, p: tostP, equivalent: tostP < opts.alpha },
    p_adjusted: pGatePaired ?? pGate,
    mde_pct: mdePct,
    verdict: 'inconclusive',
    unit,
    direction,
    direction_source: source,
    scope: comparisonScope(base, cand),
    sd_baseline: db.sd,
    sd_candidate: dc.sd,
    ci95_median: ciMedian,
    ci_method: ciMethod,
    ci95_median_method: ciMedianMethod,
    runs_needed: null,
    outliers: { baseline: runNumbers(base, out.any), candidate: runNumbers(cand, outC.any) },
    reason: '',
    p_gate: pGatePaired ?? pGate,
    p_source: pGatePaired !== null ? 'paired' : gateFromMw ? 'mann-whitney' : 'welch',
    p_regression: pRegression
  }
  if (paired?.defined) {
    const screened = screenedView(blocks.d, ci)
    comparison.paired = {
      blocks: paired.n,
      strata: paired.strata,
      df: paired.df,
      left_out: screened.leftOut,
      screened_pct: screened.pct,
      block_pcts: blocks.d.map(logToPct)
    }
    if (screened.disagrees) comparison.screened_disagrees = true
  }
  if (ciBoot !== undefined && finiteInterval(ciBoot)) comparison.ci95_bootstrap = ciBoot
  if (ciT !== undefined && finiteInterval(ciT)) comparison.ci95_t_delta = ciT
  if (cand.params !== '') comparison.params = cand.params
  const constant = constantArmsWarning(db, dc)
  if (constant !== null) comparison.warnings = [constant]
  if (undefinedStats.length > 0) comparison.undefined_stats = [...new Set(undefinedStats)]
  if (opts.incomparable !== undefined && opts.incomparable.length > 0)
    comparison.incomparable_fields = opts.incomparable
  return comparison
}
