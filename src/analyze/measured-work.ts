/**
 * How much of the check's run time measured anything: the workloads' measured regions (their `measured_s`)
 * over the wall time from the first process's spawn to the last one's exit, times the GPUs that ran processes
 * side by side (lanes, a duet: their measured regions overlap in time, so one GPU's wall time would count them
 * twice and read above 100%). Start-up, warm-ups, graph capture and teardown are the rest. The seed paper's
 * mistake was timing all of it as "the workload".
 */
import type { RunRecord } from '../types/index.js'
import { maxOf, minOf } from '../util/arrays.js'

export interface MeasuredWork {
  processes: number
  wall_s: number
  /** GPUs whose processes ran side by side (1 without pinned lanes). */
  gpus: number
  measured_s: number
  /** measured_s / (wall_s × gpus) (0 when nothing ran). */
  fraction: number
  /** Per workload: its processes' summed wall time and measured time. */
  per_workload: { workload: string; processes: number; process_s: number; measured_s: number }[]
}

export function measuredWork(runs: readonly RunRecord[]): MeasuredWork {
  const ran = runs.filter(r => r.end_ms > 0 && r.start_ms > 0)
  const wallMs = ran.length ? maxOf(ran.map(r => r.end_ms)) - minOf(ran.map(r => r.start_ms)) : 0
  const measured = ran.reduce((s, r) => s + (r.measured_s ?? 0), 0)
  const per = new Map<
    string,
    { workload: string; processes: number; process_s: number; measured_s: number }
  >()
  for (const r of ran) {
    const w = per.get(r.workload) ?? { workload: r.workload, processes: 0, process_s: 0, measured_s: 0 }
    w.processes++
    w.process_s += (r.end_ms - r.start_ms) / 1000
    w.measured_s += r.measured_s ?? 0
    per.set(r.workload, w)
  }
  const wall_s = wallMs / 1000
  const gpus = Math.max(
    1,
    new Set(ran.flatMap(r => (r.gpu === undefined || r.gpu === null ? [] : [r.gpu]))).size
  )
  return {
    processes: ran.length,
    wall_s,
    gpus,
    measured_s: measured,
    fraction: wall_s > 0 ? measured / (wall_s * gpus) : 0,
    per_workload: [...per.values()]
  }
}

/** The report's line; null where nothing marked a measured region (user commands timed whole, result files). */
export function measuredWorkNote(w: MeasuredWork): string | null {
  if (!(w.measured_s > 0)) return null
  const pct = (x: number): string => `${Math.round(x * 100)}%`
  const of =
    w.gpus > 1
      ? `${(w.wall_s * w.gpus).toFixed(1)} s of GPU time (${w.gpus} GPUs × ${w.wall_s.toFixed(1)} s of run time)`
      : `${w.wall_s.toFixed(1)} s of run time`
  return (
    `Measured work: ${w.measured_s.toFixed(1)} s of ${of} (${pct(w.fraction)}) over ` +
    `${w.processes} processes; the rest is start-up, warm-up and teardown.`
  )
}
