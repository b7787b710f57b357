/** The three built-in workloads (workloads/*.py) as definitions: one entry each, the only place they differ. */
import { WORKLOADS, type BuiltinWorkload } from '../../types/index.js'
import type { WorkloadDefinition, WorkloadSettings } from './definition.js'
import { llmRequests } from '../tail-metrics.js'

// Measured regions on a GPU. What needs blocks is the process-to-process level, not the requests or products
// within a process (TPOT sd 0.004-0.036 ms over 8 requests), so shorter processes shorten the check at no cost in
// decisions and straddle fewer host-state changes: 100 products and 12 requests took 128.7-157.9 s on 2 x H100,
// 60 and 8 took 93-101 s where 3 blocks decided and 122.8 s alone where the llm needed 5
// (docs/evidence/2026-11-26-h100x2-neighbours.md). Since an equivalence needs 10 processes per arm (issue 52,
// T2) every passing check runs 10 blocks of each, so each process is as short as its decision allows: 26
// products (40.8 ms each at 10,000² fp32 on an H100/H200: a 1.06 s region, above the 1.0 s the NVML energy
// counter needs, workloads/_torchutil.py; the 40 before spread 0.07% between processes) and 3 requests a process
// (6 before; at 3 the TTFT/TPOT intervals were within ±0.4% at 10 blocks on an H100, TOST p ≤ 4e-6; at 2, the
// median of 2 is their mean and one slow first token moved TTFT −1.34% [−3.91, +1.07]: the identical image went
// undecided, docs/evidence/2026-12-06-h100-short.md). Together with the held container's imports off the critical
// path (execute/held-freeze.ts) the default check went from 205 s to docs/evidence/2026-12-06-h100-short.md's.
const GPU_MATMUL_ITERS = 26
const GPU_LLM_ITERS = 3
// Token gaps per llm request (its output length − 1, workloads/llm.py's defaults): what an ITL tail rests on.
const LLM_GAPS = { gpu: 127, cpu: 7 } as const
// Before measuring, each GPU llm process has captured its CUDA graphs and checked them against an eager pass
// (16 tokens each way): one full warm-up request then suffices, where the workload's default is two (~0.45 s
// each on an H100; docs/evidence/2026-11-27-h100x4-alone.md compares 1 and 2).
const GPU_LLM_WARMUP = 1
// io's passes per process while its throughput only informs: 1 (2 before 1.1; a pass is ~1-1.8 s on an H100
// host's disk). Its pass-to-pass spread (±15-30%) is what it is with 1, 2 or 3, and the 2 processes per arm
// still give it an interval; a gated throughput keeps 3 and a warm-up pass.
const INFORMATIONAL_IO_ITERS = 1
const GATED_IO_ITERS = 3

const common = (s: WorkloadSettings): string[] => ['--device', s.device, '--seed', String(s.seed)]

/** What every built-in shares: a script of the same name, the protocol channel, prestart. */
const builtin = (name: BuiltinWorkload) =>
  ({
    name,
    start: { kind: 'script', script: `${name}.py` },
    usesIoFolders: false,
    resultFormat: null,
    prestart: true,
    turns: false,
    metrics: { informational: [], gatedOnRequest: [], onlyGatedOnRequest: false },
    checksLlmMemory: false,
    domains: 'compute'
  }) as const

export const BUILTIN_DEFINITIONS: Readonly<Record<BuiltinWorkload, WorkloadDefinition>> = {
  matmul: {
    ...builtin('matmul'),
    // On a GPU, 26 products (~1.06 s at 10,000² fp32): start-up is hidden by prestart.
    args: s => [
      ...common(s),
      '--size',
      String(s.matmulSize),
      '--dtype',
      s.matmulDtype,
      ...(s.device === 'gpu' ? ['--iters', String(GPU_MATMUL_ITERS)] : [])
    ],
    params: s => ({ device: s.device, size: s.matmulSize, dtype: s.matmulDtype })
  },
  llm: {
    ...builtin('llm'),
    // Per-run medians over 3 requests are stable enough (process-to-process CV of TPOT ≈ 0.6% on an H200).
    // A gated TTFT/TPOT tail needs more: its percentile must rest on 3 requests beyond it (tail-metrics.ts).
    args: s => [
      ...common(s),
      '--preset',
      s.llmPreset,
      '--iters',
      String(llmRequests(s.device === 'gpu' ? GPU_LLM_ITERS : 6, s.gateMetrics ?? [], LLM_GAPS[s.device])),
      ...(s.device === 'gpu' ? ['--warmup', String(GPU_LLM_WARMUP)] : [])
    ],
    // On a GPU the prefill runs as a CUDA graph since 2026-11-23 (TTFT ≈ 3.5% lower than the eager prefill's):
    // the parameter keeps baselines recorded before from being matched to it.
    params: s =>
      s.device === 'gpu'
        ? { device: s.device, preset: s.llmPreset, prefill: 'cuda-graph' }
        : { device: s.device, preset: s.llmPreset },
    checksLlmMemory: true,
    // One request per turn: the host state that moved TPOT by 11% every few processes beside a neighbour
    // (docs/evidence/2026-11-27-h100x4-alone.md) then hits both arms' k-th request alike.
    turns: true,
    // Decode launches many small kernels: the CPU side (launch path, Python) shows in its latency.
    domains: 'compute-and-launch'
  },
  io: {
    ...builtin('io'),
    args: (s, io) => [
      ...common(s),
      '--data',
      io.data,
      '--ckpt',
      io.checkpoint,
      '--ckpt-mb',
      String(s.checkpointMb),
      '--iters',
      String(s.gateIoThroughput ? GATED_IO_ITERS : INFORMATIONAL_IO_ITERS),
      // Informational throughput (the default) needs no warm-up pass: each io process was 1.2-1.4 s shorter
      // for it on an H200 (docs/evidence/2026-11-23-h200-final). A gated throughput keeps the workload's
      // warm-up pass, and the per-run median of 3 passes.
      ...(s.gateIoThroughput ? [] : ['--warmup', '0']),
      // Copy-up grows linearly with file size (≈1.3 ms/MiB measured): three sizes show the slope.
      '--copyup-sizes-mb',
      s.device === 'cpu' ? '1,16' : '1,16,128',
      ...(s.device === 'cpu' ? ['--small-files', '500'] : [])
    ],
    params: s => ({ device: s.device, checkpoint_mb: s.checkpointMb }),
    usesIoFolders: true,
    metrics: {
      // The container's writable layer (scratch, small files, copy-up): the OverlayFS tax that seed 003 warns
      // about. A job that keeps its data on bind mounts never pays it; gating on it would fail every check.
      informational: ['scratch_write_mb_s', 'scratch_read_mb_s', 'small_files_ops_s', 'copyup_ms'],
      // The job's data path through bind mounts: the same file system in both arms, so on a real disk the
      // MB/s difference is disk and page-cache noise (an H100 check needed ~575 runs per arm to resolve ±2%).
      gatedOnRequest: ['ckpt_write_mb_s', 'data_read_mb_s'],
      // Unless asked, io's mount rule and copy-up probe are the io gate.
      onlyGatedOnRequest: true
    },
    domains: 'io'
  }
}

/** The built-in of this name, or null (a user command, or a workload of an older result file). */
export function builtinDefinition(name: string): WorkloadDefinition | null {
  return (WORKLOADS as readonly string[]).includes(name) ? BUILTIN_DEFINITIONS[name as BuiltinWorkload] : null
}
