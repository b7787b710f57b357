/** REGRESSION: the container's 10,000² fp32 matmul is 3.1% slower (42.3 vs 41.0 ms); everything else as in pass. */
import type { CheckSummary } from '../../../src/types/index.js'
import { comparison, startupComparisons } from './build.js'
import { h200Data } from './h200.js'
import { pass } from './pass.js'

const d = h200Data({ n: 20, workloads: ['matmul', 'llm', 'io'], seed: 1000, matmulContainerMs: 42.27 })
const v = (key: string): { base: number[]; cand: number[] } => ({ base: d.steady[key]!.native, cand: d.steady[key]!.container })
const reason =
  'significant (Welch p Holm < 0.001) and the whole 95% CI is above the 2% limit: the container is slower.'

const matmul = [
  comparison({
    workload: 'matmul',
    metric: 'kernel_ms',
    unit: 'ms',
    ...v('matmul/kernel_ms'),
    ci: [2.6, 3.5],
    p: 2.1e-38,
    pAdjusted: 1.1e-37,
    tostP: 1,
    verdict: 'regression',
    reason,
    mdePct: 0.052
  }),
  comparison({
    workload: 'matmul',
    metric: 'tflops',
    unit: 'TFLOP/s',
    direction: 'higher',
    ...v('matmul/tflops'),
    ci: [2.6, 3.5],
    p: 2.4e-38,
    pAdjusted: 9.6e-38,
    tostP: 1,
    verdict: 'regression',
    reason,
    mdePct: 0.052
  })
]
const others = pass.analysis!.comparisons.filter(c => c.scope === 'steady' && c.workload !== 'matmul')
const info = pass.analysis!.comparisons.filter(c => c.scope === 'info')
const startup = [...startupComparisons('matmul', d.startup.matmul!), ...startupComparisons('llm', d.startup.llm!)]

export const regression: CheckSummary = {
  ...pass,
  check_id: '20251125T031122Z-b21c',
  started_at: new Date(d.startMs).toISOString(),
  finished_at: new Date(d.endMs).toISOString(),
  wall_s: (d.endMs - d.startMs) / 1000,
  verdict: 'regression',
  overhead_pct: matmul[0]!.overhead_pct,
  p_value: matmul[0]!.p_adjusted,
  analysis: {
    comparisons: [...matmul, ...others, ...info, ...startup],
    verdict: 'regression',
    max_overhead_pct: 2,
    alpha: 0.05
  },
  latency: d.latency,
  telemetry: d.telemetry,
  runs: d.runs,
  series: d.series,
  baseline: {
    status: 'no-baseline',
    path: '.github/gpu-overhead/baseline.json',
    message: 'No baseline file yet; a run on the default branch with save-baseline: true creates one',
    comparisons: [],
    saved: false
  }
}
