/** The one-line verdict and the fail/pass decision. Pure. */
import { capOfParams } from '../analyze/index.js'
import { WHY_ANCHOR } from './why.js'
import type { CheckSummary, Comparison, PreflightResult } from '../types/index.js'
import { fmtPctCi, fmtPlain, inline, redact } from './format.js'
import { ownWorkloadAdvice, runsNeeded, runsToDecide } from './runs.js'
import { plainText } from '../util/text.js'
import { at } from '../util/must.js'
import { setting } from '../util/setting-name.js'
import { includesStartup, startupWords } from './whole-process.js'

/** How recorded names are written into a line: `inline` for markdown, `plainText` for logs and annotations. */
type Escape = (text: string) => string

/** Steady-state comparisons: the only ones that gate. */
export function gatingComparisons(summary: CheckSummary): Comparison[] {
  return summary.analysis?.comparisons.filter(c => c.scope === 'steady') ?? []
}

export function failedPreflight(summary: CheckSummary): PreflightResult[] {
  return summary.preflight.filter(p => p.status === 'fail')
}

/**
 * `matmul kernel_ms +3.10% [+2.60, +3.50]`; with `arms`, the pair is named too
 * (`matmul kernel_ms (container:img vs native) +3.48% …`), for checks of more than two arms.
 */
export function describeComparison(c: Comparison, arms = false, esc: Escape = plainText): string {
  const pair = arms ? ` (${esc(c.candidate_env)} vs ${esc(c.baseline_env)})` : ''
  return `${esc(workloadName(c))} ${esc(c.metric)}${startupWords(c)}${pair} ${fmtPctCi(c.overhead_pct, c.ci95)}`
}

/** `llm tpot_ms`, with its arms where the check has several pairs. */
function metricName(c: Comparison, arms: boolean, esc: Escape = plainText): string {
  return `${esc(workloadName(c))} ${esc(c.metric)}` + (arms ? ` (${esc(c.candidate_env)})` : '')
}

/** `matmul`, or `matmul @ 400 W` for a run of a power-cap sweep. */
export function workloadName(c: { workload: string; params?: string }): string {
  const cap = capOfParams(c.params)
  return cap === null ? c.workload : `${c.workload} @ ${cap} W`
}

/** Largest overhead first, so the headline names the worst case. */
function worstFirst(list: Comparison[]): Comparison[] {
  return [...list].sort((a, b) => b.overhead_pct - a.overhead_pct)
}

