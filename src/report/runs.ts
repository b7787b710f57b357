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

/** A process-to-process spread wide enough that more processes are the wrong lever (20% in the field). */
const WIDE_SPREAD_PCT = 2

/**
 * What would decide an undecided metric of the user's own command, beside the runs-needed figure: the spread
 * between its processes, per arm, and the levers that shrink it. A command's value per process is what its
 * process measured (the median of its samples); when those differ by more than a few percent from process to
 * process, more processes buy little and a steadier value per process buys much: more samples per process, a
 * longer measured region, or whatever makes processes alike. Null for a built-in or a tight spread.
 */
export function ownWorkloadAdvice(summary: CheckSummary, c: Comparison): string | null {
  const commands = summary.config.commands ?? []
  if (!commands.some(x => x.name === c.workload)) return null
  const cv = (sd: number, mean: number): number | null =>
    Number.isFinite(sd) && Number.isFinite(mean) && mean !== 0 ? (100 * sd) / Math.abs(mean) : null
  const spreads = [
    [c.baseline_env, cv(c.sd_baseline, c.mean_baseline)],
    [c.candidate_env, cv(c.sd_candidate, c.mean_candidate)]
  ] as const
  const shown = spreads.filter((s): s is readonly [string, number] => s[1] !== null)
  if (shown.length === 0 || maxOf(shown.map(s => s[1])) < WIDE_SPREAD_PCT) return null
  const spread = shown.map(([env, v]) => `±${v < 10 ? v.toFixed(1) : v.toFixed(0)}% in ${env}`).join(', ')
  return (
    `${c.workload} ${c.metric} varied ${spread} from process to process (sd of the per-process values): ` +
    'what would decide it is a steadier value per process, not more processes: more samples per process ' +
    '(more iterations, epochs or requests in each), a longer measured region (time more work between the ' +
    'measure marks), or processes that start alike (the same data order and seed, warm caches, pinned CPUs)'
  )
}
