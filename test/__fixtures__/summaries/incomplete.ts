/**
 * INCOMPLETE: the job was cancelled during llm run 9 (container); matmul finished, llm has 9 + 8 runs,
 * io was never reached. What was measured is analysed and shown.
 */
import type { CheckSummary } from '../../../src/types/index.js'
import { comparison, startupComparisons } from './build.js'
import { h200Data } from './h200.js'
import { pass } from './pass.js'

const d = h200Data({ n: 20, workloads: ['matmul', 'llm'], seed: 4000, finished: { llm: { native: 9, container: 8 } } })
const v = (key: string): { base: number[]; cand: number[] } => ({ base: d.steady[key]!.native, cand: d.steady[key]!.container })
const ok = 'TOST: the overhead is within ±2% (p < 0.001).'

const steady = [
  comparison({ workload: 'matmul', metric: 'kernel_ms', unit: 'ms', ...v('matmul/kernel_ms'), ciHalf: 0.03, p: 0.71, pAdjusted: 1, tostP: 1e-12, verdict: 'equivalent', reason: ok, mdePct: 0.052 }),
  comparison({ workload: 'matmul', metric: 'tflops', unit: 'TFLOP/s', direction: 'higher', ...v('matmul/tflops'), ciHalf: 0.03, p: 0.71, pAdjusted: 1, tostP: 1e-12, verdict: 'equivalent', reason: ok, mdePct: 0.052 }),
  comparison({ workload: 'llm', metric: 'tpot_ms', unit: 'ms', ...v('llm/tpot_ms'), ciHalf: 0.31, p: 0.22, pAdjusted: 0.88, tostP: 1e-6, verdict: 'equivalent', reason: ok, mdePct: 0.42 }),
  comparison({ workload: 'llm', metric: 'tokens_per_s', unit: 'tokens/s', direction: 'higher', ...v('llm/tokens_per_s'), ciHalf: 0.31, p: 0.23, pAdjusted: 0.88, tostP: 1e-6, verdict: 'equivalent', reason: ok, mdePct: 0.42 })
]
const worst = [...steady].sort((a, b) => b.overhead_pct - a.overhead_pct)[0]!

export const incomplete: CheckSummary = {
  ...pass,
  check_id: '20251129T101500Z-91f7',
  started_at: new Date(d.startMs).toISOString(),
  finished_at: new Date(d.endMs).toISOString(),
  wall_s: (d.endMs - d.startMs) / 1000,
  complete: false,
  incomplete_reason: 'cancelled: the runner sent SIGTERM during llm run 9 of 20 (container); io was not reached',
  verdict: 'error',
  overhead_pct: worst.overhead_pct,
  p_value: worst.p_adjusted,
  analysis: {
    comparisons: [...steady, ...startupComparisons('matmul', d.startup.matmul!), ...startupComparisons('llm', d.startup.llm!)],
    verdict: 'equivalent',
    max_overhead_pct: 2,
    alpha: 0.05
  },
  latency: d.latency,
  telemetry: d.telemetry,
  runs: d.runs,
  series: d.series,
  baseline: {
    status: 'disabled',
    path: '.github/gpu-overhead/baseline.json',
    message: 'Not compared: an incomplete check is neither compared with nor saved to the baseline',
    comparisons: [],
    saved: false
  },
  not_measured: [
    { what: 'io workload', why: 'the check was cancelled before io started.' },
    { what: 'llm runs 9–20 (container), 10–20 (native)', why: 'the check was cancelled.' }
  ]
}
