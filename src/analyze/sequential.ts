/**
 * Sequential stopping: after each interleaved pair of runs (from a minimum per arm), is every gated metric of
 * a workload decided — `equivalent` (TOST within ±max-overhead) or `regression` (overhead above max-overhead,
 * one-sided)? The check stops a workload as soon as it is, or when its run or time budget is spent.
 *
 * Looking after every pair would inflate both error rates if each look used the fixed-n alpha. We spend
 * alpha instead (Lan & DeMets 1983): the look at n runs per arm, information fraction t = n / max-runs, may
 * use only the increment α*(t_n) − α*(t_{n−1}) of a spending function α*, with α*(1) = α. Each look's test
 * runs at its own increment, so by the union bound (Bonferroni over looks) the chance of ever making a false
 * claim stays ≤ α whatever the correlation between looks and whatever the per-run distribution — slightly
 * conservative against exact group-sequential boundaries, which assume normal data and would not hold for the
 * bimodal and heavy-tailed per-run values seen on real GPUs. scripts/simulate-sequential.ts measures the
 * error rates and stop points (docs/sequential.md).
 *
 * Two claims, two budgets: a false regression spends `alphaRegression` (one-sided, like the fixed-n rule's
 * 95% CI lower end; Holm across the workload's gated metrics); a false equivalence spends `alphaEquivalence`
 * (TOST's level; an intersection–union test, so "all equivalent" needs no multiplicity correction).
 */
import jStat from 'jstat'
import { mean as ssMean } from 'simple-statistics'
import type { Direction } from '../types/index.js'
import { equivalenceBlocks, equivalenceBounds, ratioBounds } from './compare/index.js'
import {
  holm,
  logRatioTest,
  pairsToClear,
  ratioTest,
  tost,
  variance,
  type RatioBlocks
} from './stats/index.js'
import { minOf } from '../util/arrays.js'
import { at } from '../util/must.js'

/**
 * Pocock-type spends much of α early (decides easy metrics at the first looks); O'Brien–Fleming-type little;
 * `power` (Kim & DeMets 1987, α·t^ρ with ρ = POWER_RHO) as little as O'Brien–Fleming at the first look of the
 * default plan and more at the last ones.
 */
export type SpendingFunction = 'pocock' | 'obrien-fleming' | 'power'
export const SPENDING_FUNCTIONS: readonly SpendingFunction[] = ['pocock', 'obrien-fleming', 'power']

/**
 * ρ of the power family for the regression claim. Under the union bound each look tests at its increment only,
 * so the shape decides where the power is: the O'Brien–Fleming form left the last look of the default plan
 * (12 runs) 23% of α (0.0058 of 0.025), and a +3% at CV 0.5% — decided at the last looks — was flagged in
 * 94.8% of checks where a fixed 12-run test at 0.025 flags 99% (issue 28). ρ = 6 is the power family that
 * spends at the first look of that plan (3 of 12 runs, t = 1/4) what the O'Brien–Fleming form spends there
 * (2.4e-4·α vs 3.0e-4·α), so an early stop needs the same overwhelming evidence, and it keeps 41% of α for
 * the last look.
 */
export const POWER_RHO = 6

/**
 * `improvement`: the candidate is better by more than the margin (one-sided, at the equivalence level): not
 * equivalent, never a regression, and more runs would not change that, so it counts as decided for stopping.
 */
export type SequentialState = 'equivalent' | 'regression' | 'improvement' | 'undecided'

/** Cumulative alpha spent by information fraction t ∈ [0, 1] (Lan–DeMets forms). */
export function spentAlpha(kind: SpendingFunction, alpha: number, t: number): number {
  if (t <= 0) return 0
  const f = Math.min(1, t)
  if (kind === 'pocock') return alpha * Math.log(1 + (Math.E - 1) * f)
  if (kind === 'power') return alpha * f ** POWER_RHO
  // Two-sided O'Brien–Fleming form 2 − 2Φ(z_{1−α/2}/√t), which spends exactly α at t = 1.
  const z = jStat.normal.inv(1 - alpha / 2, 0, 1)
  return 2 - 2 * jStat.normal.cdf(z / Math.sqrt(f), 0, 1)
}

/**
 * The alpha one look may use: the increment of the spending function between n − 1 and n runs per arm
 * (the whole α*(nMin/nMax) at the first look). Depends on n only, so a skipped look (a failed run) simply
 * leaves its share unspent.
 */
export function lookAlpha(
  kind: SpendingFunction,
  alpha: number,
  n: number,
  nMin: number,
  nMax: number
): number {
  if (n < nMin || n > nMax || nMax < 1) return 0
  const at = (k: number): number => spentAlpha(kind, alpha, k / nMax)
  return n === nMin ? at(nMin) : at(n) - at(n - 1)
}

