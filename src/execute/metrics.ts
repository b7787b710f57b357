/**
 * Which measured metrics gate the check. Steady-state GPU work and the job's own data path (bind mounts)
 * gate; what the built-ins' definitions list as informational (config/workloads/builtins.ts) is reported
 * only. A metric's scope goes with its name, whoever emits it.
 */
import {
  BUILTIN_DEFINITIONS,
  gatedBySamples,
  isGatedTail,
  isTailMetric,
  type GateMetricSet,
  type WorkloadDefinition
} from '../config/index.js'
import type { SampleEvent, SampleRecord } from '../types/index.js'

const BUILTINS = Object.values(BUILTIN_DEFINITIONS)
const INFO_METRICS = new Set(BUILTINS.flatMap(d => d.metrics.informational))
/** Informational unless gate-io-throughput asks for them (io's bind-mount MB/s). */
const GATED_ON_REQUEST = new Set(BUILTINS.flatMap(d => d.metrics.gatedOnRequest))

/**
 * A metric the workload marks as a function of another (`derived_from`) is shown, never tested again;
 * writable-layer metrics, and I/O throughput unless asked to gate it, are informational; a tail percentile
 * of the llm (config/tail-metrics.ts) is shown, and gates where gate-metrics names it.
 */
export function sampleScope(
  event: Pick<SampleEvent, 'metric' | 'derived_from'>,
  gateIoThroughput = false,
  workload?: string,
  gateMetrics?: GateMetricSet
): SampleRecord['scope'] {
  const name = event.metric.split('@')[0] ?? event.metric
  if (workload !== undefined && isTailMetric(workload, name))
    return isGatedTail(workload, name, gateMetrics) ? 'steady' : 'tail'
  if (INFO_METRICS.has(name)) return 'info'
  if (GATED_ON_REQUEST.has(name) && !gateIoThroughput) return 'info'
  return typeof event.derived_from === 'string' && event.derived_from !== '' ? 'derived' : 'steady'
}

/**
 * The workloads that must emit a gated sample for the check to count as measured (io, whose only gateable
 * samples are its throughput, gates through its mount rule and copy-up probe while those are informational).
 */
export function workloadsGatedBySamples(
  definitions: readonly Pick<WorkloadDefinition, 'name' | 'metrics'>[],
  gateIoThroughput: boolean
): string[] {
  return definitions.filter(d => gatedBySamples(d, gateIoThroughput)).map(d => d.name)
}

/** Copy-up samples of different file sizes are different metrics: `copyup_ms@128MiB`. */
export function sampleMetricName(event: SampleEvent): string {
  const sizeClass = event.size_class
  return typeof sizeClass === 'string' && /^[\w.]+$/.test(sizeClass)
    ? `${event.metric}@${sizeClass}`
    : event.metric
}
