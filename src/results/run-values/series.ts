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
  /**
   * `steady` gates; `startup` (start-up phases), `info` (writable-layer I/O), `derived` and `tail` (a p90/p99
   * not named in gate-metrics) are reported only.
   */
  scope: MetricScope
  /** Run labels in run order (numeric order when all are numbers). */
  runs: string[]
  /**
   * True where nothing says that run r of one arm ran beside run r of the other (a result file of another tool,
   * read in the order of `--input`): the runs are no blocks and the arms are compared as two samples, never
   * paired by the order the files were named in (issue 51). Absent: the tool's own runs, blocks by label.
   */
  unblocked?: boolean
  /**
   * One value per run: the mean over that run's iterations (its requests), so the overhead is the ratio of
   * request means the README defines, and a slowdown only some requests pay is not hidden (issue 39, S5).
   */
  values: number[]
  /** Number of rows (iterations) behind each value. */
  iterations: number[]
  /**
   * Aligned with `runs`, for runs whose process took turns request by request with the other arm's process
   * of its block (`interleave` = `turns`): that run's values in ascending iteration order (the median of an
   * iteration's rows where it has several), so iteration k of both processes of a block is one pair. null for a
   * run that did not take turns (or whose rows carry no iteration); the field is absent when no run did.
   */
  turns?: (number[] | null)[]
  /** Aligned with `runs`: the GPU each run's process was pinned to (null: not known); absent when none is. */
  gpus?: (number | null)[]
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
  /** '' or `turns` (SampleRecord.interleave); anything else is refused. */
  interleave?: string
  /** The GPU the process was pinned to (SampleRecord.gpu): a duet's blocks are stratified by it. */
  gpu?: number
}

/** The values `interleave` may take, '' meaning the run did not take turns. */
export const INTERLEAVE_VALUES = ['', 'turns'] as const
export type Interleave = (typeof INTERLEAVE_VALUES)[number]
export const INTERLEAVE_ALLOWED = `'turns' or empty`

/** Whether a row's interleave is one of INTERLEAVE_VALUES. */
export function isInterleave(value: string): value is Interleave {
  return (INTERLEAVE_VALUES as readonly string[]).includes(value)
}
