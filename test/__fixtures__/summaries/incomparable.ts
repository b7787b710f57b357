/**
 * INCOMPARABLE: on an 8-GPU host the native arm ran on CUDA device 0 (FASTEST_FIRST order) while the
 * container was given /dev/nvidia3: two different boards, so no regression verdict is given.
 */
import type { CheckSummary } from '../../../src/types/index.js'
import { H200_CONTAINER, H200_NATIVE, comparison, startupComparisons } from './build.js'
import { h200Data } from './h200.js'
import { pass } from './pass.js'

const d = h200Data({ n: 20, workloads: ['matmul'], seed: 3000, matmulContainerMs: 41.17 })
const v = (key: string): { base: number[]; cand: number[] } => ({ base: d.steady[key]!.native, cand: d.steady[key]!.container })
const OTHER_GPU = 'GPU-9a07c3e1-2d4b-4f8a-b6e3-71c0d5a9e2f8'
const reason = `arms ran on different GPUs (native ${H200_NATIVE.gpu_uuid}, container ${OTHER_GPU}); pin one GPU for both arms.`

const steady = [
  comparison({
    workload: 'matmul',
    metric: 'kernel_ms',
    unit: 'ms',
    ...v('matmul/kernel_ms'),
    ciHalf: 0.03,
    p: 1e-20,
    pAdjusted: 2e-20,
    tostP: 1e-12,
    verdict: 'incomparable',
    reason,
    mdePct: 0.052
  }),
  comparison({
    workload: 'matmul',
    metric: 'tflops',
    unit: 'TFLOP/s',
    direction: 'higher',
    ...v('matmul/tflops'),
    ciHalf: 0.03,
    p: 1e-20,
    pAdjusted: 2e-20,
    tostP: 1e-12,
    verdict: 'incomparable',
    reason,
    mdePct: 0.052
  })
]

export const incomparable: CheckSummary = {
  ...pass,
  check_id: '20251127T080044Z-5d21',
  started_at: new Date(d.startMs).toISOString(),
  finished_at: new Date(d.endMs).toISOString(),
  wall_s: (d.endMs - d.startMs) / 1000,
  verdict: 'incomparable',
  overhead_pct: steady[0]!.overhead_pct,
  p_value: steady[0]!.p_adjusted,
  config: { ...pass.config, workloads: ['matmul'] },
  fingerprints: { native: H200_NATIVE, container: { ...H200_CONTAINER, gpu_uuid: OTHER_GPU } },
  preflight: [
    ...pass.preflight.filter(p => p.name !== 'clocks'),
    {
      name: 'gpu-selection',
      status: 'warn',
      message: `native CUDA device 0 is ${H200_NATIVE.gpu_uuid} (CUDA_DEVICE_ORDER=FASTEST_FIRST) but /dev/nvidia3 given to the container is ${OTHER_GPU}.`,
      fix: `select one GPU for both arms by UUID, e.g. gpu: ${H200_NATIVE.gpu_uuid}, or set CUDA_DEVICE_ORDER=PCI_BUS_ID.`
    }
  ],
  analysis: {
    comparisons: [...steady, ...startupComparisons('matmul', d.startup.matmul!)],
    verdict: 'incomparable',
    max_overhead_pct: 2,
    alpha: 0.05
  },
  latency: [],
  telemetry: d.telemetry,
  runs: d.runs,
  series: d.series,
  baseline: {
    status: 'no-match',
    path: '.github/gpu-overhead/baseline.json',
    message: 'The stored baseline was recorded with driver 575.51.03; this run has 580.159.04, so it was not compared',
    comparisons: [],
    saved: false
  },
  not_measured: [
    { what: 'llm, io workloads', why: 'not in the workloads input (matmul).' },
    { what: 'Multi-GPU (one container per GPU)', why: 'gpu-count is 1.' }
  ]
}
