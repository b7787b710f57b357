/**
 * Every statistic of one pair of per-run series (baseline arm, candidate arm). overhead =
 * candidate/baseline − 1 for lower-is-better metrics and baseline/candidate − 1 for higher-is-better
 * ones, so a positive overhead always means the candidate is worse.
 */
import type { Comparison, MetricScope } from '../../types/index.js'
import type { ArmSeries } from '../../results/index.js'
import { isStartupMetric } from '../../results/index.js'
import type { RatioTest } from '../stats/index.js'
import { outliers, logRatioTest, ratioTest, tInv } from '../stats/index.js'
import { maxOf, minOf } from '../../util/arrays.js'
import { finiteInterval } from './overhead-interval.js'
import { screenedView } from './agreement.js'
import {
  blockRatios,
  logToPct,
  MIN_BLOCKS,
  ratioBounds,
  ratioIntervalToPct,
  ratioToPct,
  type BlockRatios
} from './pairs.js'
import { isTailMetric } from '../../config/index.js'
import {
  describeArms,
  medianOf,
  POWER,
  unpairedFigures,
  unpairedIntervals,
  unpairedTests,
  type Arms,
  type GateFigures,
  type MeasureOptions,
  type UnpairedIntervals,
  type UnpairedTests
} from './unpaired.js'

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

/**
 * Blocks (run r of both arms, adjacent in the schedule) and their paired test, null below MIN_BLOCKS blocks.
 * Where they can be tested, the overhead, its interval, the tests and the MDE come from the ratio of the arms'
 * request means within blocks (stats/ratio-of-means.ts), so a host-wide state that both processes of a block
 * shared cancels. Without two testable blocks (no common runs, a constant ratio) the two-sample figures stand.
 */
function pairedBlocks(arms: Arms, opts: MeasureOptions): { blocks: BlockRatios; paired: RatioTest | null } {
  const { base, cand, direction } = arms
  // Runs that are no blocks (another tool's result files, numbered by the order they were named in) are
  // never paired: two samples (issue 51).
  const blocks =
    arms.positive && base.unblocked !== true && cand.unblocked !== true
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
    ci: ratioIntervalToPct(paired.ci),
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
