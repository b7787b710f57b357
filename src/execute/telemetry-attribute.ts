/**
 * Attribution of telemetry samples to time windows (one window per run), energy by trapezoidal
 * integration of power, EDP, and the per-(workload, environment) summary the report renders.
 */
import type { RegionTelemetry, RunRecord, TelemetrySample, TelemetrySummary } from '../types/index.js'
import { isThrottled } from './telemetry-parse.js'
import { appendAll } from '../util/arrays.js'
import { at, first as firstOf, must } from '../util/must.js'

export interface TelemetryWindow {
  start_ms: number
  end_ms: number
  /** One GPU; absent = every GPU sampled (energy and power are then summed over GPUs). */
  gpu_index?: number
}

export interface WindowTelemetry {
  start_ms: number
  end_ms: number
  gpu_index: number | null
  /** Samples that arrived inside the window (all GPUs counted when gpu_index is null). */
  samples: number
  throttled_samples: number
  mean_util_pct: number | null
  mean_sm_clock_mhz: number | null
  /** Mean board power over the window's samples, watts (summed over GPUs when gpu_index is null). */
  mean_power_w: number | null
  /** Null when power does not cover the whole window (no samples, or a gap longer than maxGapMs). */
  energy_j: number | null
  energy_source: 'integrated-power' | null
}

export interface AttributeOptions {
  /**
   * Longest stretch without a power reading that integration bridges (linearly), ms. Longer gaps
   * (nvidia-smi died, stalled) make energy unknown rather than guessed. Default 1000 (10 intervals).
   */
  maxGapMs?: number
}

/** Power of one sample: the instantaneous reading when the driver gives one (power.draw is a 1 s average on recent drivers). */
export function samplePower(s: TelemetrySample): number | null {
  return s.power_draw_instant_w ?? s.power_draw_w
}

function mean(values: (number | null)[]): number | null {
  let sum = 0
  let n = 0
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue
    sum += v
    n++
  }
  return n === 0 ? null : sum / n
}

type Point = { t: number; p: number }

/**
 * Integral of the piecewise-linear power curve through `points` (sorted by t) over [start, end], in
 * joules. The curve is interpolated across the window's edges from the neighbouring samples; at an
 * edge with no neighbour it is held flat from the nearest sample, if that is within maxGap.
 */
export function integratePower(points: Point[], start: number, end: number, maxGap: number): number | null {
  if (!(end > start) || points.length === 0) return end === start && points.length > 0 ? 0 : null
  const valueAt = (t: number): number | null => {
    let hi = points.findIndex(q => q.t >= t)
    if (hi === -1) hi = points.length
    const before = hi > 0 ? points[hi - 1] : undefined
    const after = hi < points.length ? points[hi] : undefined
    if (after && after.t === t) return after.p
    if (before && after) {
      if (after.t - before.t > maxGap) return null
      return before.p + ((after.p - before.p) * (t - before.t)) / (after.t - before.t)
    }
    const near = before ?? after
    return near && Math.abs(near.t - t) <= maxGap ? near.p : null
  }
  const pStart = valueAt(start)
  const pEnd = valueAt(end)
  if (pStart === null || pEnd === null) return null
  const inner = points.filter(q => q.t > start && q.t < end)
  const curve: Point[] = [{ t: start, p: pStart }, ...inner, { t: end, p: pEnd }]
  let joules = 0
  for (let i = 1; i < curve.length; i++) {
    const a = at(curve, i - 1)
    const b = at(curve, i)
    if (b.t - a.t > maxGap) return null
    joules += ((a.p + b.p) / 2) * ((b.t - a.t) / 1000)
  }
  return joules
}

function powerPoints(samples: TelemetrySample[]): Point[] {
  const points: Point[] = []
  for (const s of samples) {
    const p = samplePower(s)
    if (p !== null && Number.isFinite(p)) points.push({ t: s.time_ms, p })
  }
  // Samples of one GPU arrive in order; sort anyway (stable) so merged inputs work too.
  return points.sort((a, b) => a.t - b.t)
}

function attributeOne(
  byGpu: Map<number, TelemetrySample[]>,
  w: TelemetryWindow,
  maxGap: number
): WindowTelemetry {
  const gpus = w.gpu_index === undefined ? [...byGpu.keys()] : [w.gpu_index]
  const inside: TelemetrySample[] = []
  let power: number | null = null
  let energy: number | null = gpus.length === 0 ? null : 0
  for (const gpu of gpus) {
    const series = byGpu.get(gpu) ?? []
    const mine = series.filter(s => s.time_ms >= w.start_ms && s.time_ms <= w.end_ms)
    appendAll(inside, mine)
    const p = mean(mine.map(samplePower))
    if (p !== null) power = (power ?? 0) + p
    const e = integratePower(powerPoints(series), w.start_ms, w.end_ms, maxGap)
    energy = energy === null || e === null ? null : energy + e
  }
  return {
    start_ms: w.start_ms,
    end_ms: w.end_ms,
    gpu_index: w.gpu_index ?? null,
    samples: inside.length,
    throttled_samples: inside.filter(s => isThrottled(s.clocks_event_reasons)).length,
    mean_util_pct: mean(inside.map(s => s.utilization_gpu_pct)),
    mean_sm_clock_mhz: mean(inside.map(s => s.clocks_sm_mhz)),
    mean_power_w: power,
    energy_j: energy,
    energy_source: energy === null ? null : 'integrated-power'
  }
}

