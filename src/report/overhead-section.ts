/** The gated table: steady-state overhead per metric, with what the table alone cannot say. Pure. */
import type { CheckSummary, Comparison } from '../types/index.js'
import { armRank } from './arms.js'
import { comparisonTable } from './comparison-table.js'
import { VERDICT_WORDS, cell, code, fmtNum, fmtPlain, inline } from './format.js'
import { analysisNotes } from './notes.js'
import { ownWorkloadAdvice, runsNeeded } from './runs.js'
import type { Section } from './section.js'
import { armPair, gatingComparisons } from './verdict.js'
import { first } from '../util/must.js'
import { includesStartup, startupCause } from './whole-process.js'

function sentence(text: string): string {
  const t = inline(text).trim()
  return /[.!?]$/.test(t) ? t : `${t}.`
}

/** Whether the smallest detectable effect was computed (not a placeholder for n < 2 or zero spread). */
function hasMde(c: Comparison): boolean {
  return c.mde_pct > 0 && Number.isFinite(c.mde_pct) && !(c.undefined_stats ?? []).includes('mde_pct')
}

/** Share of a measured region's telemetry samples throttled from which an undecided metric's note names it. */
const THROTTLE_NOTE_SHARE = 0.05

/**
 * Why an undecided metric's processes spread, when the GPU says so: throttled samples over the workload's
 * measured regions in its arms (a hot or power-capped GPU slows processes unevenly, in both arms alike).
 */
function throttleNote(summary: CheckSummary, c: Comparison): string {
  // Every GPU the arm's processes ran on (a multi-GPU check has one entry per GPU).
  const arms = [c.baseline_env, c.candidate_env].flatMap(env => {
    const regions = (summary.telemetry ?? []).flatMap(x =>
      x.workload === c.workload && x.environment === env && x.region ? [x.region] : []
    )
    const t = {
      samples: regions.reduce((a, r) => a + r.samples, 0),
      throttled_samples: regions.reduce((a, r) => a + r.throttled_samples, 0),
      reasons: regions.flatMap(r => r.reasons)
    }
    return t.samples > 0 && t.throttled_samples > 0 ? [{ env, t }] : []
  })
  if (!arms.some(a => a.t.throttled_samples / a.t.samples >= THROTTLE_NOTE_SHARE)) return ''
  const counts = arms.map(a => `${a.t.throttled_samples} of ${a.t.samples} (${code(a.env)})`).join(' and ')
  const reasons = [...new Set(arms.flatMap(a => a.t.reasons))].sort()
  return (
    ` The GPU was throttled in ${counts} telemetry samples over the measured regions` +
    `${reasons.length ? ` (${inline(reasons.join(', '))})` : ''}: a hot or power-capped GPU slows processes ` +
    'unevenly, which widens the interval; a cooler, idle GPU decides it sooner.'
  )
}

/**
 * What the table cannot say. Regressions and equivalences need no note (the table and the verdict line
 * say it all); inconclusive metrics get what would resolve them, incomparable ones why (shared reasons
 * share a line).
 */
function comparisonNotes(
  summary: CheckSummary,
  list: Comparison[],
  maxOverhead: number,
  arms: boolean
): string[] {
  const name = (c: Comparison): string =>
    code(`${c.workload} ${c.metric}`) + (arms ? ` (${inline(c.candidate_env)})` : '')
  const lines: string[] = []
  for (const c of list.filter(x => x.verdict === 'inconclusive')) {
    // One runs-needed figure per metric: the sequential rule's when it ran (its stop note says the same), the
    // one the verdict line quotes for the metric that needs the most (runsToDecide).
    const need = runsNeeded(summary, c)
    const runs =
      need === null
        ? ''
        : need.rule === 'power'
          ? `; ~${need.runs} runs per arm would detect a ${fmtPlain(maxOverhead)}% difference (80% power)`
          : need.runs === null
            ? `; its effect sits on the ±${fmtPlain(maxOverhead)}% threshold: no number of runs decides it`
            : `; ~${need.runs} runs per arm would decide it (sequential rule)`
    if (!hasMde(c)) {
      lines.push(
        `- ${name(c)} inconclusive: ${runs ? `${sentence(c.reason).replace(/\.$/, '')}${runs}.` : sentence(c.reason)}` +
          throttleNote(summary, c)
      )
      continue
    }
    const advice = ownWorkloadAdvice(summary, c)
    lines.push(
      `- ${name(c)} inconclusive: smallest detectable effect ${fmtNum(c.mde_pct)}% at ${c.n_baseline}+${c.n_candidate} runs${runs}.` +
        (advice === null ? '' : ` ${cell(advice.charAt(0).toUpperCase() + advice.slice(1))}.`) +
        throttleNote(summary, c)
    )
  }
  const groups = new Map<string, Comparison[]>()
  for (const c of list.filter(x => x.verdict === 'incomparable'))
    groups.set(c.reason, [...(groups.get(c.reason) ?? []), c])
  for (const group of groups.values())
    lines.push(`- ${group.map(name).join(', ')} incomparable: ${sentence(first(group).reason)}`)
  return lines
}

/** One gated table with its notes; `extra` lines first (what the table's rows contain). */
function gatedPart(
  summary: CheckSummary,
  title: string,
  list: Comparison[],
  extra: string[],
  general: boolean
): string {
  const max = summary.analysis?.max_overhead_pct ?? summary.config.max_overhead_pct
  const notes = [
    ...extra,
    ...comparisonNotes(summary, list, max, armPair(list) === null),
    ...(general ? analysisNotes(summary, 'steady') : [])
  ]
  const table = comparisonTable(list, { armRank: armRank(summary), words: VERDICT_WORDS, holm: true })
  return `## ${title}\n\n${table}${notes.length ? `\n\n${notes.join('\n')}` : ''}`
}

/**
 * The gated tables: steady state, and apart from it any gated metric that times a whole process (start-up and
 * the container launch included: whole-process.ts), with what its rows contain said beside them.
 */
export function overheadSection(summary: CheckSummary): Section {
  const gating = gatingComparisons(summary)
  const whole = gating.filter(includesStartup)
  const steady = gating.filter(c => !includesStartup(c))
  let body: string
  if (!summary.analysis) {
    body =
      '## Steady-state overhead (gated)\n\nNothing was analysed: no steady-state samples reached the analysis (see preflight and not measured).'
  } else if (!gating.length) {
    body = '## Steady-state overhead (gated)\n\nNo steady-state metric was compared.'
  } else {
    const parts: string[] = []
    if (steady.length) parts.push(gatedPart(summary, 'Steady-state overhead (gated)', steady, [], true))
    if (whole.length)
      parts.push(
        gatedPart(
          summary,
          'Whole-process time (gated, start-up included)',
          whole,
          whole.map(c => `- ${startupCause(summary, c)}`),
          !steady.length
        )
      )
    body = parts.join('\n\n')
  }
  const title = steady.length || !whole.length ? 'Steady-state overhead' : 'Whole-process time'
  return { id: 'overhead', kind: 'core', title, body }
}
