/** What was planned but not measured, and the runs that did not finish. Pure. */
import type { CheckSummary } from '../types/index.js'
import { inline } from './format.js'
import type { Section } from './section.js'

export function notMeasuredSection(summary: CheckSummary): Section {
  const items = summary.not_measured.map(n => `- **${inline(n.what)}**: ${inline(n.why)}`)
  const failed = summary.runs.filter(r => r.status !== 'ok')
  if (failed.length) {
    const byKind = new Map<string, number>()
    for (const r of failed)
      byKind.set(
        `${r.workload} ${r.environment} (${r.status})`,
        (byKind.get(`${r.workload} ${r.environment} (${r.status})`) ?? 0) + 1
      )
    const list = [...byKind].map(([k, n]) => `${k} ×${n}`).join(', ')
    items.push(`- **Runs that did not finish**: ${inline(list)}; their samples are not in the statistics.`)
  }
  const body = `## Not measured\n\n${items.length ? items.join('\n') : 'Everything planned was measured.'}`
  return { id: 'not-measured', kind: 'core', title: 'Not measured', body }
}
