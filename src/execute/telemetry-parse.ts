/**
 * Parsing of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` lines into TelemetrySample,
 * and the telemetry.csv row format. Pure functions: no processes, no files.
 */
import type { TelemetrySample } from '../types/index.js'
import { csvCell } from '../util/text.js'

/** The sampler's default field list (the order nvidia-smi prints them in is the order asked). */
export const DEFAULT_TELEMETRY_FIELDS = [
  'timestamp',
  'index',
  'uuid',
  'utilization.gpu',
  'utilization.memory',
  'clocks.sm',
  'clocks.mem',
  'power.draw',
  'power.draw.instant',
  'temperature.gpu',
  'memory.used',
  'pstate',
  'clocks_event_reasons.active'
] as const

export type FieldKind = 'timestamp' | 'int' | 'number' | 'string' | 'reasons'
type SampleKey = Exclude<keyof TelemetrySample, 'time_ms'>

/** nvidia-smi query fields we understand, and where each one lands in a TelemetrySample. */
const FIELD_SPECS: Record<string, { key: SampleKey | null; kind: FieldKind }> = {
  timestamp: { key: null, kind: 'timestamp' },
  index: { key: 'gpu_index', kind: 'int' },
  uuid: { key: 'gpu_uuid', kind: 'string' },
  gpu_uuid: { key: 'gpu_uuid', kind: 'string' },
  'utilization.gpu': { key: 'utilization_gpu_pct', kind: 'number' },
  'utilization.memory': { key: 'utilization_memory_pct', kind: 'number' },
  'clocks.sm': { key: 'clocks_sm_mhz', kind: 'number' },
  'clocks.current.sm': { key: 'clocks_sm_mhz', kind: 'number' },
  'clocks.mem': { key: 'clocks_mem_mhz', kind: 'number' },
  'clocks.current.memory': { key: 'clocks_mem_mhz', kind: 'number' },
  'power.draw': { key: 'power_draw_w', kind: 'number' },
  'power.draw.average': { key: 'power_draw_w', kind: 'number' },
  'power.draw.instant': { key: 'power_draw_instant_w', kind: 'number' },
  'temperature.gpu': { key: 'temperature_c', kind: 'number' },
  'memory.used': { key: 'memory_used_mib', kind: 'number' },
  pstate: { key: 'pstate', kind: 'string' },
  'clocks_event_reasons.active': { key: 'clocks_event_reasons', kind: 'reasons' },
  // Name used by drivers before clocks "throttle" reasons were renamed "event" reasons (R535).
  'clocks_throttle_reasons.active': { key: 'clocks_event_reasons', kind: 'reasons' }
}

export const KNOWN_TELEMETRY_FIELDS: readonly string[] = Object.keys(FIELD_SPECS)

export function isKnownField(field: string): boolean {
  return Object.hasOwn(FIELD_SPECS, field)
}

/**
 * NVML clocks event reasons (bitmask), from the NVML API reference, "NvmlClocksEventReasons"
 * (https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html; same values under the
 * older nvmlClocksThrottleReason* names). `clocks_event_reasons.active` prints this mask in hex.
 */
export const CLOCKS_EVENT_REASON = {
  GpuIdle: 0x1,
  ApplicationsClocksSetting: 0x2,
  SwPowerCap: 0x4,
  HwSlowdown: 0x8,
  SyncBoost: 0x10,
  SwThermalSlowdown: 0x20,
  HwThermalSlowdown: 0x40,
  HwPowerBrakeSlowdown: 0x80,
  DisplayClockSetting: 0x100
} as const

/**
 * Reasons that mean the GPU ran slower than it would have: power cap, thermal and hardware
 * slowdowns. Idle, application/display clock settings and sync boost are configuration or rest,
 * not throttling of the measured work.
 */
export const THROTTLE_MASK =
  CLOCKS_EVENT_REASON.SwPowerCap |
  CLOCKS_EVENT_REASON.HwSlowdown |
  CLOCKS_EVENT_REASON.SwThermalSlowdown |
  CLOCKS_EVENT_REASON.HwThermalSlowdown |
  CLOCKS_EVENT_REASON.HwPowerBrakeSlowdown

export function isThrottled(reasons: number | null): boolean {
  return reasons !== null && (reasons & THROTTLE_MASK) !== 0
}

/** Names of the reasons set in a mask, for messages. */
export function reasonNames(reasons: number): string[] {
  return Object.entries(CLOCKS_EVENT_REASON)
    .filter(([, bit]) => (reasons & bit) !== 0)
    .map(([name]) => name)
}

/** `[N/A]`, `[Not Supported]`, `[Unknown Error]`, `N/A`, empty: the value is unknown. */
function isMissing(raw: string): boolean {
  return raw === '' || raw === 'N/A' || (raw.startsWith('[') && raw.endsWith(']'))
}

const NUMBER_RE = /^-?\d+(?:\.\d+)?$/
const HEX_RE = /^0x[0-9a-fA-F]{1,16}$/
const DEC_RE = /^\d{1,20}$/
/** Bits above 2^53 cannot be held exactly in a JS number; NVML defines none there today. */
const SAFE_BITS = (1n << 53n) - 1n

export type FieldValue = { ok: true; value: number | string | null } | { ok: false }

