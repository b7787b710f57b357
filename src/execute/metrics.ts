/**
 * Which measured metrics gate the check. Steady-state GPU work and the job's own data path (bind
 * mounts) gate; the container's writable layer (scratch, small files, copy-up) is the OverlayFS tax
 * that seed 003 warns about — reported as information, because a job that keeps its data on bind
 * mounts never pays it, and gating on it would fail every check by design.
 */
import type { SampleEvent, SampleRecord } from '../types/index.js'

const INFO_METRICS = new Set(['scratch_write_mb_s', 'scratch_read_mb_s', 'small_files_ops_s', 'copyup_ms'])
/**
 * The job's data path through bind mounts: the same file system in both arms, so on a real disk the MB/s
 * difference is disk and page-cache noise (an H100 check needed ~575 runs per arm to resolve ±2%). Reported
 * for information unless gate-io-throughput asks for it; io's mount rule and copy-up probe are the io gate.
 */
const IO_THROUGHPUT_METRICS = new Set(['ckpt_write_mb_s', 'data_read_mb_s'])

/**
 * A metric the workload marks as a function of another (`derived_from`) is shown, never tested again;
 * writable-layer metrics, and I/O throughput unless asked to gate it, are informational.
 */
export function sampleScope(
  event: Pick<SampleEvent, 'metric' | 'derived_from'>,
  gateIoThroughput = false
): SampleRecord['scope'] {
  const name = event.metric.split('@')[0] ?? event.metric
  if (INFO_METRICS.has(name)) return 'info'
  if (ioThroughputInformational(name, gateIoThroughput)) return 'info'
  return typeof event.derived_from === 'string' && event.derived_from !== '' ? 'derived' : 'steady'
}

/** The workload whose only gateable samples are the I/O throughput metrics. */
const IO_WORKLOAD = 'io'

/**
 * The one rule for io's bind-mount MB/s: informational unless gate-io-throughput asks to gate it. Both the
 * sample's scope (sampleScope) and whether io must emit a gated sample (workloadsGatedBySamples) follow it.
 */
function ioThroughputInformational(metric: string, gateIoThroughput: boolean): boolean {
  return IO_THROUGHPUT_METRICS.has(metric) && !gateIoThroughput
}

/**
 * The workloads that must emit a gated sample for the check to count as measured. io's only gateable
 * samples are its throughput: when those are informational, io gates through its mount rule and copy-up
 * probe instead, so it need not.
 */
export function workloadsGatedBySamples(workloads: readonly string[], gateIoThroughput: boolean): string[] {
  const ioGatedBySamples = [...IO_THROUGHPUT_METRICS].some(
    m => !ioThroughputInformational(m, gateIoThroughput)
  )
  return workloads.filter(w => w !== IO_WORKLOAD || ioGatedBySamples)
}

/** Copy-up samples of different file sizes are different metrics: `copyup_ms@128MiB`. */
export function sampleMetricName(event: SampleEvent): string {
  const sizeClass = event.size_class
  return typeof sizeClass === 'string' && /^[\w.]+$/.test(sizeClass)
    ? `${event.metric}@${sizeClass}`
    : event.metric
}