export interface SequentialOptions {
  maxOverheadPct: number
  /** Budget for a false regression claim (one-sided). */
  alphaRegression: number
  /** Budget for a false equivalence claim (TOST). */
  alphaEquivalence: number
  minRuns: number
  maxRuns: number
  /** Spending of the regression budget: the check keeps most of it for the later, better-powered looks (`power`). */
  spendingRegression: SpendingFunction
  /** Spending of the equivalence budget: Pocock lets a quiet metric be cleared at the first looks. */
  spendingEquivalence: SpendingFunction
  /**
   * Fewest runs per arm an equivalence claim needs (compare/mode-exclusion.ts: a slow mode met by a third of the
   * candidate's processes must have had its chance to show; default 10). The equivalence budget is spent over
   * the looks from here to max-runs, so none of it is lost on looks that could not claim.
   */
  equivalenceMinRuns?: number
}

/** One gated metric's per-run values (one value per process, as the analysis uses them). */
export interface SequentialSeries {
  metric: string
  direction: Direction
  baseline: readonly number[]
  candidate: readonly number[]
  /**
   * Blocks (compare/pairs.ts: each block's worse-way numerator and denominator, and its stratum). Given, the
   * look tests the ratio of request means within blocks (stats/ratio-of-means.ts, every block counted), so a
   * host state shared by both processes of a block cancels; absent, the arms are compared as two samples.
   */
  blocks?: RatioBlocks
  /** A per-process percentile (config/tail-metrics.ts): its blocks are tested on their log-ratios. */
  tail?: boolean
}

export interface MetricLook {
  metric: string
  state: SequentialState
  /** TOST p (max of the two one-sided p values). */
  pEquivalence: number
  /** One-sided p of "overhead ≤ max-overhead", Holm-adjusted within the look. */
  pRegression: number
  /** Runs per arm this metric would need to be decided at its current spread and effect (null: never). */
  runsToDecide: number | null
  /** `no-spread`: every run gave the same value (or ratio): nothing is testable, whatever the runs. */
  why?: 'no-spread'
}

export interface LookResult {
  /** Runs per arm this look used (the smaller arm). */
  n: number
  alphaRegression: number
  alphaEquivalence: number
  metrics: MetricLook[]
  /** Every gated metric is decided. */
  decided: boolean
}

const MAX_RUNS_SEARCH = 10_000

/**
 * Runs per arm at which a Welch one-sided test at the final look's level would clear `distance` (in the
 * metric's units) given the per-run sd of both arms — what an undecided metric would need.
 */
export function runsToClear(
  distance: number,
  sdB: number,
  sdC: number,
  opts: SequentialOptions,
  claim: { alpha: number; spending: SpendingFunction }
): number | null {
  if (!(distance > 0)) return null
  const s2 = sdB * sdB + sdC * sdC
  if (s2 === 0) return opts.minRuns
  for (let n = Math.max(2, opts.minRuns); n <= MAX_RUNS_SEARCH; n = n < 64 ? n + 1 : Math.ceil(n * 1.1)) {
    const level = lookAlpha(claim.spending, claim.alpha, n, opts.minRuns, Math.max(n, opts.maxRuns))
    const crit = jStat.studentt.inv(1 - level, 2 * n - 2)
    if (distance / Math.sqrt(s2 / n) >= crit) return n
  }
  return null
}

function sd(xs: readonly number[]): number {
  return Math.sqrt(variance(xs))
}

interface RawLook {
  pEq: number
  pReg: number
  pBetter: number
  /** Runs per arm that would decide it, if it stays undecided (computed lazily: only undecided metrics need it). */
  need: (pRegShare: number) => number | null
  noSpread: boolean
}

const UNTESTABLE = (noSpread: boolean): RawLook => ({
  pEq: 1,
  pReg: 1,
  pBetter: 1,
  need: () => null,
  noSpread
})

/** Two samples (no blocks): Welch-type TOST on the arms. Constant arms test nothing (a timer too coarse). */
function unpairedLook(s: SequentialSeries, opts: SequentialOptions): RawLook {
  const b = s.baseline
  const c = s.candidate
  if (b.length < 2 || c.length < 2) return UNTESTABLE(false)
  const sdB = sd(b)
  const sdC = sd(c)
  // Zero spread in both arms: p would be 0 or 1 by arithmetic alone, never by evidence.
  if (sdB === 0 && sdC === 0) return UNTESTABLE(true)
  const bounds = equivalenceBounds(ssMean([...b]), opts.maxOverheadPct, s.direction)
  const t = tost([...c], [...b], bounds.low, bounds.high)
  // Worse is a larger value for lower-is-better metrics and a smaller one for higher-is-better ones.
  const pReg = s.direction === 'lower' ? 1 - t.pUpper : 1 - t.pLower
  const pBetter = s.direction === 'lower' ? 1 - t.pLower : 1 - t.pUpper
  const need = (alphaReg: number): number | null => {
    const diff = ssMean([...c]) - ssMean([...b])
    const worse = s.direction === 'lower' ? bounds.high : bounds.low
    // Distance from the effect to the nearer decision: past the threshold (regression) or inside it.
    const beyond = s.direction === 'lower' ? diff > worse : diff < worse
    return beyond
      ? runsToClear(Math.abs(diff - worse), sdB, sdC, opts, {
          alpha: alphaReg,
          spending: opts.spendingRegression
        })
      : runsToClear(
          diff < bounds.low
            ? bounds.low - diff
            : diff > bounds.high
              ? diff - bounds.high
              : Math.min(diff - bounds.low, bounds.high - diff),
          sdB,
          sdC,
          opts,
          {
            alpha: opts.alphaEquivalence,
            spending: opts.spendingEquivalence
          }
        )
  }
  return { pEq: t.p, pReg, pBetter, need, noSpread: false }
}