/** One line, no trailing full stop (clauses are joined with semicolons), at most `max` characters. */
function clip(text: string, max = 300, esc: Escape = inline): string {
  return esc(plainText(text, max).trim().replace(/\.+$/, ''))
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** `container` vs `native` when every gating comparison is the same pair, else generic words. */
export function armPair(comparisons: Comparison[]): { baseline: string; candidate: string } | null {
  const first = comparisons[0]
  if (!first) return null
  const same = comparisons.every(
    c => c.baseline_env === first.baseline_env && c.candidate_env === first.candidate_env
  )
  return same ? { baseline: first.baseline_env, candidate: first.candidate_env } : null
}

function limit(summary: CheckSummary): string {
  return `${fmtPlain(summary.analysis?.max_overhead_pct ?? summary.config.max_overhead_pct)}%`
}

/** Whether the gating comparisons span several arm pairs, so each metric must name its arms. */
function severalPairs(summary: CheckSummary): boolean {
  const gating = gatingComparisons(summary)
  return gating.length > 0 && armPair(gating) === null
}

function regressionClause(summary: CheckSummary, regressions: Comparison[], esc: Escape): string {
  const [worst, ...rest] = worstFirst(regressions)
  if (!worst) return ''
  const arms = severalPairs(summary)
  const pairs = new Set(regressions.map(c => `${c.baseline_env}\u0000${c.candidate_env}`)).size
  const where = arms && pairs > 1 ? ` in ${pairs} arms` : ''
  const more = rest.length ? ` (and ${plural(rest.length, 'more metric')}${where})` : ''
  return `${describeComparison(worst, arms, esc)} over the ${limit(summary)} limit${more}`
}

/**
 * The PR comment's form of a reason (brief): its first sentence, at most 160 characters; the job summary keeps
 * the whole of it.
 */
function briefReason(text: string, esc: Escape = inline): string {
  const first = plainText(text, 600).split(/(?<=[.;:])\s+(?=[A-Z(])|;\s+/)[0] ?? text
  return clip(first, 160, esc)
}

/** What the gating comparisons say, as a clause: used for pass and for partial results. */
function outcomeClause(summary: CheckSummary, esc: Escape = inline, brief = false): string {
  const gating = gatingComparisons(summary)
  if (!gating.length) return 'no gated steady-state metrics were measured'
  const count = (v: Comparison['verdict']): Comparison[] => gating.filter(c => c.verdict === v)
  const regressions = count('regression')
  if (regressions.length) return regressionClause(summary, regressions, esc)
  const pair = armPair(gating)
  const baselines = new Set(gating.map(c => c.baseline_env))
  const who = pair
    ? `${esc(pair.candidate)} overhead vs ${esc(pair.baseline)}`
    : baselines.size === 1
      ? `overhead vs ${esc(at([...baselines], 0))}`
      : 'overhead'
  const candidates = new Set(gating.map(c => c.candidate_env)).size
  const metrics = `${plural(gating.length, 'gated metric')}${pair ? '' : ` of ${candidates} arms`}`
  const inconclusive = count('inconclusive')
  const incomparable = count('incomparable')
  // An improvement is outside ±limit too: "within ±2% on all" would misstate it.
  const improvements = gating.filter(c => (c.verdict as string) === 'improvement')
  if (!inconclusive.length && !incomparable.length && !improvements.length)
    return `${who} within ±${limit(summary)} on ${gating.length === 1 && pair ? 'its gated metric' : `all ${metrics}`}`
  // Brief (the PR comment): plain words; "significant" is the job summary's term.
  const parts = [
    brief
      ? `${who} not shown above ${limit(summary)} on ${metrics}`
      : `no significant ${who} above ${limit(summary)} on ${metrics}`
  ]
  const [best] = improvements
  if (best)
    parts.push(
      `${plural(improvements.length, 'improvement')} beyond −${limit(summary)} (${describeComparison(best, !pair, esc)})`
    )
  const [first] = inconclusive
  if (first) {
    const need = runsNeeded(summary, first)
    const runs = need?.runs ? `, needs ~${need.runs} runs per arm` : ''
    parts.push(`${inconclusive.length} inconclusive (${describeComparison(first, !pair, esc)}${runs})`)
  }
  if (incomparable.length) parts.push(`${incomparable.length} incomparable`)
  return parts.join('; ')
}

function preflightClause(failed: PreflightResult[], esc: Escape = inline): string {
  return failed.map(p => `${esc(p.name)}: ${clip(p.message, 300, esc)}`).join('; ')
}

/**
 * Bold status word, an em dash, and why. Never longer than a few hundred characters. `whyHref`: where the
 * "why" clause links — the section's anchor in the full report; a document without that section (the PR
 * comment) passes the job summary's URL, or null for plain text.
 */
export function verdictLine(
  summary: CheckSummary,
  whyHref: string | null = WHY_ANCHOR,
  options: { brief?: boolean } = {}
): string {
  const failed = failedPreflight(summary)
  const gating = gatingComparisons(summary)
  // Brief (the PR comment): every kind of verdict in plain words, its reason cut to its first sentence.
  const brief = options.brief === true
  const reason = (text: string): string => (brief ? briefReason(text) : clip(text))
  const outcome = (): string => outcomeClause(summary, inline, brief)
  const preflight = (): string =>
    brief
      ? failed.map(p => `${inline(p.name)}: ${briefReason(p.message)}`).join('; ')
      : preflightClause(failed)
  let line: string
  if (!summary.complete) {
    const measured = summary.analysis
      ? `measured before the stop: ${outcome()}`
      : 'nothing analysable was measured'
    line = `**INCOMPLETE** — ${reason(summary.incomplete_reason ?? 'the check stopped early')}; ${measured}`
  } else if (summary.verdict === 'regression') {
    line = `**REGRESSION** — ${regressionClause(
      summary,
      gating.filter(c => c.verdict === 'regression'),
      inline
    )}`
    if (failed.length) line += `; preflight failed: ${preflight()}`
  } else if (failed.length) {
    line = `**PREFLIGHT FAILED** — ${preflight()}`
    if (summary.analysis) line += `; measured: ${outcome()}`
  } else if (summary.verdict === 'incomparable') {
    const why =
      gating.find(c => c.verdict === 'incomparable')?.reason ??
      'the arms ran on environments that differ in ways that matter'
    line = `**INCOMPARABLE** — ${brief ? briefReason(why) : clip(why)}; no regression verdict given`
  } else if (summary.verdict === 'error') {
    const why = summary.incomplete_reason ?? summary.warnings[0] ?? 'the check did not produce results'
    line = `**ERROR** — ${reason(why)}`
  } else if (summary.verdict === 'inconclusive') {
    // Brief (the PR comment): which metric is open; what would decide it is one of the comment's notes.
    line = `**UNDECIDED** (${undecidedGate(summary)}) — ${options.brief ? openClause(summary, inline) : undecidedClause(summary, inline)}`
  } else {
    line = `**PASS** — ${outcome()}`
  }
  const why = whyClause(summary, whyHref)
  if (why) line += ` · ${why}`
  return redact(line)
}

/** What an undecided check does to the gate, as the first line says it. */
function undecidedGate(summary: CheckSummary): string {
  const policy = summary.config.on_inconclusive ?? 'neutral'
  if (policy === 'fail') return 'check fails: on-inconclusive fail'
  if (policy === 'pass') return 'gate passes: on-inconclusive pass'
  return 'neutral: not a pass'
}

/** `2 of 8 gated metrics undecided (llm tpot_ms +1.05% [−3.13, +5.42])`. */
function openClause(summary: CheckSummary, esc: Escape): string {
  const gating = gatingComparisons(summary)
  const open = worstFirst(gating.filter(c => c.verdict === 'inconclusive'))
  const first = open[0]
  return (
    `${open.length} of ${plural(gating.length, 'gated metric')} undecided` +
    (first ? ` (${describeComparison(first, !armPair(gating), esc)})` : '')
  )
}

/** `2 of 8 gated metrics undecided (llm tpot_ms +1.05% [−3.13, +5.42]); ~40 runs per arm would decide them …` */
function undecidedClause(summary: CheckSummary, esc: Escape): string {
  const gating = gatingComparisons(summary)
  const open = worstFirst(gating.filter(c => c.verdict === 'inconclusive'))
  const pair = armPair(gating)
  const parts = [openClause(summary, esc)]
  // The same figure the table gives the metric that needs the most (runsNeeded, one source).
  const want = runsToDecide(summary, open)
  const stops = summary.sequential ?? []
  const maxRuns = summary.config.max_runs ?? null
  if (want.runs !== null) {
    const most =
      open.length > 1 && want.metric !== null ? `${metricName(want.metric, !pair, esc)} needs the most` : null
    const notes = [most, maxRuns !== null ? `max-runs ${maxRuns}` : null].filter(Boolean)
    parts.push(
      `~${want.runs} runs per arm would decide ${open.length === 1 ? 'it' : 'them'}` +
        (notes.length > 0 ? ` (${notes.join('; ')})` : '')
    )
  }
  if (want.never) parts.push('an effect on the ±threshold is decided by no number of runs')
  // An own workload that varies between processes: what would decide it, not only how many runs.
  const advice = open.map(c => ownWorkloadAdvice(summary, c)).find(a => a !== null)
  if (advice) parts.push(advice)
  const futile = stops.filter(s => s.reason === 'futile').map(s => esc(s.workload))
  if (futile.length > 0)
    parts.push(`${futile.join(', ')} stopped for futility: the runs needed far exceed max-runs`)
  return parts.join('; ')
}

/** On a regression or an undecided gate: what most likely explains it, linked to the section. */
function whyClause(summary: CheckSummary, href: string | null): string | null {
  const e = summary.explanation
  // A regression, an undecided gate, or arms that differ the other way (an improvement) want a reason.
  const undecided =
    summary.verdict === 'regression' ||
    summary.verdict === 'inconclusive' ||
    gatingComparisons(summary).some(c => (c.verdict as string) === 'improvement')
  if (!undecided) return null
  // A gate that rests on whole-process times alone: what they contain is the reason, not the stacks' facts.
  const open = gatingComparisons(summary).filter(
    c => c.verdict === (summary.verdict === 'regression' ? 'regression' : 'inconclusive')
  )
  const [w] = open
  if (w && open.every(includesStartup)) {
    const diff = (w.mean_candidate - w.mean_baseline) * 1000
    const text = `why: the whole process is timed, start-up and ${/container/.test(w.candidate_env) ? 'the container launch' : 'process start'} included (${diff >= 0 ? '+' : '−'}${fmtPlain(Math.round(Math.abs(diff)))} ms per process)`
    return href === null ? text : `[${clip(text)}](${href})`
  }
  if (!e) return null
  // clip escapes the headline for markdown (brackets included), so it can sit inside the link text.
  return href === null ? `why: ${clip(e.headline, 300, plainText)}` : `[why: ${clip(e.headline)}](${href})`
}

/**
 * Whether the action should fail, as a one-line reason; null to pass.
 * Only with fail-on-regression: a regression verdict, any preflight check that failed (driver gate, I/O rule),
 * or an undecided check under on-inconclusive `fail`.
 */
export function decideFailure(summary: CheckSummary, failOnRegression: boolean): string | null {
  if (!failOnRegression) return null
  const reasons: string[] = []
  if (summary.verdict === 'regression') {
    const regressions = gatingComparisons(summary).filter(c => c.verdict === 'regression')
    reasons.push(
      regressions.length
        ? `overhead regression: ${regressionClause(summary, regressions, plainText)}`
        : 'overhead regression (see the report)'
    )
  }
  const failed = failedPreflight(summary)
  if (failed.length) reasons.push(`preflight failed: ${preflightClause(failed, plainText)}`)
  if (summary.verdict === 'inconclusive' && summary.config.on_inconclusive === 'fail')
    reasons.push(`undecided (${setting('on-inconclusive', 'fail')}): ${undecidedClause(summary, plainText)}`)
  return reasons.length ? redact(reasons.join('; ')) : null
}
