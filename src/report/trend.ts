/**
 * The trend report: per series and metric, a Mermaid chart of the per-check values with the change
 * points marked, and a table of the change points (when, commit/image, what changed in the stack,
 * before → after, magnitude, p, reverted or not). Pure; the GitHub side is trend-issues.ts.
 */
import { table } from './table.js'
import type { TrendChange, TrendReport, TrendSeries } from '../analyze/index.js'
import { cell, chartNum, code, fmtP, fmtPct, fmtPlain, fmtValue, inline } from './format.js'
import { maxOf, minOf } from '../util/arrays.js'

/** Mermaid labels are quoted: keep quotes and newlines out of them. */
function label(text: string): string {
  return text
    .replace(/["\r\n]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

export function seriesTitle(s: Pick<TrendSeries, 'workload' | 'metric' | 'environment' | 'facts'>): string {
  const where = [s.facts.gpu_name, s.facts.host].filter(Boolean).join(' on ')
  return `${s.workload} ${s.metric} (${s.environment}${where ? `, ${where}` : ''})`
}

/** YYYY-MM-DD of an ISO time (the time itself when it is not one). */
export function day(time: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(time) ? time.slice(0, 10) : time
}

function shortDigest(digest: string | null): string | null {
  if (digest === null) return null
  const m = /^(sha256:)?([0-9a-f]{12})[0-9a-f]*$/.exec(digest)
  return m ? `${m[1] ?? ''}${m[2]}` : digest
}

/** Commit and image of the first check of the new regime, short. */
export function whereText(c: TrendChange): string {
  const parts = [c.commit ? `commit ${c.commit.slice(0, 12)}` : null, shortDigest(c.image_digest) ?? c.image]
  return parts.filter(Boolean).join(', ') || c.check_id
}

export function changeSentence(s: TrendSeries, c: TrendChange): string {
  const what =
    c.direction === 'regression' ? 'got worse' : c.direction === 'improvement' ? 'got better' : 'changed'
  return (
    `${seriesTitle(s)} ${what} on ${day(c.time)}: ${fmtValue(c.before, s.unit)} → ${fmtValue(c.after, s.unit)} ` +
    `(${fmtPct(c.change_pct)}, p ${fmtP(c.p)})`
  )
}

/**
 * xychart-beta of the per-check values (line), the regime means between change points (second line),
 * and bars at the change points (the y-axis floor elsewhere, so only they show): the chart type has no
 * markers or legend, so the title says so.
 */
export function trendChart(s: TrendSeries): string | null {
  if (s.points.length < 2) return null
  const values = s.points.map(p => p.value)
  const bounds = [0, ...s.changes.map(c => c.index), values.length]
  const means: number[] = []
  for (let i = 0; i + 1 < bounds.length; i++) {
    const seg = values.slice(bounds[i], bounds[i + 1])
    const m = seg.reduce((a, b) => a + b, 0) / seg.length
    for (const _ of seg) means.push(m)
  }
  const lo0 = minOf(values)
  const hi0 = maxOf(values)
  const pad = hi0 > lo0 ? (hi0 - lo0) * 0.1 : Math.abs(hi0) * 0.01 || 1
  const lo = Number((lo0 - pad).toPrecision(6))
  const hi = Number((hi0 + pad).toPrecision(6))
  const at = new Set(s.changes.map(c => c.index))
  const bars = values.map((v, i) => (at.has(i) ? v : lo))
  // No change point, no bar series (and no word of one in the title): the palette's first colour is the bars'.
  const withBars = at.size > 0
  return [
    '```mermaid',
    `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${withBars ? '#d0d7de, ' : ''}#0969da, #cf222e"}}}}%%`,
    'xychart-beta',
    `    title "${label(`${s.workload} ${s.metric} per check (blue), regime means (red)${withBars ? '; bars: change points' : ''}`)}"`,
    `    x-axis "check" [${values.map((_, i) => i + 1).join(', ')}]`,
    `    y-axis "${label(s.unit || s.metric)}" ${chartNum(lo)} --> ${chartNum(hi)}`,
    ...(withBars ? [`    bar [${bars.map(chartNum).join(', ')}]`] : []),
    `    line [${values.map(chartNum).join(', ')}]`,
    `    line [${means.map(chartNum).join(', ')}]`,
    '```'
  ].join('\n')
}

function statusOf(c: TrendChange): string {
  if (c.reverts !== null) return 'reverts an earlier change'
  if (c.reverted_by !== null) return 'reverted later'
  return c.direction === 'improvement' ? 'improvement' : 'open'
}

function changeTable(s: TrendSeries): string {
  return table([
    ['Check #', 'Date', 'Commit / image', 'Stack changed', 'Before → after', 'Change', 'p', 'Status'],
    ...s.changes.map(c => [
      String(c.index + 1),
      cell(day(c.time)),
      cell(whereText(c)),
      cell(c.stack_changes.join('; ') || '–'),
      cell(`${fmtValue(c.before, s.unit)} → ${fmtValue(c.after, s.unit)}`),
      fmtPct(c.change_pct),
      fmtP(c.p),
      statusOf(c)
    ])
  ])
}

function directionNote(s: TrendSeries): string {
  return s.better === null
    ? 'direction not declared: changes are not called regressions or improvements'
    : `${s.better} is better`
}

/** The checks left out of the tests as isolated outliers: `check #12 (2026-11-02, 125.0 ms)`. */
function outlierLine(s: TrendSeries): string {
  const list = s.outliers.map(
    o => `check #${o.index + 1} (${cell(day(o.time))}, ${fmtValue(o.value, s.unit)})`
  )
  return (
    `Left out of the tests as outlying nights (far off the checks on both sides, no level of their own): ` +
    `${list.join(', ')}.`
  )
}

export function trendMarkdown(report: TrendReport): string {
  const o = report.options
  const headline =
    report.open.length > 0
      ? `**${report.open.length} open change point${report.open.length === 1 ? '' : 's'}** (a regression, or a change of undeclared direction, that no later change undid).`
      : 'No open change point.'
  const out = [
    '## GPU overhead trend',
    '',
    headline,
    '',
    `Method: e-divisive means with a t-test (Apache Otava's method; window ${o.window}, p ≤ ${fmtPlain(o.maxP)} ` +
      `corrected for the split search, minimum change ${fmtPlain(o.minMagnitude * 100)}%, at least ${o.minSegment} ` +
      'checks on each side; a single check far off its neighbours on both sides is left out of the tests and named). ' +
      'One point per accepted check: the mean of its runs.',
    ''
  ]
  if (report.series.length === 0)
    out.push('The history holds no series yet: save accepted checks with `save-baseline`.', '')
  for (const s of report.series) {
    out.push(`### ${inline(seriesTitle(s))}`, '')
    out.push(
      `${s.points.length} check(s), ${day(s.points[0]?.time ?? '')} to ${day(s.points.at(-1)?.time ?? '')}; ` +
        `${directionNote(s)}; series ${code(s.id)}.`,
      ''
    )
    const chart = trendChart(s)
    if (chart !== null) out.push(chart, '')
    out.push(s.changes.length > 0 ? changeTable(s) : 'No change point.', '')
    if (s.outliers.length > 0) out.push(outlierLine(s), '')
  }
  return out.join('\n')
}
