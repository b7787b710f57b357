/**
 * Every statistic of one pair of per-run series (baseline arm, candidate arm). overhead =
 * candidate/baseline − 1 for lower-is-better metrics and baseline/candidate − 1 for higher-is-better
 * ones, so a positive overhead always means the candidate is worse.
 */
import type { Comparison, Direction, MetricScope } from '../../types/index.js'
import type { ArmSeries } from '../../results/index.js'
import { isStartupMetric } from '../../results/index.js'
import type { BootstrapOptions, Interval, RatioTest } from '../stats/index.js'
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
import { blockRatios, logToPct, MIN_BLOCKS, ratioBounds, ratioToPct, type BlockRatios } from './pairs.js'
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

type Descriptive = ReturnType<typeof describe>

/** What is known of both arms before any test: their summaries, the unit and which way is better. */
interface Arms {
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

function describeArms(base: ArmSeries, cand: ArmSeries): Arms {
  const db = describe(base.values)
  const dc = describe(cand.values)
  const unit = commonUnit(base, cand)
  const { direction, source } = metricDirection({ ...cand, unit }, base)
  const enough = base.values.length >= 2 && cand.values.length >= 2
  return { base, cand, db, dc, unit, direction, source, enough, positive: db.mean > 0 && dc.mean > 0 }
}

/** The two-sample tests, and the p that gates when no blocks can be tested. */
interface UnpairedTests {
  welch: ReturnType<typeof welchTTest>
  mw: ReturnType<typeof mannWhitneyU>
  gateFromMw: boolean
  pGate: number
}

function unpairedTests(arms: Arms): UnpairedTests {
  const welch = welchTTest(arms.cand.values, arms.base.values)
  const mw = mannWhitneyU(arms.cand.values, arms.base.values)
  // Welch's t is undefined when both arms have zero variance. Identical arms: p = 1. Constant but
  // different arms: the limit p = 0 would gate on as few as 2 runs, so the rank test's p gates instead.
  const gateFromMw = arms.enough && !welch.defined && welch.p === 0
  return { welch, mw, gateFromMw, pGate: gateFromMw ? mw.p : welch.p }
}

/** The overhead of the means and the intervals of mean and median, the arms taken as independent samples. */
interface UnpairedIntervals {
  overhead: number
  ci: Interval
  ciMethod: 'bootstrap' | 't-delta'
  ciMedian: Interval
  ciMedianMethod: 'bootstrap' | 't-delta'
  ciBoot?: Interval
  ciT?: Interval
  undefinedStats: string[]
}

function unpairedIntervals(arms: Arms, bootstrap: BootstrapOptions | undefined): UnpairedIntervals {
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
interface GateFigures {
  overhead: number
  ci: Interval
  ciMethod: 'bootstrap' | 't-delta' | 'paired'
  tostP: number
  pRegression: number
  mdePct: number
}

/** The gate's figures from the two samples: the intervals above, TOST, the regression p and the MDE. */
function unpairedFigures(
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

/**
 * Blocks (run r of both arms, adjacent in the schedule) and their paired test, null below MIN_BLOCKS blocks.
 * Where they can be tested, the overhead, its interval, the tests and the MDE come from the ratio of the arms'
 * request means within blocks (stats/ratio-of-means.ts), so a host-wide state that both processes of a block
 * shared cancels. Without two testable blocks (no common runs, a constant ratio) the two-sample figures stand.
 */
function pairedBlocks(arms: Arms, opts: MeasureOptions): { blocks: BlockRatios; paired: RatioTest | null } {
  const { base, cand, direction } = arms
  const blocks = arms.positive
    ? blockRatios(base, cand, direction)
    : { runs: [], d: [], w: [], b: [], strata: [] }
  if (blocks.d.length < MIN_BLOCKS) return { blocks, paired: null }
  const bounds = ratioBounds(opts.maxOverheadPct)
  // A per-process percentile (a tail metric) is one value per process, not a mean of requests: the paired
  // t-test on the blocks' log-ratios (config/tail-metrics.ts says why).
  const test = isTailMetric(cand.workload, cand.metric) ? logRatioTest : ratioTest
  const paired = test(
    { w: blocks.w, b: blocks.b, strata: blocks.strata },
    bounds.low,
    bounds.high,
    opts.alpha
  )
  return { blocks, paired }
}

/** The gate's figures from a defined paired test of the blocks. */
function pairedFigures(paired: RatioTest, alpha: number): GateFigures {
  const se = paired.sdRel * Math.sqrt(paired.varFactor)
  return {
    overhead: ratioToPct(paired.ratio),
    ci: { low: ratioToPct(paired.ci.low), high: ratioToPct(paired.ci.high) },
    ciMethod: 'paired',
    tostP: paired.pEquivalent,
    pRegression: paired.pAbove,
    mdePct: (tInv(1 - alpha / 2, paired.df) + tInv(POWER, paired.df)) * se * 100
  }
}

/** Removes the first occurrence of each name: the paired test defines what the two samples could not. */
function dropFirst(list: string[], names: readonly string[]): void {
  for (const s of names) {
    const i = list.indexOf(s)
    if (i >= 0) list.splice(i, 1)
  }
}

/** measureComparison in the values' own unit: the two-sample figures, replaced by the blocks' where testable. */
function measureUnscaled(base: ArmSeries, cand: ArmSeries, opts: MeasureOptions): Comparison {
  const arms = describeArms(base, cand)
  const tests = unpairedTests(arms)
  const iv = unpairedIntervals(arms, opts.bootstrap)
  const unpaired = unpairedFigures(arms, iv, opts)
  const undefinedStats = [
    ...(tests.welch.defined ? [] : ['welch']),
    ...iv.undefinedStats,
    ...unpaired.undefinedStats
  ]
  const { blocks, paired } = pairedBlocks(arms, opts)
  let figures = unpaired.figures
  let pGatePaired: number | null = null
  if (paired?.defined) {
    figures = pairedFigures(paired, opts.alpha)
    pGatePaired = paired.p
    dropFirst(undefinedStats, ['tost', 'mde_pct', 'ci95'])
  }
  const comparison = comparisonOf(arms, tests, iv, figures, pGatePaired, opts)
  if (paired?.defined) addPaired(comparison, paired, blocks)
  if (iv.ciBoot !== undefined && finiteInterval(iv.ciBoot)) comparison.ci95_bootstrap = iv.ciBoot
  if (iv.ciT !== undefined && finiteInterval(iv.ciT)) comparison.ci95_t_delta = iv.ciT
  if (cand.params !== '') comparison.params = cand.params
  const constant = constantArmsWarning(arms.db, arms.dc)
  if (constant !== null) comparison.warnings = [constant]
  if (undefinedStats.length > 0) comparison.undefined_stats = [...new Set(undefinedStats)]
  if (opts.incomparable !== undefined && opts.incomparable.length > 0)
    comparison.incomparable_fields = opts.incomparable
  return comparison
}

/** The comparison's required fields; p_adjusted is the gating p until `decide` adjusts it. */
function comparisonOf(
  arms: Arms,
  tests: UnpairedTests,
  iv: UnpairedIntervals,
  figures: GateFigures,
  pGatePaired: number | null,
  opts: MeasureOptions
): Comparison {
  const { base, cand, db, dc, direction } = arms
  const { welch, mw } = tests
  return {
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
    overhead_pct: figures.overhead,
    ci95: figures.ci,
    welch: { t: welch.t, df: welch.df, p: welch.p, defined: welch.defined },
    mann_whitney: { u: mw.u, p: mw.p, method: mw.method },
    tost: { margin_pct: opts.maxOverheadPct, p: figures.tostP, equivalent: figures.tostP < opts.alpha },
    p_adjusted: pGatePaired ?? tests.pGate,
    mde_pct: figures.mdePct,
    verdict: 'inconclusive',
    unit: arms.unit,
    direction,
    direction_source: arms.source,
    scope: comparisonScope(base, cand),
    sd_baseline: db.sd,
    sd_candidate: dc.sd,
    ci95_median: iv.ciMedian,
    ci_method: figures.ciMethod,
    ci95_median_method: iv.ciMedianMethod,
    runs_needed: null,
    outliers: {
      baseline: runNumbers(base, outliers(base.values).any),
      candidate: runNumbers(cand, outliers(cand.values).any)
    },
    reason: '',
    p_gate: pGatePaired ?? tests.pGate,
    p_source: pGatePaired !== null ? 'paired' : tests.gateFromMw ? 'mann-whitney' : 'welch',
    p_regression: figures.pRegression
  }
}

/** The blocks behind a paired test, and those the screen leaves out (agreement.ts). */
function addPaired(comparison: Comparison, paired: RatioTest, blocks: BlockRatios): void {
  const screened = screenedView(blocks.d, comparison.ci95)
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
