/** Text output of `gpu-overhead analyze`: a markdown table (verdict line first) or JSON. */
import { toJson } from '../util/json-intervals.js'
import { table } from './table.js'
import type { Analysis, Comparison } from '../types/index.js'
import { formatOverhead, formatP } from '../analyze/index.js'
import { SCOPE_WORD, cell, directionArrow } from './format.js'
import { noteMarkdown } from './notes.js'
import { isTailMetric } from '../config/index.js'

/** 4 significant digits, no exponent for ordinary magnitudes. */
function num(x: number): string {
  if (x === 0) return '0'
  const a = Math.abs(x)
  if (a >= 1e-3 && a < 1e7) return String(Number(x.toPrecision(4)))
  return x.toPrecision(3)
}

function label(c: Comparison): string {
  return cell(c.params === undefined ? c.workload : `${c.workload} ${c.params}`)
}

function comparisonTable(comparisons: readonly Comparison[]): string {
  const rows = comparisons.map(c => [
    label(c),
    `${cell(c.unit === '' ? c.metric : `${c.metric} (${c.unit})`)} ${directionArrow(c.direction)}`,
    SCOPE_WORD[c.scope],
    `${c.n_baseline}/${c.n_candidate}`,
    num(c.mean_baseline),
    num(c.mean_candidate),
    (c.undefined_stats ?? []).includes('overhead_pct')
      ? '–'
      : `${formatOverhead(c)}${c.ci_method === 'paired' ? ' paired' : c.history !== undefined ? '' : ' two-sample'}`,
    formatP(c.p_adjusted),
    formatP(c.tost.p),
    `${num(c.mde_pct)}%`,
    c.verdict
  ])
  return table(
    [
      [
        'Workload',
        'Metric',
        'Scope',
        'Runs (base/cand)',
        'Baseline mean',
        'Candidate mean',
        'Overhead [95% CI]',
        'p (Holm)',
        'TOST p',
        'MDE',
        'Verdict'
      ],
      ...rows
    ],
    ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']
  )
}

/**
 * The footnote under the table: what the overhead and its interval are, for the estimators the rows use
 * (issue 39, S10: paired rows are the ratio of request means within blocks, not the two-sample interval).
 */
export function estimatorFootnote(comparisons: readonly Comparison[]): string {
  const paired = comparisons.some(c => c.ci_method === 'paired')
  const twoSample = comparisons.some(c => c.ci_method !== 'paired')
  const parts = [
    'Overhead = ratio of the arms’ request means − 1 in the metric’s declared direction (↓ lower is better, ' +
      '↑ higher is better): positive = candidate worse; “–” when no ratio exists (a zero baseline). One value ' +
      'per process run: the mean of its iterations.'
  ]
  if (paired)
    parts.push(
      'Rows marked paired: the arms ran in blocks (one process of each arm, adjacent or at the same time); the ' +
        'overhead is the ratio of the request means over every block, with Fieller’s paired t interval on ' +
        'blocks − strata degrees of freedom (a duet’s GPU pairs are strata), so a state both processes of a ' +
        'block shared cancels; the means beside it are the arms’ means.'
    )
  if (comparisons.some(c => c.ci_method === 'paired' && isTailMetric(c.workload, c.metric)))
    parts.push(
      'Tail rows (p90/p99, one value per process): the geometric mean of the blocks’ ratios of the two ' +
        'processes’ percentiles, with the paired t interval on their logs; shown, and gated only where ' +
        'gate-metrics names them.'
    )
  if (twoSample)
    parts.push(
      `${paired ? 'Other rows: the arms as two samples; ' : ''}CI = wider of percentile bootstrap and Welch t ` +
        'delta-method (marked t).'
    )
  parts.push(
    'Gated metrics share one Holm family (with the stored-baseline comparisons); start-up, info and derived ' +
      'metrics are shown and never gate, tail metrics only where gate-metrics names them.'
  )
  return parts.join(' ')
}

/** Markdown: verdict line, table, one reason per comparison, notes, then the baseline comparison. */
/** The verdict in the words of the check's own report (`run`, `aggregate`): an undecided analysis is UNDECIDED. */
const VERDICT_WORD: Record<Analysis['verdict'], string> = {
  equivalent: 'PASS',
  improvement: 'PASS (improvement)',
  regression: 'REGRESSION',
  inconclusive: 'UNDECIDED',
  incomparable: 'INCOMPARABLE'
}

export function renderMarkdown(analysis: Analysis): string {
  const base = cell(analysis.baseline_env ?? 'baseline')
  const cand = cell(analysis.candidate_env ?? 'candidate')
  const gating = analysis.comparisons.filter(c => c.scope === 'steady').length
  const out: string[] = [
    analysis.error !== undefined
      ? `**Verdict: ERROR** — ${cell(analysis.error)}; ${cand} vs ${base}: nothing gated was tested, so nothing passed.`
      : `**Verdict: ${VERDICT_WORD[analysis.verdict]}** — ${cand} vs ${base}, max overhead ${analysis.max_overhead_pct}%, ` +
        `alpha ${analysis.alpha}, Holm across ${gating} gating comparison(s).`,
    ''
  ]
  if (analysis.comparisons.length === 0) out.push('Nothing to compare.', '')
  else {
    out.push(comparisonTable(analysis.comparisons), '')
    out.push(estimatorFootnote(analysis.comparisons), '')
    for (const c of analysis.comparisons) out.push(`- ${label(c)}/${cell(c.metric)}: ${cell(c.reason)}`)
    out.push('')
  }
  if (analysis.notes !== undefined && analysis.notes.length > 0) {
    out.push('Notes:', '')
    for (const n of analysis.notes) out.push(`- ${noteMarkdown(n)}`)
    out.push('')
  }
  const b = analysis.baseline
  if (b !== undefined) {
    out.push(`**Baseline (${b.status})**: ${cell(b.message)}`, '')
    if (b.comparisons.length > 0) {
      out.push(comparisonTable(b.comparisons), '')
      for (const c of b.comparisons)
        out.push(`- ${cell(c.candidate_env)} ${label(c)}/${cell(c.metric)}: ${cell(c.reason)}`)
      out.push('')
    }
  }
  return out.join('\n')
}

/** JSON: `{ comparisons, verdict, max_overhead_pct, alpha, ... }`; every number is finite. */
export function renderJson(analysis: Analysis): string {
  return toJson(analysis)
}