/** Blocks: the ratio of request means within blocks (compare/pairs.ts, stats/ratio-of-means.ts). */
function pairedLook(blocks: RatioBlocks, opts: SequentialOptions, tail = false): RawLook {
  const bounds = ratioBounds(opts.maxOverheadPct)
  const t = (tail ? logRatioTest : ratioTest)(blocks, bounds.low, bounds.high, opts.alphaEquivalence)
  if (!t.defined) return UNTESTABLE(blocks.w.length >= 2)
  const need = (alphaReg: number): number | null => {
    // The spread of one block on the ratio scale, as if the blocks were one stratum (strata cost a little more).
    const sdW = t.sdRel * Math.sqrt(t.varFactor * t.n)
    const beyond = t.ratio > bounds.high
    const claim = beyond
      ? { alpha: alphaReg, spending: opts.spendingRegression }
      : { alpha: opts.alphaEquivalence, spending: opts.spendingEquivalence }
    // Past the threshold: to a regression; below the lower bound: to an improvement; else to equivalence.
    const distance = beyond
      ? t.ratio - bounds.high
      : t.ratio < bounds.low
        ? bounds.low - t.ratio
        : Math.min(t.ratio - bounds.low, bounds.high - t.ratio)
    return pairsToClear(
      distance,
      sdW,
      n => lookAlpha(claim.spending, claim.alpha, n, opts.minRuns, Math.max(n, opts.maxRuns)),
      opts.minRuns,
      MAX_RUNS_SEARCH
    )
  }
  return { pEq: t.pEquivalent, pReg: t.pAbove, pBetter: t.pBelow, need, noSpread: false }
}

/** Decide what this look allows, metric by metric, for one workload's gated metrics. */
export function sequentialLook(series: readonly SequentialSeries[], opts: SequentialOptions): LookResult {
  const n = minOf(
    series.map(s =>
      s.blocks !== undefined ? s.blocks.w.length : Math.min(s.baseline.length, s.candidate.length)
    )
  )
  const aReg = lookAlpha(opts.spendingRegression, opts.alphaRegression, n, opts.minRuns, opts.maxRuns)
  const aEq = lookAlpha(opts.spendingEquivalence, opts.alphaEquivalence, n, opts.minRuns, opts.maxRuns)
  const eqMin = Math.max(opts.minRuns, opts.equivalenceMinRuns ?? equivalenceBlocks())
  const aEqClaim = lookAlpha(opts.spendingEquivalence, opts.alphaEquivalence, n, eqMin, opts.maxRuns)
  const raw = series.map(s =>
    s.blocks !== undefined ? pairedLook(s.blocks, opts, s.tail === true) : unpairedLook(s, opts)
  )
  const pRegAdj = holm(raw.map(r => r.pReg))
  const metrics = series.map((s, i): MetricLook => {
    const r = at(raw, i)
    const pReg = at(pRegAdj, i)
    const state: SequentialState =
      n >= opts.minRuns && aReg > 0 && pReg < aReg
        ? 'regression'
        : n >= eqMin && aEqClaim > 0 && r.pEq < aEqClaim
          ? 'equivalent'
          : n >= opts.minRuns && aEq > 0 && r.pBetter < aEq
            ? 'improvement'
            : 'undecided'
    const need = state === 'undecided' ? r.need(opts.alphaRegression / series.length) : null
    return {
      metric: s.metric,
      state,
      pEquivalence: r.pEq,
      pRegression: pReg,
      runsToDecide: need,
      ...(state === 'undecided' && r.noSpread ? { why: 'no-spread' as const } : {})
    }
  })
  return {
    n,
    alphaRegression: aReg,
    alphaEquivalence: aEq,
    metrics,
    decided: metrics.length > 0 && metrics.every(m => m.state !== 'undecided')
  }
}

/** "tpot_ms undecided (~14 runs per arm would decide it)" lines for the report and the log. */
export function describeUndecided(look: LookResult): string[] {
  return look.metrics
    .filter(m => m.state === 'undecided')
    .map(m =>
      m.why === 'no-spread'
        ? `${m.metric}: undecided (every run gave the same value: no spread to test against, likely the timer's resolution)`
        : m.runsToDecide === null
          ? `${m.metric}: undecided (its effect sits on the ±threshold: no number of runs decides it)`
          : `${m.metric}: undecided (~${m.runsToDecide} runs per arm would decide it)`
    )
}
