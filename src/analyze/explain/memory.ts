/** Per-process GPU memory that shifted significantly between the arms: a cost of its own. */
import type { Comparison, Finding } from '../../types/index.js'
import { MEMORY_METRIC, isMeasuredDifference } from './measured.js'

const MEMORY_MEANING: Readonly<Record<string, string>> = {
  gpu_mem_process_mib:
    'device memory the driver charges the process (NVML): context, kernel images, library workspaces and the allocator pool',
  gpu_mem_non_torch_mib:
    'device memory outside torch’s pool: CUDA context, loaded kernel images (EAGER module loading), cuBLAS/cuDNN workspaces',
  gpu_mem_reserved_mib: 'memory torch’s caching allocator holds',
  gpu_mem_peak_allocated_mib: 'peak memory of live tensors',
  kv_cache_tokens_fit: 'KV-cache tokens that still fit on the device after warm-up'
}

/** Memory metrics that shifted significantly: a cost of their own (less room for batch or KV cache). */
export function memoryFindings(comparisons: readonly Comparison[], alpha: number): Finding[] {
  return comparisons
    .filter(c => MEMORY_METRIC.test(c.metric) && isMeasuredDifference(c, alpha))
    .map(c => ({
      kind: 'memory' as const,
      key: `memory:${c.workload}:${c.metric}`,
      label: `${c.metric} of ${c.workload}`,
      baseline: `${c.mean_baseline.toFixed(0)} ${c.unit}`,
      candidate: `${c.mean_candidate.toFixed(0)} ${c.unit}`,
      impact: 2 as const,
      domains: ['memory' as const],
      explains: [],
      workloads: [c.workload],
      meaning: MEMORY_MEANING[c.metric] ?? 'GPU memory differs between the arms',
      fix: 'compare CUDA_MODULE_LOADING, PYTORCH_CUDA_ALLOC_CONF and the CUDA library rows; a larger footprint leaves less room for batch and KV cache',
      relevant: false
    }))
}
