/** GPU telemetry per workload and arm: utilisation, clocks, power, energy, throttling. Pure. */
import type { CheckSummary } from '../types/index.js'
import { armRank } from './arms.js'
import { cell, fmtUtil, fmtValue } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { dropEmptyColumns, table } from './table.js'

/** What nvidia-smi's utilization.gpu is, since it is so often read as "how much of the GPU was used". */
export const NVML_UTIL_MEANING =
  'GPU util is NVML’s utilization.gpu: the share of each sample period during which at least one kernel was running — not how many SMs it kept busy (one small kernel running all the time reads 100%).'

export function telemetrySection(summary: CheckSummary): Section | null {
  if (!summary.telemetry.length) return null
  const perGpu = new Set(summary.telemetry.map(t => t.gpu)).size > 1
  const rows: Table = [
    [
      'Workload',
      'Arm',
      ...(perGpu ? ['GPU'] : []),
      'GPU util',
      'SM clock',
      'Power',
      'Energy / run',
      'EDP / run',
      'Throttled samples',
      'GPU util, whole process'
    ]
  ]
  const sources = new Set<string>()
  const ordered = perGpu
    ? [...summary.telemetry].sort(
        (a, b) =>
          a.workload.localeCompare(b.workload) ||
          armRank(summary)(a.environment) - armRank(summary)(b.environment) ||
          (a.gpu ?? 0) - (b.gpu ?? 0)
      )
    : summary.telemetry
  let regions = 0
  for (const t of ordered) {
    if (t.energy_source) sources.add(t.energy_source)
    // The measured region the workload marked; the whole process (start-up included) otherwise.
    const r = t.region
    if (r) regions++
    rows.push([
      cell(t.workload),
      cell(t.environment),
      ...(perGpu ? [t.gpu === undefined ? '–' : String(t.gpu)] : []),
      fmtUtil(r ? r.util_pct : t.mean_util_pct),
      fmtValue(r ? r.sm_clock_mhz : t.mean_sm_clock_mhz, 'MHz'),
      fmtValue(r ? r.power_w : t.mean_power_w, 'W'),
      fmtValue(t.energy_j_per_run, 'J'),
      fmtValue(t.edp_js, 'J·s'),
      r
        ? `${r.throttled_samples} / ${r.samples}${r.reasons.length ? ` (${r.reasons.join(', ')})` : ''}`
        : t.samples
          ? `${t.throttled_samples} / ${t.samples}`
          : '–',
      r ? fmtUtil(t.mean_util_pct) : '–'
    ])
  }
  // Telemetry off still leaves energy (NVML counter): drop the columns it did not fill.
  const labels = perGpu ? 3 : 2
  const shown = dropEmptyColumns(rows, [
    'l',
    'l',
    ...(perGpu ? ['r'] : []),
    'r',
    'r',
    'r',
    'r',
    'r',
    'r',
    'r'
  ])
  // Nothing measured (device cpu, telemetry off, no NVML): no section rather than a table of labels.
  if ((shown.rows[0]?.length ?? 0) <= labels) return null
  const how =
    `${averagingWindow(regions, ordered.length)} ${NVML_UTIL_MEANING} EDP = energy × delay per run; lower is better.` +
    (sources.size
      ? ` Energy from ${[...sources].map(s => (s === 'nvml' ? 'the NVML energy counter' : 'integrated power draw')).join(' and ')}.`
      : '') +
    (summary.power && summary.power.status !== 'skipped'
      ? ' These means span every power cap of the sweep; per cap, see Power caps.'
      : '')
  return {
    id: 'telemetry',
    kind: 'core',
    title: 'GPU telemetry',
    body: `## GPU telemetry\n\n${table(shown.rows, shown.align)}\n\n${how}`
  }
}

/** What the means of the table are taken over: the marked measured regions, the whole processes, or a mix. */
function averagingWindow(regions: number, rows: number): string {
  return regions === rows
    ? 'Util, SM clock, power and throttling: means over the measured region each workload marked (warm-ups and start-up excluded); the last column is the whole process, start-up included.'
    : regions === 0
      ? 'Means over each whole process (start-up included: these workloads marked no measured region), warm-up runs excluded.'
      : 'Rows with a whole-process column: means over the measured region the workload marked; the others: over the whole process (start-up included).'
}
