/**
 * GPU memory per process, from the workload's `memory` event (after warm-up), as per-process sample
 * records: compared between arms like any metric, informational unless the check gates on memory.
 */
import type { Direction, MemoryEvent, SampleRecord } from '../types/index.js'

const MIB = 1024 * 1024

/** metric ← event field, bytes turned into MiB. kv_cache_tokens_fit is a count (more is better). */
export const MEMORY_METRICS: readonly {
  metric: string
  field: string
  unit: string
  bytes: boolean
  better: Direction
}[] = [
  {
    metric: 'gpu_mem_process_mib',
    field: 'nvml_process_used_bytes',
    unit: 'MiB',
    bytes: true,
    better: 'lower'
  },
  {
    metric: 'gpu_mem_reserved_mib',
    field: 'torch_reserved_bytes',
    unit: 'MiB',
    bytes: true,
    better: 'lower'
  },
  {
    metric: 'gpu_mem_peak_allocated_mib',
    field: 'torch_max_allocated_bytes',
    unit: 'MiB',
    bytes: true,
    better: 'lower'
  },
  { metric: 'gpu_mem_non_torch_mib', field: 'non_torch_bytes', unit: 'MiB', bytes: true, better: 'lower' },
  {
    metric: 'kv_cache_tokens_fit',
    field: 'kv_cache_tokens_fit',
    unit: 'tokens',
    bytes: false,
    better: 'higher'
  }
]

export function isMemoryEvent(e: unknown): e is MemoryEvent {
  return typeof e === 'object' && e !== null && (e as { event?: unknown }).event === 'memory'
}

/** One record per known, finite field of the event (iteration 0: one value per process). */
export function memoryRecords(
  event: MemoryEvent,
  base: Omit<SampleRecord, 'metric' | 'value' | 'unit' | 'scope' | 'iteration' | 'time' | 'better'>,
  time: string,
  gated: boolean
): SampleRecord[] {
  const out: SampleRecord[] = []
  for (const m of MEMORY_METRICS) {
    const raw = event[m.field]
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0) continue
    out.push({
      ...base,
      metric: m.metric,
      value: m.bytes ? raw / MIB : raw,
      unit: m.unit,
      better: m.better,
      scope: gated ? 'steady' : 'info',
      iteration: 0,
      time
    })
  }
  return out
}
