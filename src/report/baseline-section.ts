/** The comparison against the stored baseline (the check is the unit: a prediction interval). Pure. */
import type { CheckSummary, Comparison, HistoryFacts } from '../types/index.js'
import {
  SCOPE_WORD,
  VERDICT_WORDS,
  cell,
  code,
  fmtNum,
  fmtOverheadCi,
  fmtP,
  fmtPct,
  fmtValue,
  inline,
  metricLabel
} from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'

/**
 * Which stored checks formed each comparison's reference, and which were left out (issue 28, D6): one line per
 * group of comparisons that share them.
 */
function referenceLines(comparisons: readonly Comparison[]): string[] {
  const groups = new Map<string, { names: string[]; h: HistoryFacts; reference: string[] }>()
  for (const c of comparisons) {
    const h = c.history
    const reference = h?.reference
    if (h === undefined || reference === undefined) continue
    const key = JSON.stringify([h.reference, h.left_out ?? []])
    const name = `${code(`${c.workload} ${c.metric}`)} (${inline(c.candidate_env)})`
    const g = groups.get(key)
    if (g) g.names.push(name)
    else groups.set(key, { names: [name], h, reference })
  }
  const lines: string[] = []
  for (const { names, h, reference } of groups.values()) {
    const who = groups.size === 1 ? 'Every comparison' : names.join(', ')
    let line = `- ${who}: the reference is the stored check${reference.length === 1 ? '' : 's'} ${reference.map(code).join(', ')}`
    const out = h.left_out ?? []
    if (out.length > 0)
      line +=
        `; left out ${out.map(l => `${code(l.check)} (${fmtPct(l.overhead_pct)} against the others)`).join(', ')}: ` +
        `the other stored checks would have flagged ${out.length === 1 ? 'it' : 'them'} (interval wholly above the limit), ` +
        'so it is an outlier check, not the level'
    lines.push(`${line}.`)
  }
  // How far the rolling reference has moved from the anchor (issue 39, S11), one line per arm and metric.
  for (const c of comparisons) {
    const a = c.history?.anchor
    if (a === undefined || c.history?.against === 'anchor') continue
    lines.push(
      `- ${code(`${c.workload} ${c.metric}`)} (${inline(c.candidate_env)}): the reference has moved ${fmtPct(a.moved_pct)} ` +
        `from the ${a.pinned ? 'pinned ' : ''}anchor (${a.checks.map(code).join(', ')}), the entry's oldest accepted level; ` +
        'this check is compared with both (rows "vs anchor").'
    )
  }
  return lines
}

export function baselineSection(summary: CheckSummary): Section {
  const b = summary.baseline
  let body = '## Baseline comparison\n\n'
  if (!b) body += 'No baseline was configured for this check.'
  else {
    // The message often names the file already.
    const where = b.path && !b.message.includes(b.path) ? `${code(b.path)}, ` : ''
    body += `${inline(b.message).replace(/\.+\s*$/, '')} (${where}status ${b.status}).`
    if (b.status === 'compared' && b.comparisons.length) {
      const rows: Table = [
        [
          'Workload',
          'Metric',
          'Arm',
          'Stored checks',
          'Day-to-day sd',
          'Run sd',
          'Stored (mean of check means)',
          'Current (mean)',
          'Change [95% PI]',
          'p (Holm)',
          'Verdict'
        ]
      ]
      for (const c of b.comparisons)
        rows.push([
          cell(c.workload),
          cell(metricLabel(c)),
          cell(c.history?.against === 'anchor' ? `${c.candidate_env} vs anchor` : c.candidate_env),
          String(c.history?.checks ?? c.n_baseline),
          c.history ? `${fmtNum(c.history.check_sd_pct)}%` : '–',
          c.history ? `${fmtNum(c.history.run_sd_pct)}%` : '–',
          fmtValue(c.mean_baseline, c.unit),
          fmtValue(c.mean_candidate, c.unit),
          fmtOverheadCi(c),
          c.scope === 'steady' ? fmtP(c.p_adjusted) : '–',
          c.scope === 'steady' ? VERDICT_WORDS[c.verdict] : `${c.verdict} (${SCOPE_WORD[c.scope]})`
        ])
      body += `\n\n${table(rows, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'])}`
      body +=
        '\n\nThe check is the unit: each stored check counts once (its mean), and the current check is judged ' +
        'by a t prediction interval over the stored check means, so the spread between days (**Day-to-day sd**, ' +
        'sd of the check means) widens the interval instead of showing up as a false regression.'
      const refs = referenceLines(b.comparisons)
      if (refs.length > 0) body += `\n\n${refs.join('\n')}`
    }
    body += b.saved ? '\n\nThis run was added to the baseline.' : ''
  }
  return { id: 'baseline', kind: 'core', title: 'Baseline comparison', body }
}
