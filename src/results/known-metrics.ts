/**
 * The metrics this tool's own workloads emit, with the direction and role each workload declares on its
 * samples (`better`, `derived_from`; workloads/README.md). Used only for rows that carry no declaration
 * of their own — results recorded before samples declared them, or a CSV of our workloads without a
 * `better` column — so they keep their meaning. Anything not listed here must declare its direction.
 * test/analyze/known-metrics.test.ts runs the workloads and checks this table against what they emit.
 */
import { LLM_TAIL_METRICS } from '../config/index.js'
import type { Direction } from '../types/index.js'
import { own } from '../util/own.js'

export interface KnownMetric {
  better: Direction
  /** The gated metric it is a function of; absent for primary metrics. */
  derived_from?: string
}

const KNOWN: Record<string, Record<string, KnownMetric>> = {
  matmul: {
    kernel_ms: { better: 'lower' },
    tflops: { better: 'higher', derived_from: 'kernel_ms' },
    pct_of_peak: { better: 'higher', derived_from: 'kernel_ms' }
  },
  llm: {
    ttft_ms: { better: 'lower' },
    tpot_ms: { better: 'lower' },
    e2e_ms: { better: 'lower', derived_from: 'ttft_ms,tpot_ms' },
    tokens_per_s: { better: 'higher', derived_from: 'e2e_ms' },
    itl_ms: { better: 'lower', derived_from: 'tpot_ms' },
    // Per-process tail percentiles (config/tail-metrics.ts): shown, gated only when gate-metrics names them.
    ...Object.fromEntries(LLM_TAIL_METRICS.map(m => [m, { better: 'lower' } satisfies KnownMetric]))
  },
  io: {
    data_read_mb_s: { better: 'higher' },
    ckpt_write_mb_s: { better: 'higher' },
    scratch_write_mb_s: { better: 'higher' },
    scratch_read_mb_s: { better: 'higher' },
    small_files_ops_s: { better: 'higher' },
    copyup_ms: { better: 'lower' }
  }
}

/** `copyup_ms@128MiB` is `copyup_ms` of one size class. */
export function knownMetric(workload: string, metric: string): KnownMetric | undefined {
  const metrics = own(KNOWN, workload)
  return metrics && own(metrics, metric.split('@')[0] ?? metric)
}

/** Every known (workload, metric) pair, for the contract test. */
export function knownMetrics(): { workload: string; metric: string; known: KnownMetric }[] {
  return Object.entries(KNOWN).flatMap(([workload, metrics]) =>
    Object.entries(metrics).map(([metric, known]) => ({ workload, metric, known }))
  )
}
