/** The raw data, folded: per-run values per workload and the table of process runs. Pure. */
import type { CheckSummary } from '../types/index.js'
import { cell, chartNum, fmtUtil, fmtValue, inline } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { dropEmptyColumns, rawTable } from './table.js'
import { maxOf } from '../util/arrays.js'
import { first } from '../util/must.js'

const RAW_GROUP = '## Raw data'

function details(summaryLine: string, content: string): string {
  return `<details>\n<summary>${summaryLine}</summary>\n\n${content}\n\n</details>`
}

export function rawSections(summary: CheckSummary): Section[] {
  const out: Section[] = []
  // One table per workload: a row per run, a column per (metric, arm); turned round (a row per
  // series, a column per run) when there are more series than runs, so it stays taller than wide.
  for (const w of [...new Set(summary.series.map(s => s.workload))]) {
    const series = summary.series.filter(s => s.workload === w)
    const n = maxOf(series.map(s => s.values.length))
    const value = (s: (typeof series)[number], i: number): string => {
      const v = s.values[i]
      return v === undefined ? '' : chartNum(v)
    }
    const runs = Array.from({ length: n }, (_, i) => i)
    const rows: Table =
      series.length > n
        ? [
            ['Metric', 'Arm', 'Unit', ...runs.map(i => `Run ${i + 1}`)],
            ...series.map(s => [
              cell(s.metric),
              cell(s.environment),
              cell(s.unit),
              ...runs.map(i => value(s, i))
            ])
          ]
        : [
            ['Run', ...series.map(s => `${cell(s.metric)} ${cell(s.environment)} (${cell(s.unit)})`)],
            ...runs.map(i => [String(i + 1), ...series.map(s => value(s, i))])
          ]
    const align = first(rows).map((_, i) => (series.length > n && i < 3 ? 'l' : 'r'))
    const metrics = [...new Set(series.map(s => s.metric))].join(', ')
    out.push({
      id: `raw:${w}`,
      kind: 'raw',
      title: `per-run ${w} values`,
      group: RAW_GROUP,
      body: details(`Per-run values: ${inline(w)} (${inline(metrics)}; ${n} runs)`, rawTable(rows, align))
    })
  }
  if (summary.runs.length) {
    const rows: Table = [
      [
        'Workload',
        'Arm',
        'Run',
        'Warm-up',
        'Status',
        'Wall',
        'GPU util',
        'Power',
        'Energy',
        'Throttled',
        'Error'
      ]
    ]
    for (const r of summary.runs)
      rows.push([
        cell(r.workload),
        cell(r.environment),
        String(r.run),
        r.warmup ? 'yes' : '',
        r.status,
        fmtValue((r.end_ms - r.start_ms) / 1000, 's'),
        fmtUtil(r.mean_util_pct),
        fmtValue(r.mean_power_w, 'W'),
        fmtValue(r.energy_j, 'J'),
        r.telemetry_samples ? `${r.throttled_samples} / ${r.telemetry_samples}` : '–',
        r.error ? cell(r.error.slice(0, 200)) : ''
      ])
    const shown = dropEmptyColumns(rows)
    out.push({
      id: 'raw:runs',
      kind: 'raw',
      title: 'process runs table',
      group: RAW_GROUP,
      body: details(`Process runs (${summary.runs.length}, in schedule order)`, rawTable(shown.rows))
    })
  }
  return out
}
