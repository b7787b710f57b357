/** The sampler's options, and their validation (bad ones are an InputError naming the input). */
import type { Device, TelemetrySample } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { DEFAULT_TELEMETRY_FIELDS, KNOWN_TELEMETRY_FIELDS, isKnownField } from './telemetry-parse.js'

export interface TelemetryOptions {
  /** nvidia-smi executable (name on PATH or path). Default `nvidia-smi`. */
  nvidiaSmi?: string
  /** Sampling interval, ms (`-lms`). Default 100. */
  intervalMs?: number
  /** GPUs to sample (`--id`); default every GPU. */
  gpuIndices?: number[]
  /** Query fields; default DEFAULT_TELEMETRY_FIELDS. `index` is added when missing. */
  fields?: readonly string[]
  onSample?: (sample: TelemetrySample) => void
  /** Each warning once, as it happens (dropped fields, garbage lines, early exit). */
  onWarning?: (message: string) => void
  /** telemetry.csv; appended to, header written when the file is new or empty. */
  csvPath?: string
  /** `cpu` gives no sampler. */
  device?: Device
  /** SIGTERM → SIGKILL grace on stop, ms. Default 2000. */
  killGraceMs?: number
}

export function validateTelemetryOptions(opts: TelemetryOptions): {
  interval: number
  fields: string[]
  ids: number[] | null
} {
  const interval = opts.intervalMs ?? 100
  if (!Number.isInteger(interval) || interval < 10 || interval > 60_000)
    throw new InputError('telemetry-interval-ms', interval, 'an integer from 10 to 60000')
  const fields = [...(opts.fields ?? DEFAULT_TELEMETRY_FIELDS)]
  for (const f of fields)
    if (!isKnownField(f)) throw new InputError('telemetry-fields', f, KNOWN_TELEMETRY_FIELDS.join(', '))
  if (!fields.includes('index')) fields.unshift('index')
  const ids = opts.gpuIndices ?? null
  if (ids) {
    for (const i of ids)
      if (!Number.isInteger(i) || i < 0) throw new InputError('gpu-indices', i, 'non-negative integers')
    if (ids.length === 0) throw new InputError('gpu-indices', ids, 'at least one GPU index, or leave unset')
  }
  return { interval, fields, ids }
}
