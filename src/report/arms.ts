/** Arm order and per-arm grouping of comparisons. Pure. */
import type { CheckSummary, Comparison } from '../types/index.js'

/** Arm labels in the order the check declared them. */
export function armLabels(summary: CheckSummary): string[] {
  const labels = summary.arms.map(a => a.label)
  return labels.length ? labels : summary.config.arms
}

/** Sort key of an arm label: its declared position; undeclared labels after, in first-seen order. */
export function armRank(summary: CheckSummary): (label: string) => number {
  const labels = armLabels(summary)
  return label => {
    const i = labels.indexOf(label)
    return i === -1 ? labels.length : i
  }
}

/** A comparison's arm pair as one key. */
export function pairKey(c: Pick<Comparison, 'baseline_env' | 'candidate_env'>): string {
  return `${c.baseline_env}\u0000${c.candidate_env}`
}
