/**
 * The PR comment's notes: at most three, each short, each one a reviewer acts on (issue 51). A gated time that
 * includes start-up (what to do about it) and an undecided metric (what would decide it); the explainer's finding
 * is the verdict line's "why", not said again. No statistics terms, no parameter JSON, nothing the verdict line or
 * the table already says; the job summary keeps the rest. Pure.
 */
import type { CheckSummary, Comparison } from '../types/index.js'
import { code, fmtPlain } from './format.js'
import { ownWorkloadAdvice, runsToDecide } from './runs.js'
import { gatingComparisons } from './verdict.js'
import { includesStartup } from './whole-process.js'

/** The most notes a comment carries. */
export const MAX_COMMENT_NOTES = 3

const name = (c: Comparison): string => code(`${c.workload} ${c.metric}`)

/** A whole-process time among the gated ones: what it contains, and how to gate the work alone. */
function startupNote(gating: Comparison[]): string | null {
  const c = gating.find(x => includesStartup(x) && x.verdict !== 'equivalent')
  if (!c) return null
  const launch = /container/.test(c.candidate_env) ? 'and the container launch ' : ''
  // The verdict line's "why" gives the per-process difference; the note says what to do about it.
  return (
    `${name(c)} includes start-up ${launch}in every process: to gate the work alone, send samples from the ` +
    'command (docs/protocol.md) or name its result file.'
  )
}

/** The undecided metric that needs the most runs: what would decide it. */
function undecidedNote(summary: CheckSummary, gating: Comparison[]): string | null {
  const open = gating.filter(c => c.verdict === 'inconclusive')
  if (!open.length) return null
  const want = runsToDecide(summary, open)
  const c = want.metric ?? open[0]
  if (!c) return null
  const maxRuns = summary.config.max_runs
  const runs =
    want.runs !== null
      ? `~${want.runs} runs per arm would decide it${maxRuns ? ` (this check stopped by ${maxRuns})` : ''}`
      : want.never
        ? `its overhead sits on the ±${fmtPlain(summary.config.max_overhead_pct)}% limit, which no number of runs decides`
        : 'more runs per arm would decide it'
  const spread = ownWorkloadAdvice(summary, c) !== null
  return (
    `${name(c)} is undecided: ${runs}` +
    (spread
      ? '; its value varies a lot from process to process, so a steadier value per process decides it sooner'
      : '') +
    '.'
  )
}

export function commentNotes(summary: CheckSummary): string[] {
  const gating = gatingComparisons(summary)
  return [startupNote(gating), undecidedNote(summary, gating)]
    .filter((x): x is string => x !== null)
    .slice(0, MAX_COMMENT_NOTES)
}
