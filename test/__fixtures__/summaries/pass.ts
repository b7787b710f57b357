/** PASS: H200, PyTorch 25.10 image, matmul + llm (CUDA graphs) + io, 20 runs per arm; no steady-state overhead. */
import type { CheckSummary } from '../../../src/types/index.js'
import {
  H200_CONTAINER,
  H200_NATIVE,
  PATHS,
  PYTORCH_IMAGE,
  comparison,
  startupComparisons,
  writableLayerComparisons
} from './build.js'
import { h200Data } from './h200.js'

const d = h200Data({ n: 20, workloads: ['matmul', 'llm', 'io'], seed: 1000 })
const v = (key: string): { base: number[]; cand: number[] } => ({ base: d.steady[key]!.native, cand: d.steady[key]!.container })

const steady = [
  comparison({
    workload: 'matmul',
    metric: 'kernel_ms',
    unit: 'ms',
    ...v('matmul/kernel_ms'),
    ciHalf: 0.03,
    p: 0.31,
    pAdjusted: 0.62,
    tostP: 1e-12,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p < 0.001); not significantly different from zero.',
    mdePct: 0.052
  }),
  comparison({
    workload: 'matmul',
    metric: 'tflops',
    unit: 'TFLOP/s',
    direction: 'higher',
    ...v('matmul/tflops'),
    ciHalf: 0.03,
    p: 0.31,
    pAdjusted: 0.62,
    tostP: 1e-12,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p < 0.001); not significantly different from zero.',
    mdePct: 0.052
  }),
  comparison({
    workload: 'llm',
    metric: 'tpot_ms',
    unit: 'ms',
    ...v('llm/tpot_ms'),
    ciHalf: 0.19,
    p: 0.048,
    pAdjusted: 0.192,
    tostP: 1e-10,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p < 0.001); the +0.1% difference is not significant after Holm.',
    mdePct: 0.27
  }),
  comparison({
    workload: 'llm',
    metric: 'tokens_per_s',
    unit: 'tokens/s',
    direction: 'higher',
    ...v('llm/tokens_per_s'),
    ciHalf: 0.19,
    p: 0.051,
    pAdjusted: 0.192,
    tostP: 1e-10,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p < 0.001); not significant after Holm.',
    mdePct: 0.27
  }),
  comparison({
    workload: 'io',
    metric: 'ckpt_write_mb_s',
    unit: 'MB/s',
    direction: 'higher',
    ...v('io/ckpt_write_mb_s'),
    ciHalf: 0.95,
    p: 0.035,
    pAdjusted: 0.175,
    tostP: 0.012,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p = 0.012); not significant after Holm.',
    mdePct: 1.4
  }),
  comparison({
    workload: 'io',
    metric: 'data_read_mb_s',
    unit: 'MB/s',
    direction: 'higher',
    ...v('io/data_read_mb_s'),
    ciHalf: 1.1,
    p: 0.41,
    pAdjusted: 1,
    tostP: 0.021,
    verdict: 'equivalent',
    reason: 'TOST: the overhead is within ±2% (p = 0.021).',
    mdePct: 1.6
  })
]

const startup = [...startupComparisons('matmul', d.startup.matmul!), ...startupComparisons('llm', d.startup.llm!)]
const info = writableLayerComparisons(1100, 20)
const worst = [...steady].sort((a, b) => b.overhead_pct - a.overhead_pct)[0]!

export const pass: CheckSummary = {
  schema: 'gpu-overhead/summary@1',
  check_id: '20251124T091403Z-7f3a',
  tool_version: '0.1.0',
  started_at: new Date(d.startMs).toISOString(),
  finished_at: new Date(d.endMs).toISOString(),
  wall_s: (d.endMs - d.startMs) / 1000,
  complete: true,
  incomplete_reason: null,
  verdict: 'pass',
  overhead_pct: worst.overhead_pct,
  p_value: worst.p_adjusted,
  config: {
    image: PYTORCH_IMAGE,
    workloads: ['matmul', 'llm', 'io'],
    runs: 20,
    device: 'gpu',
    gpu_access: 'devices',
    arms: ['native', 'container'],
    max_overhead_pct: 2,
    alpha: 0.05
  },
  arms: [
    { label: 'native', kind: 'native', image: null },
    { label: 'container', kind: 'container', image: PYTORCH_IMAGE }
  ],
  fingerprints: { native: H200_NATIVE, container: H200_CONTAINER },
  preflight: [
    {
      name: 'driver-gate',
      status: 'pass',
      message:
        'host driver 580.159.04 meets CUDA 13.0 (floor 580, release driver 580.65.06); image CUDA_VERSION 13.0.2.006.',
      fix: null
    },
    {
      name: 'mounts',
      status: 'pass',
      message: 'workloads and data are bind-mounted; nothing is written to the OverlayFS writable layer.',
      fix: null
    },
    { name: 'persistence-mode', status: 'pass', message: 'persistence mode is enabled.', fix: null },
    { name: 'mig', status: 'skip', message: 'MIG is disabled on GPU 0.', fix: null },
    {
      name: 'clocks',
      status: 'warn',
      message: 'SM clocks are not locked; boost may vary between runs (interleaving spreads it over both arms).',
      fix: 'lock clocks for the job: sudo nvidia-smi -i 0 -lgc 1980,1980 (reset with -rgc)'
    }
  ],
  analysis: {
    comparisons: [...steady, ...info, ...startup],
    verdict: 'equivalent',
    max_overhead_pct: 2,
    alpha: 0.05
  },
  latency: d.latency,
  telemetry: d.telemetry,
  baseline: {
    status: 'compared',
    path: '.github/gpu-overhead/baseline.json',
    message: 'Compared with the 10 stored per-run values of the last accepted run with this fingerprint (2025-11-20)',
    comparisons: [
      comparison({
        workload: 'matmul',
        metric: 'kernel_ms',
        unit: 'ms',
        baseEnv: 'container (stored)',
        candEnv: 'container',
        base: [41.003, 40.998, 41.006, 41.001, 40.995, 41.004, 41.0, 41.009, 40.997, 41.002],
        cand: d.steady['matmul/kernel_ms']!.container,
        ciHalf: 0.03,
        p: 0.44,
        pAdjusted: 0.88,
        tostP: 1e-12,
        verdict: 'equivalent',
        reason: 'within ±2% of the stored runs',
        mdePct: 0.05
      }),
      comparison({
        workload: 'llm',
        metric: 'tpot_ms',
        unit: 'ms',
        baseEnv: 'container (stored)',
        candEnv: 'container',
        base: [5.128, 5.131, 5.127, 5.135, 5.129, 5.126, 5.133, 5.13, 5.132, 5.128],
        cand: d.steady['llm/tpot_ms']!.container,
        ciHalf: 0.2,
        p: 0.71,
        pAdjusted: 0.88,
        tostP: 1e-9,
        verdict: 'equivalent',
        reason: 'within ±2% of the stored runs',
        mdePct: 0.3
      })
    ],
    saved: false
  },
  runs: d.runs,
  series: d.series,
  not_measured: [
    { what: 'Multi-GPU (one container per GPU)', why: 'this runner exposes one GPU.' },
    { what: 'MIG / MPS isolation', why: 'MIG is disabled and no MPS daemon runs on this host.' }
  ],
  warnings: [],
  paths: PATHS
}
