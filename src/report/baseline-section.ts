/** The comparison against the stored baseline (the check is the unit: a prediction interval). Pure. */
import type { CheckSummary } from '../types/index.js'
import {
  SCOPE_WORD,
  VERDICT_WORDS,
  cell,
  code,
  fmtNum,
  fmtOverheadCi,
  fmtP,
  fmtValue,
  inline,
  metricLabel
} from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'

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
          cell(c.candidate_env),
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
    }
    body += b.saved ? '\n\nThis run was added to the baseline.' : ''
  }
  return { id: 'baseline', kind: 'core', title: 'Baseline comparison', body }
}
