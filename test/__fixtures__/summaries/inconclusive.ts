/**
 * INCONCLUSIVE: 10 runs per arm and an eager-mode LLM decode that is launch-bound (TPOT 14–24 ms within
 * one arm): matmul is shown equivalent, the LLM metrics can be neither shown equal nor shown worse.
 */
import type { CheckSummary } from '../../../src/types/index.js'
import { comparison, startupComparisons } from './build.js'
import { h200Data } from './h200.js'
import { pass } from './pass.js'

const d = h200Data({ n: 10, workloads: ['matmul', 'llm'], seed: 2000, llmEager: true })
const v = (key: string): { base: number[]; cand: number[] } => ({ base: d.steady[key]!.native, cand: d.steady[key]!.container })
const wide =
  'not significant, and the 95% CI is wider than ±2%, so equivalence cannot be shown either: TPOT varies 14–24 ms between runs of one arm.'

const steady = [
  comparison({
    workload: 'matmul',
    metric: 'kernel_ms',
    unit: 'ms',
    ...v('matmul/kernel_ms'),
    ciHalf: 0.045,
    p: 0.52,
    pAdjusted: 1,
    tostP: 1e-9,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p < 0.001).',
    mdePct: 0.075
  }),
  comparison({
    workload: 'matmul',
    metric: 'tflops',
    unit: 'TFLOP/s',
    direction: 'higher',
    ...v('matmul/tflops'),
    ciHalf: 0.045,
    p: 0.52,
    pAdjusted: 1,
    tostP: 1e-9,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p < 0.001).',
    mdePct: 0.075
  }),
  comparison({
    workload: 'llm',
    metric: 'tpot_ms',
    unit: 'ms',
    ...v('llm/tpot_ms'),
    ciHalf: 12.1,
    p: 0.47,
    pAdjusted: 1,
    tostP: 0.41,
    verdict: 'inconclusive',
    reason: wide,
    mdePct: 17.8,
    runsNeeded: 780
  }),
  comparison({
    workload: 'llm',
    metric: 'tokens_per_s',
    unit: 'tokens/s',
    direction: 'higher',
    ...v('llm/tokens_per_s'),
    ciHalf: 12.4,
    p: 0.49,
    pAdjusted: 1,
    tostP: 0.42,
    verdict: 'inconclusive',
    reason: wide,
    mdePct: 18.1,
    runsNeeded: 800
  })
]
const startup = [...startupComparisons('matmul', d.startup.matmul!), ...startupComparisons('llm', d.startup.llm!)]
const worst = [...steady].sort((a, b) => b.overhead_pct - a.overhead_pct)[0]!

export const inconclusive: CheckSummary = {
  ...pass,
  check_id: '20251126T140512Z-0c9e',
  started_at: new Date(d.startMs).toISOString(),
  finished_at: new Date(d.endMs).toISOString(),
  wall_s: (d.endMs - d.startMs) / 1000,
  verdict: 'inconclusive',
  overhead_pct: worst.overhead_pct,
  p_value: worst.p_adjusted,
  config: { ...pass.config, workloads: ['matmul', 'llm'], runs: 10 },
  analysis: { comparisons: [...steady, ...startup], verdict: 'inconclusive', max_overhead_pct: 2, alpha: 0.05 },
  latency: d.latency,
  telemetry: d.telemetry,
  runs: d.runs,
  series: d.series,
  baseline: {
    status: 'disabled',
    path: '',
    message: 'Baseline comparison is off (input baseline is empty)',
    comparisons: [],
    saved: false
  },
  not_measured: [
    ...pass.not_measured,
    { what: 'io workload', why: 'not in the workloads input (matmul,llm).' }
  ],
  warnings: [
    'llm: TPOT ranged 14.1–24.3 ms within one arm: eager-mode decode is launch-bound on this GPU. Enable CUDA graphs (llm cuda_graphs: true) to make it gateable.'
  ]
}
