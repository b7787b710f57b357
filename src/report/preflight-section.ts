/** The preflight checks' results, with their fixes. Pure. */
import type { CheckSummary, PreflightStatus } from '../types/index.js'
import { cell } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'

const STATUS_WORDS: Record<PreflightStatus, string> = {
  pass: 'PASS',
  warn: 'WARN',
  fail: '**FAIL**',
  skip: 'SKIP'
}

export function preflightSection(summary: CheckSummary): Section | null {
  // Samples from earlier steps' result files: nothing ran here, so there was nothing to check first.
  if (summary.source) return null
  let body = '## Preflight\n\n'
  if (!summary.preflight.length) body += 'No preflight checks ran.'
  else {
    const rows: Table = [['Check', 'Status', 'Result', 'Fix']]
    for (const p of summary.preflight)
      rows.push([cell(p.name), STATUS_WORDS[p.status], cell(p.message), p.fix ? cell(p.fix) : ''])
    // A Fix column with nothing in it only costs width.
    body += table(summary.preflight.some(p => p.fix) ? rows : rows.map(r => r.slice(0, 3)))
  }
  return { id: 'preflight', kind: 'core', title: 'Preflight', body }
}
