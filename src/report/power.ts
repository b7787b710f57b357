/** The power-cap sweep: time, energy and EDP per cap and arm, and the EDP-optimal cap. Pure. */
import type { CheckSummary, PowerCapSummary } from '../types/index.js'
import { cell, fmtValue, inline } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { dropEmptyColumns, table } from './table.js'

function originals(p: PowerCapSummary): string {
  return p.original_limits_w.map(o => `GPU ${o.gpu} ${o.limit_w} W`).join(', ')
}

function restoreLine(p: PowerCapSummary): string {
  if (!p.original_limits_w.length) return ''
  return p.restored
    ? `Original limits put back after the sweep: ${originals(p)}.`
    : `**Original limits were NOT all put back** (${originals(p)}): set them with \`nvidia-smi -i <gpu> -pl <watts>\`.`
}

export function powerSection(summary: CheckSummary): Section | null {
  const p = summary.power
  if (!p) return null
  const caps = p.caps_w.map(c => `${c} W`).join(', ')
  const parts = ['## Power caps']
  if (p.status === 'skipped') {
    parts.push(
      `Sweep of ${caps} **skipped**: ${inline(p.reason ?? 'no reason given')}. Everything above ran at the GPUs' current power limits.`
    )
    const restore = restoreLine(p)
    if (restore) parts.push(restore)
    return { id: 'power', kind: 'core', title: 'Power caps', body: parts.join('\n\n') }
  }
  const optimal = new Map(p.edp_optimal.map(o => [`${o.workload}\u0000${o.environment}`, o.cap_w]))
  parts.push(
    `Every arm ran the whole interleaved plan at each cap (${caps}, in that order), the cap set on every GPU of the check. ` +
      'Time is the measured region of each run, energy the NVML counter over that region, EDP = energy × time ' +
      '(lower is better); medians over runs. The overhead at each cap is gated in the table above (`workload @ cap`).' +
      (p.status === 'partial' ? ` **The sweep was cut short**: ${inline(p.reason ?? '')}.` : '')
  )
  const rows: Table = [
    ['Workload', 'Cap', 'Arm', 'Runs', 'Time / run', 'Energy / run', 'EDP / run', 'EDP-optimal']
  ]
  for (const r of p.rows)
    rows.push([
      cell(r.workload),
      `${r.cap_w} W`,
      cell(r.environment),
      String(r.runs),
      fmtValue(r.time_s, 's'),
      fmtValue(r.energy_j, 'J'),
      fmtValue(r.edp_js, 'J·s'),
      optimal.get(`${r.workload}\u0000${r.environment}`) === r.cap_w && r.edp_js !== null ? '**best**' : ''
    ])
  const t = dropEmptyColumns(rows, ['l', 'r', 'l', 'r', 'r', 'r', 'r', 'l'])
  parts.push(table(t.rows, t.align))
  const best = p.edp_optimal.map(
    o =>
      `${inline(o.workload)} ${inline(o.environment)}: ${o.cap_w === null ? 'no energy measured' : `${o.cap_w} W`}`
  )
  if (best.length) parts.push(`EDP-optimal cap — ${best.join('; ')}.`)
  const restore = restoreLine(p)
  if (restore) parts.push(restore)
  return { id: 'power', kind: 'core', title: 'Power caps', body: parts.join('\n\n') }
}
