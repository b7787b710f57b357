/**
 * Run counts the report states, each from one source so the first screen never says two things: the runs
 * per arm that were actually analysed (sequential stopping may go past `runs`), and, for an undecided
 * gated metric, one runs-needed figure — the sequential rule's when it ran (the rule that decides the
 * check), the power estimate only for a fixed count. Pure.
 */
import { seriesKey } from '../analyze/index.js'
import type { CheckSummary, Comparison } from '../types/index.js'
import { maxOf, minOf } from '../util/arrays.js'

const range = (counts: number[]): string => {
  const lo = minOf(counts)
  const hi = maxOf(counts)
  return lo === hi ? `${lo}` : `${lo}–${hi}`
}

/** "12 runs per arm", or "3–12 runs per arm" where workloads stopped at different counts. */
export function runsPerArm(summary: CheckSummary): string {
  const stops = (summary.sequential ?? []).map(s => s.runs_per_arm)
  const analysed = (summary.analysis?.comparisons ?? [])
    .filter(c => c.scope === 'steady')
    .flatMap(c => [c.n_baseline, c.n_candidate])
  const counts = stops.length ? stops : analysed.length ? analysed : [summary.config.runs]
  const text = range(counts)
  return `${text} run${text === '1' ? '' : 's'} per arm`
}

export interface RunsNeeded {
  /** Runs per arm that would decide it; null when no number would (its effect sits on the threshold). */
  runs: number | null
  rule: 'sequential' | 'power'
}

/** What would decide an inconclusive gated comparison; null when nothing can be said. */
export function runsNeeded(summary: CheckSummary, c: Comparison): RunsNeeded | null {
  const stop = summary.sequential?.find(s => s.workload === c.workload)
  const key = seriesKey(c.params ?? '', c.metric)
  const seq = stop?.metrics.find(m => m.candidate === c.candidate_env && m.key === key)
  if (seq?.state === 'undecided') return { runs: seq.runs_to_decide, rule: 'sequential' }
  return c.runs_needed ? { runs: c.runs_needed, rule: 'power' } : null
}

export interface RunsToDecide {
  /** The most runs per arm any undecided gated metric needs: its runsNeeded figure, as the table shows it. */
  runs: number | null
  /** The metric that needs them. */
  metric: Comparison | null
  /** Some undecided metric sits on the threshold, where no number of runs decides it. */
  never: boolean
}

/**
 * The runs per arm that would decide every undecided comparison of `comparisons`: the largest of their
 * runsNeeded figures, so the verdict line quotes a number the table shows for the metric it names (issue 28:
 * the line said ~800 from one source while the table said 780 from another).
 */
export function runsToDecide(summary: CheckSummary, comparisons: readonly Comparison[]): RunsToDecide {
  const out: RunsToDecide = { runs: null, metric: null, never: false }
  for (const c of comparisons) {
    if (c.verdict !== 'inconclusive') continue
    const need = runsNeeded(summary, c)
    if (need === null) continue
    if (need.runs === null) out.never = true
    else if (out.runs === null || need.runs > out.runs) {
      out.runs = need.runs
      out.metric = c
    }
  }
  return out
}
