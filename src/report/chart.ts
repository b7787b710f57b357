/** Mermaid `xychart-beta` charts of per-run values, one per gated workload. Pure. */
import type { CheckSummary, Comparison, RunSeries } from '../types/index.js'
import { chartNum } from './format.js'
import type { Section } from './section.js'
import { gatingComparisons } from './verdict.js'
import { maxOf, minOf } from '../util/arrays.js'
import { at } from '../util/must.js'

// xychart-beta has no legend: fixed colours, named in the title.
const PALETTE: { hex: string; name: string }[] = [
  { hex: '#0969da', name: 'blue' },
  { hex: '#cf222e', name: 'red' },
  { hex: '#1a7f37', name: 'green' },
  { hex: '#8250df', name: 'purple' }
]

/** The metric a workload's chart shows: its worst regression, else its first gated metric. */
export function primaryComparisons(summary: CheckSummary): Comparison[] {
  const byWorkload = new Map<string, Comparison>()
  for (const c of gatingComparisons(summary)) {
    const seen = byWorkload.get(c.workload)
    if (
      !seen ||
      (c.verdict === 'regression' && (seen.verdict !== 'regression' || c.overhead_pct > seen.overhead_pct))
    )
      byWorkload.set(c.workload, c)
  }
  return [...byWorkload.values()]
}

function findSeries(summary: CheckSummary, c: Comparison, env: string): RunSeries | undefined {
  return summary.series.find(s => s.workload === c.workload && s.metric === c.metric && s.environment === env)
}

/** Mermaid labels are quoted: keep quotes and newlines out of them. */
function label(text: string): string {
  return text
    .replace(/["\r\n]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

function axisRange(values: number[]): [number, number] {
  const lo = minOf(values)
  const hi = maxOf(values)
  // Pad so flat lines do not sit on the frame; a zero spread still gets a visible band.
  const pad = hi > lo ? (hi - lo) * 0.1 : Math.abs(hi) * 0.01 || 1
  return [Number((lo - pad).toPrecision(6)), Number((hi + pad).toPrecision(6))]
}

/** One fenced mermaid block, or null when the per-run series are missing. */
export function runChart(summary: CheckSummary, c: Comparison): string | null {
  const envs = [c.baseline_env, c.candidate_env]
  const values: number[][] = []
  for (const env of envs) {
    const s = findSeries(summary, c, env)
    if (!s || s.values.length === 0) return null
    values.push(s.values.filter(Number.isFinite))
  }
  // Lines share one x axis: show the runs both arms have.
  const n = minOf(values.map(v => v.length))
  if (n === 0) return null
  const shown = values.map(v => v.slice(0, n))
  const [lo, hi] = axisRange(shown.flat())
  const colour = (i: number): (typeof PALETTE)[number] => at(PALETTE, i % PALETTE.length)
  const key = envs.map((env, i) => `${colour(i).name} = ${env}`).join(', ')
  const palette = envs.map((_, i) => colour(i).hex).join(', ')
  const truncated = values.some(v => v.length > n) ? ` (first ${n} runs)` : ''
  const lines = [
    '```mermaid',
    `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${palette}"}}}}%%`,
    'xychart-beta',
    `    title "${label(`${c.workload} ${c.metric} per run${truncated}: ${key}`)}"`,
    `    x-axis "run" [${Array.from({ length: n }, (_, i) => i + 1).join(', ')}]`,
    `    y-axis "${label(c.unit || c.metric)}" ${chartNum(lo)} --> ${chartNum(hi)}`,
    ...shown.map(v => `    line [${v.map(chartNum).join(', ')}]`),
    '```'
  ]
  return lines.join('\n')
}

export function chartSections(summary: CheckSummary): Section[] {
  const out: Section[] = []
  for (const c of primaryComparisons(summary)) {
    const chart = runChart(summary, c)
    if (chart)
      out.push({
        id: `chart:${c.workload}:${c.metric}`,
        kind: 'chart',
        title: `chart of ${c.workload} ${c.metric}`,
        group:
          '## Per-run values\n\nOne point per process run (the run’s median over its iterations), in schedule order; the y axis spans the data, so small spreads look large.',
        body: chart
      })
  }
  return out
}
