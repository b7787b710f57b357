/**
 * Time, energy and energy-delay product per power cap and arm, from the run records of a sweep. Energy is
 * the NVML counter over each run's measured region and the delay is that region's wall time, so EDP
 * compares the same fixed amount of work at every cap. Medians over runs (and GPUs): robust to one odd run.
 */
import { median } from 'simple-statistics'
import type { PowerCapRow, PowerCapSummary, RunRecord } from '../types/index.js'

export function capOf(params: Record<string, unknown>): number | null {
  const v = params.power_cap_w
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** The cap in a comparison's canonical params string (`{"power_cap_w":400,...}`), if any. */
export function capOfParams(params: string | undefined): number | null {
  if (!params || !params.includes('power_cap_w')) return null
  try {
    return capOf(JSON.parse(params) as Record<string, unknown>)
  } catch {
    return null
  }
}

function med(values: number[]): number | null {
  return values.length ? median(values) : null
}

export function powerCapRows(runs: readonly RunRecord[]): PowerCapRow[] {
  const groups = new Map<string, { cap: number; workload: string; environment: string; runs: RunRecord[] }>()
  for (const r of runs) {
    const cap = capOf(r.params)
    if (cap === null || r.warmup || r.status !== 'ok') continue
    const key = `${cap}\u0000${r.workload}\u0000${r.environment}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { cap, workload: r.workload, environment: r.environment, runs: [] }))
    g.runs.push(r)
  }
  const rows: PowerCapRow[] = []
  for (const g of groups.values()) {
    const timed = g.runs.filter(r => typeof r.measured_s === 'number' && r.measured_s > 0)
    const metered = timed.filter(r => r.energy_j !== null && r.energy_source === 'nvml')
    rows.push({
      cap_w: g.cap,
      workload: g.workload,
      environment: g.environment,
      runs: g.runs.length,
      time_s: med(timed.map(r => r.measured_s as number)),
      energy_j: med(metered.map(r => r.energy_j as number)),
      edp_js: med(metered.map(r => (r.energy_j as number) * (r.measured_s as number)))
    })
  }
  return rows.sort(
    (a, b) =>
      a.workload.localeCompare(b.workload) || a.cap_w - b.cap_w || a.environment.localeCompare(b.environment)
  )
}

/** The cap with the lowest median EDP for each (workload, arm); null where no cap had energy. */
export function edpOptimal(rows: readonly PowerCapRow[]): PowerCapSummary['edp_optimal'] {
  const best = new Map<string, { row: PowerCapRow; cap_w: number | null; edp: number }>()
  for (const r of rows) {
    const key = `${r.workload}\u0000${r.environment}`
    const b = best.get(key) ?? { row: r, cap_w: null, edp: Infinity }
    if (r.edp_js !== null && r.edp_js < b.edp) Object.assign(b, { cap_w: r.cap_w, edp: r.edp_js })
    best.set(key, b)
  }
  return [...best.values()].map(b => ({
    workload: b.row.workload,
    environment: b.row.environment,
    cap_w: b.cap_w
  }))
}