/** One raw field: null when nvidia-smi says unknown, `{ok: false}` when it is not what the field holds. */
export function parseFieldValue(raw: string, kind: FieldKind): FieldValue {
  const value = raw.trim()
  if (isMissing(value)) return { ok: true, value: null }
  switch (kind) {
    case 'string':
    case 'timestamp':
      return { ok: true, value }
    case 'int':
      return /^\d+$/.test(value) ? { ok: true, value: Number(value) } : { ok: false }
    case 'number':
      return NUMBER_RE.test(value) ? { ok: true, value: Number(value) } : { ok: false }
    case 'reasons':
      if (HEX_RE.test(value) || DEC_RE.test(value))
        return { ok: true, value: Number(BigInt(value) & SAFE_BITS) }
      return { ok: false }
  }
}

/**
 * nvidia-smi's `timestamp` ("2026/11/22 02:22:03.123") is the host's local time with no zone; read it
 * as local time. Kept for the record only: attribution uses arrival time (see telemetry.ts).
 */
export function parseSmiTimestamp(raw: string): number | null {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(raw.trim())
  if (!m) return null
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = Number.NaN] = m.slice(1).map(Number)
  const t = new Date(y, mo - 1, d, h, mi, s, Number.isNaN(ms) ? 0 : ms).getTime()
  return Number.isNaN(t) ? null : t
}

export interface ParsedLine {
  sample: TelemetrySample
  /** nvidia-smi's own timestamp text, when the field was queried. */
  smi_timestamp: string | null
  /** Fields whose value was present but not parseable (set to null in the sample). */
  bad_fields: string[]
}

export function emptySample(time_ms: number, gpu_index: number): TelemetrySample {
  return {
    time_ms,
    gpu_index,
    gpu_uuid: null,
    utilization_gpu_pct: null,
    utilization_memory_pct: null,
    clocks_sm_mhz: null,
    clocks_mem_mhz: null,
    power_draw_w: null,
    power_draw_instant_w: null,
    temperature_c: null,
    memory_used_mib: null,
    pstate: null,
    clocks_event_reasons: null
  }
}

/**
 * Parse one line for the given field list. Returns null for a line that is not a sample: wrong
 * number of fields, or no usable GPU index (nvidia-smi error text, truncated output, noise).
 */
export function parseTelemetryLine(
  line: string,
  fields: readonly string[],
  time_ms: number
): ParsedLine | null {
  const parts = line.split(',')
  if (parts.length !== fields.length) return null
  const indexAt = fields.indexOf('index')
  if (indexAt < 0) throw new Error("telemetry field list must include 'index'")
  const index = parseFieldValue(parts[indexAt] ?? '', 'int')
  if (!index.ok || typeof index.value !== 'number') return null

  const sample = emptySample(time_ms, index.value)
  const bad: string[] = []
  let smiTimestamp: string | null = null
  fields.forEach((field, i) => {
    const spec = FIELD_SPECS[field]
    if (!spec || field === 'index') return
    const parsed = parseFieldValue(parts[i] ?? '', spec.kind)
    if (!parsed.ok) {
      bad.push(field)
      return
    }
    if (spec.kind === 'timestamp') smiTimestamp = parsed.value as string | null
    else if (spec.key) (sample as unknown as Record<string, unknown>)[spec.key] = parsed.value
  })
  // A line whose every numeric value is unparseable is noise that happens to have the right commas.
  const numeric = fields.filter(
    f =>
      f !== 'index' &&
      FIELD_SPECS[f] &&
      FIELD_SPECS[f].kind !== 'string' &&
      FIELD_SPECS[f].kind !== 'timestamp'
  )
  if (numeric.length > 0 && numeric.every(f => bad.includes(f))) return null
  return { sample, smi_timestamp: smiTimestamp, bad_fields: bad }
}

// ---- telemetry.csv ----

/** Column order of telemetry.csv: every TelemetrySample field, then nvidia-smi's own timestamp. */
export const TELEMETRY_CSV_COLUMNS = [
  'time_ms',
  'gpu_index',
  'gpu_uuid',
  'utilization_gpu_pct',
  'utilization_memory_pct',
  'clocks_sm_mhz',
  'clocks_mem_mhz',
  'power_draw_w',
  'power_draw_instant_w',
  'temperature_c',
  'memory_used_mib',
  'pstate',
  'clocks_event_reasons',
  'throttled',
  'nvidia_smi_timestamp'
] as const

export const TELEMETRY_CSV_HEADER = TELEMETRY_CSV_COLUMNS.join(',') + '\n'

export function telemetryCsvRow(sample: TelemetrySample, smiTimestamp: string | null): string {
  const reasons = sample.clocks_event_reasons
  const cells: (string | number | null)[] = [
    sample.time_ms,
    sample.gpu_index,
    sample.gpu_uuid,
    sample.utilization_gpu_pct,
    sample.utilization_memory_pct,
    sample.clocks_sm_mhz,
    sample.clocks_mem_mhz,
    sample.power_draw_w,
    sample.power_draw_instant_w,
    sample.temperature_c,
    sample.memory_used_mib,
    sample.pstate,
    reasons === null ? null : `0x${reasons.toString(16).padStart(16, '0')}`,
    reasons === null ? null : isThrottled(reasons) ? 1 : 0,
    smiTimestamp
  ]
  return cells.map(csvCell).join(',') + '\n'
}