/** Per window: means, throttled count and integrated energy of the samples that fall in it. */
export function attribute(
  samples: readonly TelemetrySample[],
  windows: readonly TelemetryWindow[],
  options: AttributeOptions = {}
): WindowTelemetry[] {
  const maxGap = options.maxGapMs ?? 1000
  const byGpu = new Map<number, TelemetrySample[]>()
  for (const s of samples) {
    const list = byGpu.get(s.gpu_index)
    if (list) list.push(s)
    else byGpu.set(s.gpu_index, [s])
  }
  for (const list of byGpu.values()) list.sort((a, b) => a.time_ms - b.time_ms)
  return windows.map(w => attributeOne(byGpu, w, maxGap))
}

/** Energy-delay product, joules x seconds; null when either is unknown. */
export function edp(energy_j: number | null, seconds: number | null): number | null {
  if (energy_j === null || seconds === null || !Number.isFinite(energy_j) || !Number.isFinite(seconds))
    return null
  return energy_j * seconds
}

/**
 * Fill a run's telemetry fields from its window. Energy the workload measured itself through NVML's
 * counter (energy_source 'nvml') is kept: it is exact where integration of 100 ms samples is not.
 */
export function withTelemetry(run: RunRecord, window: WindowTelemetry): RunRecord {
  const keepNvml = run.energy_source === 'nvml' && run.energy_j !== null
  return {
    ...run,
    energy_j: keepNvml ? run.energy_j : window.energy_j,
    energy_source: keepNvml ? 'nvml' : window.energy_source,
    mean_util_pct: window.mean_util_pct,
    mean_sm_clock_mhz: window.mean_sm_clock_mhz,
    mean_power_w: window.mean_power_w,
    throttled_samples: window.throttled_samples,
    telemetry_samples: window.samples
  }
}

export interface SummarizeOptions {
  /**
   * The delay for EDP, seconds, per run. Default: the run's wall time (end_ms − start_ms), the same
   * window the sampler's energy is attributed to. Give the measured region's time when energy is NVML's.
   */
  delaySeconds?: (run: RunRecord) => number | null
}

function weightedMean(runs: RunRecord[], pick: (r: RunRecord) => number | null): number | null {
  let sum = 0
  let weight = 0
  for (const r of runs) {
    const v = pick(r)
    if (v === null || !Number.isFinite(v) || r.telemetry_samples <= 0) continue
    sum += v * r.telemetry_samples
    weight += r.telemetry_samples
  }
  return weight === 0 ? null : sum / weight
}

/** The group's telemetry over the measured regions, sample-weighted; null when no run has any. */
function regionSummary(group: RunRecord[]): TelemetrySummary['region'] {
  const parts = group.map(r => r.region).filter((x): x is RegionTelemetry => !!x && x.samples > 0)
  if (parts.length === 0) return null
  const w = (pick: (x: RegionTelemetry) => number | null): number | null => {
    let sum = 0
    let n = 0
    for (const x of parts) {
      const v = pick(x)
      if (v === null || !Number.isFinite(v)) continue
      sum += v * x.samples
      n += x.samples
    }
    return n === 0 ? null : sum / n
  }
  const energies = parts.map(x => x.energy_j).filter((e): e is number => e !== null)
  return {
    samples: parts.reduce((n, x) => n + x.samples, 0),
    util_pct: w(x => x.util_pct),
    sm_clock_mhz: w(x => x.sm_clock_mhz),
    power_w: w(x => x.power_w),
    energy_j_per_run: energies.length === parts.length ? mean(energies) : null,
    throttled_samples: parts.reduce((n, x) => n + x.throttled_samples, 0),
    reasons: [...new Set(parts.flatMap(x => x.reasons))].sort()
  }
}

/**
 * One row per (workload, environment) over measured runs (warm-ups and failed runs left out).
 * Means are weighted by each run's sample count. Energy per run prefers NVML's counter: when any run
 * of the group has it, only NVML energies are averaged (sources are never mixed).
 */
export function summarizeTelemetry(
  runs: readonly RunRecord[],
  options: SummarizeOptions = {}
): TelemetrySummary[] {
  const delay = options.delaySeconds ?? ((r: RunRecord) => (r.end_ms - r.start_ms) / 1000)
  const groups = new Map<string, RunRecord[]>()
  for (const r of runs) {
    if (r.warmup || r.status !== 'ok') continue
    // Per GPU on a multi-GPU check: one hot or throttled GPU must not hide in an average.
    const key = JSON.stringify([r.workload, r.environment, r.gpu ?? null])
    const list = groups.get(key)
    if (list) list.push(r)
    else groups.set(key, [r])
  }
  const rows: TelemetrySummary[] = []
  for (const group of groups.values()) {
    const first = firstOf(group)
    const source: 'nvml' | 'integrated-power' | null = group.some(
      r => r.energy_source === 'nvml' && r.energy_j !== null
    )
      ? 'nvml'
      : group.some(r => r.energy_source === 'integrated-power' && r.energy_j !== null)
        ? 'integrated-power'
        : null
    const withEnergy = group.filter(r => r.energy_source === source && r.energy_j !== null)
    const energies = withEnergy.map(r => must(r.energy_j, 'withEnergy keeps runs with energy'))
    const edps = withEnergy.map(r => edp(r.energy_j, delay(r)))
    rows.push({
      workload: first.workload,
      environment: first.environment,
      ...(first.gpu === undefined ? {} : { gpu: first.gpu }),
      runs: group.length,
      samples: group.reduce((n, r) => n + r.telemetry_samples, 0),
      mean_util_pct: weightedMean(group, r => r.mean_util_pct),
      mean_sm_clock_mhz: weightedMean(group, r => r.mean_sm_clock_mhz),
      mean_power_w: weightedMean(group, r => r.mean_power_w),
      energy_j_per_run: source === null ? null : mean(energies),
      energy_source: source,
      edp_js: source === null ? null : mean(edps),
      throttled_samples: group.reduce((n, r) => n + r.throttled_samples, 0),
      region: regionSummary(group)
    })
  }
  return rows
}
