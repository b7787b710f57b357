/** Pure assembly of the check summary's derived parts from measured records. */
import { quantileSorted } from 'simple-statistics'
import type { LatencyPercentiles, RunSeries, SampleRecord } from '../types/index.js'

/** LLM latency metrics reported at p50/p90/p99, in this order. */
export const LATENCY_METRICS = ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms', 'tokens_per_s'] as const

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const it of items) {
    const k = key(it)
    const list = m.get(k)
    if (list) list.push(it)
    else m.set(k, [it])
  }
  return m
}

export function latencyPercentiles(samples: readonly SampleRecord[]): LatencyPercentiles[] {
  const wanted = new Set<string>(LATENCY_METRICS)
  const rows: LatencyPercentiles[] = []
  const groups = groupBy(
    samples.filter(s => s.scope === 'steady' && wanted.has(s.metric)),
    s => `${s.workload}\u0000${s.environment}\u0000${s.metric}`
  )
  for (const list of groups.values()) {
    const first = list[0]
    if (!first) continue
    const sorted = list.map(s => s.value).sort((a, b) => a - b)
    rows.push({
      workload: first.workload,
      environment: first.environment,
      metric: first.metric,
      unit: first.unit,
      n: sorted.length,
      p50: quantileSorted(sorted, 0.5),
      p90: quantileSorted(sorted, 0.9),
      p99: quantileSorted(sorted, 0.99)
    })
  }
  const order = (m: string): number => LATENCY_METRICS.indexOf(m as (typeof LATENCY_METRICS)[number])
  return rows.sort(
    (a, b) =>
      a.workload.localeCompare(b.workload) ||
      order(a.metric) - order(b.metric) ||
      a.environment.localeCompare(b.environment)
  )
}

/** Per-run medians (the unit the statistics use), in run order, for charts and raw tables. */
export function runSeries(samples: readonly SampleRecord[]): RunSeries[] {
  const out: RunSeries[] = []
  const groups = groupBy(samples, s => `${s.workload}\u0000${s.metric}\u0000${s.environment}`)
  for (const list of groups.values()) {
    const first = list[0]
    if (!first) continue
    const byRun = groupBy(list, s => String(s.run))
    const runs = [...byRun.keys()].map(Number).sort((a, b) => a - b)
    const values = runs.map(r => {
      const v = (byRun.get(String(r)) ?? []).map(s => s.value).sort((a, b) => a - b)
      return quantileSorted(v, 0.5)
    })
    out.push({
      workload: first.workload,
      metric: first.metric,
      unit: first.unit,
      environment: first.environment,
      values
    })
  }
  return out
}
