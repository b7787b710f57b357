/**
 * The one Holm family rule, used by `run`, `analyze` and `aggregate` alike (README, "Multiple metrics"):
 * every GATED comparison of one report is one family — each candidate arm against the baseline arm, on
 * every primary metric, plus every comparison of this check with its stored baseline. Start-up, info and
 * derived metrics are reported only and are not in it. A fleet report has one family per group, since
 * each group is its own report of identical fingerprints.
 */
import type { Comparison, MetricVerdict } from '../types/index.js'
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
