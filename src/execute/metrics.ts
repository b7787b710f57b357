/**
 * Which measured metrics gate the check. Steady-state GPU work and the job's own data path (bind
 * mounts) gate; the container's writable layer (scratch, small files, copy-up) is the OverlayFS tax
 * that seed 003 warns about — reported as information, because a job that keeps its data on bind
 * mounts never pays it, and gating on it would fail every check by design.
 */
import type { SampleEvent, SampleRecord } from '../types/index.js'

const INFO_METRICS = new Set(['scratch_write_mb_s', 'scratch_read_mb_s', 'small_files_ops_s', 'copyup_ms'])

export function sampleScope(metric: string): SampleRecord['scope'] {
  return INFO_METRICS.has(metric.split('@')[0] ?? metric) ? 'info' : 'steady'
}

/** Copy-up samples of different file sizes are different metrics: `copyup_ms@128MiB`. */
export function sampleMetricName(event: SampleEvent): string {
  const sizeClass = event.size_class
  return typeof sizeClass === 'string' && /^[\w.]+$/.test(sizeClass)
    ? `${event.metric}@${sizeClass}`
    : event.metric
}
