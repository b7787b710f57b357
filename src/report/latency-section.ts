/** LLM latency percentiles (TTFT, TPOT, ITL, E2E, tokens/s) per arm, with their definitions. Pure. */
import type { CheckSummary, LatencyPercentiles } from '../types/index.js'
import { armLabels } from './arms.js'
import { cell, fmtNum } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'
import { first } from '../util/must.js'
import { own } from '../util/own.js'

const LATENCY_ORDER = ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms', 'tokens_per_s']
const LATENCY_LABELS: Record<string, string> = {
  ttft_ms: 'TTFT',
  tpot_ms: 'TPOT',
  itl_ms: 'ITL',
  e2e_ms: 'E2E latency',
  tokens_per_s: 'Output tokens/s'
}

/** `TTFT (ms)`, but `Output tokens/s` rather than `Output tokens/s (tokens/s)`. */
function labelWithUnit(label: string, unit: string): string {
  return cell(unit && !label.includes(unit) ? `${label} (${unit})` : label)
}

export function latencySection(summary: CheckSummary): Section | null {
  if (!summary.latency.length) return null
  const envs = armLabels(summary).filter(e => summary.latency.some(l => l.environment === e))
  for (const l of summary.latency) if (!envs.includes(l.environment)) envs.push(l.environment)
  const keys: { workload: string; metric: string }[] = []
  for (const l of summary.latency)
    if (!keys.some(k => k.workload === l.workload && k.metric === l.metric))
      keys.push({ workload: l.workload, metric: l.metric })
  const rank = (m: string): number => {
    const i = LATENCY_ORDER.indexOf(m)
    return i === -1 ? LATENCY_ORDER.length : i
  }
  keys.sort((a, b) => a.workload.localeCompare(b.workload) || rank(a.metric) - rank(b.metric))
  // One workload (the usual case) needs no workload column.
  const several = new Set(keys.map(k => k.workload)).size > 1
  const find = (k: { workload: string; metric: string }, e: string): LatencyPercentiles | undefined =>
    summary.latency.find(l => l.workload === k.workload && l.metric === k.metric && l.environment === e)
  const defs = [
    '- **TTFT** (time to first token): request start → first output token. With the built-in model on a GPU the prefill and every decode step replay CUDA graphs (checked against eager work on the same prompt; an arm that falls back to eager is named under “Why the arms differ”), so TTFT and TPOT time GPU work and launches, not Python dispatching each kernel.',
    '- **TPOT** (time per output token): (E2E − TTFT) / (output tokens − 1).',
    '- **ITL** (inter-token latency): each gap between consecutive output tokens.',
    '- **E2E latency**: request start → last token. **Output tokens/s**: output tokens / E2E, per request.',
    '- For scale: MLPerf llama2-70b server limits are TTFT p99 2000 ms and TPOT p99 200 ms.'
  ].join('\n')
  if (envs.length > 2) {
    // Three columns per arm would not fit: a row per metric and arm instead.
    const rows: Table = [[...(several ? ['Workload'] : []), 'Metric', 'Arm', 'p50', 'p90', 'p99', 'n']]
    for (const k of keys)
      for (const e of envs) {
        const l = find(k, e)
        if (!l) continue
        rows.push([
          ...(several ? [cell(k.workload)] : []),
          labelWithUnit(own(LATENCY_LABELS, k.metric) ?? k.metric, l.unit),
          cell(e),
          fmtNum(l.p50),
          fmtNum(l.p90),
          fmtNum(l.p99),
          String(l.n)
        ])
      }
    const align = first(rows).map((_, i) => (i < (several ? 3 : 2) ? 'l' : 'r'))
    return {
      id: 'latency',
      kind: 'core',
      title: 'LLM latency',
      body: `## LLM latency\n\n${table(rows, align)}\n\n${defs}`
    }
  }
  const head = [
    ...(several ? ['Workload'] : []),
    'Metric',
    ...envs.flatMap(e => ['p50', 'p90', 'p99'].map(p => `${cell(e)} ${p}`)),
    'n'
  ]
  const rows: Table = [head]
  for (const k of keys) {
    const per = envs.map(e => find(k, e))
    const unit = per.find(l => l)?.unit ?? ''
    const vals = (l: LatencyPercentiles | undefined): string[] =>
      l ? [fmtNum(l.p50), fmtNum(l.p90), fmtNum(l.p99)] : ['–', '–', '–']
    rows.push([
      ...(several ? [cell(k.workload)] : []),
      labelWithUnit(own(LATENCY_LABELS, k.metric) ?? k.metric, unit),
      ...per.flatMap(vals),
      per.map(l => (l ? String(l.n) : '–')).join(' / ')
    ])
  }
  const align = head.map((_, i) => (i < (several ? 2 : 1) ? 'l' : 'r'))
  const body = `## LLM latency\n\n${table(rows, align)}\n\n${defs}`
  return { id: 'latency', kind: 'core', title: 'LLM latency', body }
}
