/**
 * The measured region: workloads mark its start and end (`region` events), and telemetry is
 * attributed to those windows rather than to the whole process, whose start-up (imports, CUDA init)
 * would otherwise dilute utilisation, clocks and power. Several regions per process (the LLM measures
 * one per configuration) are combined sample-weighted; energy is the sum over the windows.
 */
import type { RegionEvent, RegionTelemetry, TelemetrySample } from '../types/index.js'
import { attribute, type WindowTelemetry } from './telemetry-attribute.js'
import { THROTTLE_MASK, reasonNames } from './telemetry-parse.js'

export interface RegionWindow {
  start_ms: number
  end_ms: number
}

/** Bounded: a workload marks a handful of regions; more is a broken or hostile stream. */
export const MAX_REGIONS = 1000

function isRegion(e: unknown): e is RegionEvent {
  const r = e as Partial<RegionEvent> | null
  return (
    r !== null &&
    typeof r === 'object' &&
    r.event === 'region' &&
    (r.edge === 'start' || r.edge === 'end') &&
    typeof r.epoch_s === 'number' &&
    Number.isFinite(r.epoch_s)
  )
}

/** start/end pairs in stream order; an end without a start, or a start never ended, is dropped. */
export function regionWindows(events: readonly unknown[]): RegionWindow[] {
  const out: RegionWindow[] = []
  let open: number | null = null
  for (const e of events) {
    if (!isRegion(e)) continue
    if (e.edge === 'start') open = e.epoch_s * 1000
    else if (open !== null && e.epoch_s * 1000 >= open) {
      out.push({ start_ms: open, end_ms: e.epoch_s * 1000 })
      open = null
      if (out.length >= MAX_REGIONS) break
    }
  }
  return out
}

function weighted(
  parts: readonly WindowTelemetry[],
  pick: (w: WindowTelemetry) => number | null
): number | null {
  let sum = 0
  let n = 0
  for (const w of parts) {
    const v = pick(w)
    if (v === null || w.samples === 0) continue
    sum += v * w.samples
    n += w.samples
  }
  return n === 0 ? null : sum / n
}

/** Telemetry over the windows, on one GPU when the process was pinned to one. */
export function regionTelemetry(
  samples: readonly TelemetrySample[],
  windows: readonly RegionWindow[],
  gpu?: number
): RegionTelemetry | null {
  if (windows.length === 0) return null
  const parts = attribute(
    samples,
    windows.map(w => ({ ...w, ...(gpu === undefined ? {} : { gpu_index: gpu }) }))
  )
  let mask = 0
  for (const s of samples) {
    if (s.clocks_event_reasons === null || (gpu !== undefined && s.gpu_index !== gpu)) continue
    if (windows.some(w => s.time_ms >= w.start_ms && s.time_ms <= w.end_ms)) mask |= s.clocks_event_reasons
  }
  const energies = parts.map(p => p.energy_j)
  return {
    seconds: windows.reduce((t, w) => t + (w.end_ms - w.start_ms) / 1000, 0),
    samples: parts.reduce((n, p) => n + p.samples, 0),
    util_pct: weighted(parts, p => p.mean_util_pct),
    sm_clock_mhz: weighted(parts, p => p.mean_sm_clock_mhz),
    power_w: weighted(parts, p => p.mean_power_w),
    energy_j: sumOrNull(energies),
    throttled_samples: parts.reduce((n, p) => n + p.throttled_samples, 0),
    reasons: reasonNames(mask & THROTTLE_MASK)
  }
}

/** The sum of `values` (in order, from 0), or null when any of them is null. */
function sumOrNull(values: readonly (number | null)[]): number | null {
  let total = 0
  for (const v of values) {
    if (v === null) return null
    total += v
  }
  return total
}
