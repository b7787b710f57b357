/**
 * What analysis reads (raw rows: SampleRecords or CSV rows) and what the tests consume (one value per
 * process run and arm), and the fingerprint facts that may ride on either.
 */
import type { Direction, Fingerprint, MetricScope } from '../../types/index.js'

/** Per-run values of one metric in one environment: what the tests consume. */
export interface ArmSeries {
  workload: string
  /** Canonical workload parameters ('' when none): series with different params are different configs. */
  params: string
  metric: string
  environment: string
  unit: string
  /** Which way is better, as declared on the rows (`better`); undefined when no row declared it. */
  better?: Direction
  /** `steady` gates; `startup` (start-up phases) and `info` (writable-layer I/O) are reported only. */
  scope: MetricScope
  /** Run labels in run order (numeric order when all are numbers). */
  runs: string[]
  /** One value per run: the median over that run's iterations. */
  values: number[]
  /** Number of rows (iterations) behind each value. */
  iterations: number[]
}

/** Fingerprint fields that may arrive as extra CSV columns or on sample records. */
export const FINGERPRINT_FIELDS = [
  'host',
  'device',
  'gpu_name',
  'gpu_uuid',
  'driver',
  'cuda',
  'image',
  'image_digest',
  'runtime',
  'runtime_version',
  'gpu_access',
  'mig_mode',
  'persistence_mode',
  'clocks',
  'stack'
] as const satisfies readonly (keyof Fingerprint)[]

export type PartialFingerprint = { [K in (typeof FINGERPRINT_FIELDS)[number]]?: string | null }

/** The subset of a SampleRecord that analysis needs; SampleRecord[] can be passed as is. */
export interface RawRow {
  workload: string
  environment: string
  run: number | string
  metric: string
  value: number
  iteration?: number
  unit?: string
  better?: string
  scope?: string
  params?: Record<string, unknown> | string
  fingerprint?: Partial<Fingerprint> | PartialFingerprint
  /** Warm-up rows are excluded from analysis. */
  warmup?: boolean
}
