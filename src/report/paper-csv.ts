/** The seed paper's CSV shape (`run,environment,time_s,gpu_util_pct`), for side-by-side comparison. Pure. */
import type { CheckSummary, RunRecord, TelemetrySample } from '../types/index.js'
import { csvCell } from '../util/text.js'

export const PAPER_CSV_HEADER = 'run,environment,time_s,gpu_util_pct'

function round(x: number, digits: number): string {
  return String(Number(x.toFixed(digits)))
}

/** Mean utilisation of the samples inside a run's window, for runs the sampler did not summarise. */
function utilFromSamples(run: RunRecord, samples: readonly TelemetrySample[]): number | null {
  const inside = samples
    .filter(s => s.time_ms >= run.start_ms && s.time_ms <= run.end_ms)
    .map(s => s.utilization_gpu_pct)
    .filter((u): u is number => u !== null && Number.isFinite(u))
  return inside.length ? inside.reduce((a, b) => a + b, 0) / inside.length : null
}

/**
 * One row per measured process run of one workload (warm-ups and failed runs left out), in schedule order:
 * time_s = whole-process wall time (end − start, like the paper's timing, start-up included),
 * gpu_util_pct = the run's mean utilisation, from `samples` when the run has none. Unknown values are empty.
 * The paper had one workload; with several, pass `workload` (default: the first that ran).
 */
export function paperCsv(
  summary: CheckSummary,
  samples?: readonly TelemetrySample[],
  workload?: string
): string {
  const measured = summary.runs.filter(r => !r.warmup && r.status === 'ok')
  const which = workload ?? measured[0]?.workload
  const lines = [PAPER_CSV_HEADER]
  for (const r of measured.filter(r => r.workload === which)) {
    const util = r.mean_util_pct ?? (samples ? utilFromSamples(r, samples) : null)
    lines.push(
      [
        String(r.run),
        csvCell(r.environment),
        round((r.end_ms - r.start_ms) / 1000, 3),
        util === null ? '' : round(util, 1)
      ].join(',')
    )
  }
  return `${lines.join('\n')}\n`
}

/** Workloads with at least one measured run, for one paper CSV each. */
export function paperCsvWorkloads(summary: CheckSummary): string[] {
  return [...new Set(summary.runs.filter(r => !r.warmup && r.status === 'ok').map(r => r.workload))]
}
