/**
 * The one Holm family rule, used by `run`, `analyze` and `aggregate` alike (README, "Multiple metrics"):
 * every GATED comparison of one report is one family — each candidate arm against the baseline arm, on
 * every primary metric, plus every comparison of this check with its stored baseline. Start-up, info and
 * derived metrics are reported only and are not in it. A fleet report has one family per group, since
 * each group is its own report of identical fingerprints.
 */
import type { Analysis, Comparison, MetricVerdict } from '../types/index.js'
import type { DecideOptions } from './compare/index.js'
import { decide, overallVerdict } from './compare/index.js'

export interface DecidedFamily {
  arms: Comparison[]
  baseline: Comparison[]
  /** Overall verdict over both (a regression against the stored baseline counts). */
  verdict: MetricVerdict
}

export function decideFamily(
  arms: readonly Comparison[],
  baseline: readonly Comparison[],
  opts: DecideOptions
): DecidedFamily {
  const joint = decide([...arms, ...baseline], opts)
  return {
    arms: joint.slice(0, arms.length),
    baseline: joint.slice(arms.length),
    verdict: overallVerdict(joint)
  }
}

/** What a check's sequential controller does to its analysis (sequential-check.ts, `applyTo`). */
export interface SequentialStop {
  applyTo(analysis: Analysis): Analysis
}

/**
 * A check's report: the arms and the stored-baseline comparisons decided as one family, then, where the check
 * stopped by looking, the arms' verdicts cut to the sequential rule's. In this order, because `decide` reads a
 * comparison afresh at the fixed-count levels: run after the controller's downgrades, it undid them (issue 52,
 * T9: a clean +2% check with a stored baseline read equivalent in 4.6% instead of 3.1%, one beside a repeated
 * interval reaching +2.26%). The controller only ever keeps or lowers a verdict, so the family's stricter Holm
 * levels still hold; the stored-baseline comparisons are not the sequential rule's and keep the family's.
 */
export function decideCheck(
  analysis: Analysis,
  baseline: readonly Comparison[],
  opts: DecideOptions,
  sequential: SequentialStop | null
): { analysis: Analysis; baseline: Comparison[] } {
  const family = baseline.length > 0 ? decideFamily(analysis.comparisons, baseline, opts) : null
  const decided = family === null ? analysis : { ...analysis, comparisons: family.arms }
  const stopped = sequential === null ? decided : sequential.applyTo(decided)
  const both = [...stopped.comparisons, ...(family?.baseline ?? [])]
  return {
    analysis: { ...stopped, verdict: overallVerdict(both) },
    baseline: family?.baseline ?? [...baseline]
  }
}
