/** The workload command line, the same for every arm; only paths differ between host and container. */
import type { Config } from '../config/index.js'
import type { Workload } from '../types/index.js'

export type WorkloadSettings = Pick<
  Config,
  'device' | 'matmulSize' | 'matmulDtype' | 'llmPreset' | 'checkpointMb' | 'seed' | 'gateIoThroughput'
> &
  Partial<Pick<Config, 'commands'>>

const GPU_MATMUL_ITERS = 100
const GPU_LLM_ITERS = 12

export interface IoPaths {
  data: string
  checkpoint: string
}

export function workloadArgs(workload: Workload, s: WorkloadSettings, io: IoPaths): string[] {
  const common = ['--device', s.device, '--seed', String(s.seed)]
  switch (workload) {
    case 'matmul':
      // On a GPU, 100 products (~4 s at 10,000² fp32): with start-up hidden by prestart, a longer measured
      // region is what raises the measured share of the check's time (≥ 60%), at no cost in precision.
      return [
        ...common,
        '--size',
        String(s.matmulSize),
        '--dtype',
        s.matmulDtype,
        ...(s.device === 'gpu' ? ['--iters', String(GPU_MATMUL_ITERS)] : [])
      ]
    case 'llm':
      // Per-run medians over 6 requests are already stable (process-to-process CV of TPOT ≈ 0.6% on an H200);
      // 12 on a GPU for the measured share, as for matmul.
      return [...common, '--preset', s.llmPreset, '--iters', s.device === 'gpu' ? String(GPU_LLM_ITERS) : '6']
    case 'io':
      return [
        ...common,
        '--data',
        io.data,
        '--ckpt',
        io.checkpoint,
        '--ckpt-mb',
        String(s.checkpointMb),
        '--iters',
        '3',
        // Informational throughput (the default) needs no warm-up pass: the per-run median of 3 passes
        // absorbs a cold first one, and each io process was 1.2-1.4 s shorter for it on an H200 (warm-up
        // pass; docs/evidence/2026-11-23-h200-final). A gated throughput keeps the workload's warm-up pass.
        ...(s.gateIoThroughput ? [] : ['--warmup', '0']),
        // Copy-up grows linearly with file size (≈1.3 ms/MiB measured): three sizes show the slope.
        '--copyup-sizes-mb',
        s.device === 'cpu' ? '1,16' : '1,16,128',
        ...(s.device === 'cpu' ? ['--small-files', '500'] : [])
      ]
    default:
      // A user command (execute/command-spec.ts) takes its own arguments, in its command line.
      return []
  }
}

/** Parameters recorded with every sample, so a baseline is only matched to the same work. */
export function workloadParams(workload: Workload, s: WorkloadSettings): Record<string, unknown> {
  switch (workload) {
    case 'matmul':
      return { device: s.device, size: s.matmulSize, dtype: s.matmulDtype }
    case 'llm':
      // On a GPU the prefill runs as a CUDA graph since 2026-11-23 (TTFT ≈ 3.5% lower than the eager prefill's):
      // the parameter keeps baselines recorded before from being matched to it.
      return s.device === 'gpu'
        ? { device: s.device, preset: s.llmPreset, prefill: 'cuda-graph' }
        : { device: s.device, preset: s.llmPreset }
    case 'io':
      return { device: s.device, checkpoint_mb: s.checkpointMb }
    default: {
      // A baseline is matched to the same command line (and how its results are read).
      const c = s.commands?.find(x => x.name === workload)
      return { device: s.device, command: c ? c.argv.join(' ') : workload, format: c?.format ?? 'auto' }
    }
  }
}
