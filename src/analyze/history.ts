/**
 * The trend history kept in the baseline file: every accepted check's per-run summary, per series, oldest
 * first and bounded, for change-point detection (`gpu-overhead trend`).
 *
 * A series is one arm on one machine running one workload config: arm label, the machine (the GPU's UUID —
 * stable on ephemeral runners whose host names change every job — else the host name), GPU model,
 * GPU access, device, MIG mode, workload and params. Those never change within a series — a different
 * host or GPU starts another series, so fingerprints are never pooled. What a nightly bump *does* change
 * (image digest, driver, CUDA, runtime version) is the stack fingerprint recorded on every point, so a
 * change point can name what changed with it. The check is the unit: one point per check, its value the
 * mean of that check's per-run values (each run's value the mean over its iterations, results/run-values).
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { Direction } from '../types/index.js'
import { METRIC_SCOPES } from '../types/index.js'
import type { ArmSeries, PartialFingerprint } from '../results/index.js'
import { at } from '../util/must.js'
import { medianSorted } from './stats/index.js'

/** Points kept per series (oldest dropped first): four windows of 50 at the default window. */
export const DEFAULT_HISTORY_KEEP = 200

/** Facts that define a series: points with different values here are never put in one series. */
export const SERIES_FIELDS = ['host', 'gpu_uuid', 'gpu_name', 'gpu_access', 'device', 'mig_mode'] as const
/** Facts in the key besides the machine (GPU UUID, else host). */
const KEY_FIELDS = ['gpu_name', 'gpu_access', 'device', 'mig_mode'] as const
/** Facts recorded per point: what a nightly bump may change. */
export const STACK_FIELDS = [
  'image',
  'image_digest',
  'driver',
  'cuda',
  'runtime',
  'runtime_version',
  'persistence_mode',
  'clocks'
] as const

/** One optional, nullable string per field: facts a machine may not report (shared with the baseline store). */
export const factsSchema = <T extends readonly string[]>(fields: T) =>
  z.object(
    Object.fromEntries(fields.map(f => [f, z.string().nullable().optional()])) as Record<
      T[number],
      z.ZodOptional<z.ZodNullable<z.ZodString>>
    >
  )

const PointMetric = z.object({
  unit: z.string(),
  scope: z.enum(METRIC_SCOPES),
  better: z.enum(['lower', 'higher']).optional(),
  /** Runs behind the point and their mean, median, sd (n − 1), min and max. */
  n: z.number().int().positive(),
  mean: z.number(),
  median: z.number(),
  sd: z.number().nonnegative(),
  min: z.number(),
  max: z.number()
})

const HistoryPoint = z.object({
  check_id: z.string().min(1),
  time: z.string(),
  /** The commit the check ran on (GITHUB_SHA), when known. */
  commit: z.string().nullable().optional(),
  stack: factsSchema(STACK_FIELDS),
  metrics: z.record(z.string(), PointMetric)
})

/** What names a stored series: its key, arm label, workload and canonical params (also a baseline entry's). */
export const SeriesIdentitySchema = z.object({
  key: z.string().min(1),
  environment: z.string().min(1),
  workload: z.string().min(1),
  params: z.string()
})

const HistorySeriesSchema = SeriesIdentitySchema.extend({
  facts: factsSchema(SERIES_FIELDS),
  /** Oldest first; at most `keep` of them. */
  points: z.array(HistoryPoint)
})

export const HistorySchema = z.record(z.string(), HistorySeriesSchema)

export type History = z.infer<typeof HistorySchema>
export type HistorySeries = z.infer<typeof HistorySeriesSchema>
export type HistoryPoint = z.infer<typeof HistoryPoint>
export type PointSummary = z.infer<typeof PointMetric>

function fact(v: string | null | undefined): string {
  return v === undefined || v === null || v === '' ? '-' : v
}

/** Stable series key: arm, machine facts, workload and a hash of its params. */
export function historyKey(
  environment: string,
  facts: PartialFingerprint | undefined,
  workload: string,
  params: string
): string {
  const hash = params === '' ? 'none' : createHash('sha256').update(params).digest('hex').slice(0, 12)
  return [
    `env=${environment}`,
    `machine=${fact(facts?.gpu_uuid || facts?.host)}`,
    ...KEY_FIELDS.map(f => `${f}=${fact(facts?.[f])}`),
    `workload=${workload}`,
    `params=${hash}`
  ].join('|')
}

function pick<F extends readonly string[]>(
  facts: PartialFingerprint | undefined,
  fields: F
): Partial<Record<F[number], string>> {
  const out: Partial<Record<F[number], string>> = {}
  for (const f of fields) {
    const v = (facts as Record<string, string | null | undefined> | undefined)?.[f]
    if (typeof v === 'string' && v !== '') out[f as F[number]] = v
  }
  return out
}

/** Summary of one check's per-run values (finite ones); null when there are none. */
export function summarize(s: ArmSeries & { better?: Direction }): PointSummary | null {
  const xs = s.values.filter(Number.isFinite)
  const n = xs.length
  if (n === 0) return null
  const mean = xs.reduce((a, b) => a + b, 0) / n
  const sorted = [...xs].sort((a, b) => a - b)
  const median = medianSorted(sorted)
  const sd = n < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1))
  return {
    unit: s.unit,
    scope: s.scope,
    ...(s.better ? { better: s.better } : {}),
    n,
    mean,
    median,
    sd,
    min: at(sorted, 0),
    max: at(sorted, n - 1)
  }
}

export interface HistoryCheck {
  check_id: string
  time: string
  commit?: string | null
  series: readonly ArmSeries[]
  fingerprints: Record<string, PartialFingerprint | undefined>
}

export interface AppendHistoryOptions {
  /** Points kept per series (default 200). */
  keep?: number
  /** Arms to store (default: all). */
  environments?: readonly string[]
}

/** Add one accepted check to the history in place: one point per series; re-saving a check replaces it. */
export function appendHistory(
  history: History,
  check: HistoryCheck,
  options: AppendHistoryOptions = {}
): number {
  const keep = options.keep ?? DEFAULT_HISTORY_KEEP
  if (!Number.isInteger(keep) || keep < 1)
    throw new RangeError(`history keep must be an integer ≥ 1, got ${keep}`)
  const points = new Map<string, { series: HistorySeries; point: HistoryPoint }>()
  for (const s of check.series) {
    if (options.environments !== undefined && !options.environments.includes(s.environment)) continue
    const summary = summarize(s)
    if (summary === null) continue
    const facts = check.fingerprints[s.environment]
    const key = historyKey(s.environment, facts, s.workload, s.params)
    let entry = points.get(key)
    if (entry === undefined) {
      const series = (history[key] ??= {
        key,
        environment: s.environment,
        workload: s.workload,
        params: s.params,
        facts: pick(facts, SERIES_FIELDS),
        points: []
      })
      const point: HistoryPoint = {
        check_id: check.check_id,
        time: check.time,
        ...(check.commit ? { commit: check.commit } : {}),
        stack: pick(facts, STACK_FIELDS),
        metrics: {}
      }
      points.set(key, (entry = { series, point }))
    }
    entry.point.metrics[s.metric] = summary
  }
  for (const { series, point } of points.values()) {
    series.points = series.points.filter(p => p.check_id !== point.check_id)
    series.points.push(point)
    series.points.sort((a, b) => a.time.localeCompare(b.time))
    if (series.points.length > keep) series.points = series.points.slice(series.points.length - keep)
  }
  return points.size
}
