/**
 * The baseline file's format `gpu-overhead/baseline@2` (docs/baseline-format.md) and its validation:
 * `entries[key].checks` is oldest first and bounded by `keep`, so each (entry, metric) is a time series a
 * trend or change-point reader can use as is: `checks[i].time`, `.commit`, `.metrics[metric].mean/sd/n`.
 * Files of `@1` (per-run values only) are read and upgraded on the next save.
 */
import { z } from 'zod'
import { METRIC_SCOPES } from '../../types/index.js'
import { HistorySchema, SeriesIdentitySchema, factsSchema } from '../history.js'
import { summarizeCheck } from '../history-compare.js'
import { FINGERPRINT_FIELDS } from '../../results/index.js'

export const BASELINE_SCHEMA = 'gpu-overhead/baseline@2'
/** The previous format (per-run values only), still read. */
export const BASELINE_SCHEMA_V1 = 'gpu-overhead/baseline@1'
export const DEFAULT_BASELINE_PATH = '.github/gpu-overhead/baseline.json'
/** Accepted checks kept per entry. */
export const DEFAULT_KEEP_CHECKS = 5

const FingerprintFacts = factsSchema(FINGERPRINT_FIELDS)

const StoredMetric = z.object({
  unit: z.string(),
  better: z.enum(['lower', 'higher']).optional(),
  scope: z.enum(METRIC_SCOPES),
  /** Summary of the check's runs (absent in @1 files: computed from `values` on read). */
  n: z.number().int().nonnegative().optional(),
  mean: z.number().optional(),
  sd: z.number().nonnegative().optional(),
  median: z.number().optional(),
  /** One value per process run (the per-run median over iterations), bounded by the check's runs. */
  values: z.array(z.number())
})

const StoredCheck = z.object({
  check_id: z.string().min(1),
  /** ISO time the check ran. */
  time: z.string(),
  /** Commit the check measured (GITHUB_SHA), when known. */
  commit: z.string().nullable().optional(),
  /** Image digest of the container arm, when it had one. */
  image_digest: z.string().nullable().optional(),
  /** The check's own fingerprint facts (the entry's may have been refreshed since). */
  fingerprint: FingerprintFacts.optional(),
  metrics: z.record(z.string(), StoredMetric)
})

/**
 * The oldest accepted level (issue 39, S11): the entry's first `keep` accepted checks, kept when the rolling
 * reference (`checks`) moves on, so a creep of small accepted steps is compared with where it started. Filled
 * as checks are accepted, then frozen. To accept a new level on purpose, delete `anchor` (the stored checks
 * become the anchor at the next save) or set `pinned: true` on one you chose (never filled or replaced).
 */
const StoredAnchor = z.object({
  pinned: z.boolean().optional(),
  /** Oldest first. */
  checks: z.array(StoredCheck)
})

const StoredEntry = SeriesIdentitySchema.extend({
  params_hash: z.string(),
  fingerprint: FingerprintFacts,
  /** Oldest first; at most `keep` of them. */
  checks: z.array(StoredCheck),
  /** Absent in files written before issue 39: the stored checks are then the anchor. */
  anchor: StoredAnchor.optional()
})

const BaselineFileSchema = z.object({
  schema: z.union([z.literal(BASELINE_SCHEMA), z.literal(BASELINE_SCHEMA_V1)]),
  updated_at: z.string(),
  /** Checks kept per entry. */
  keep: z.number().int().positive().optional(),
  entries: z.record(z.string(), StoredEntry),
  /** Every accepted check's summary per series, for `gpu-overhead trend` (see history.ts). */
  history: HistorySchema.optional()
})

export type BaselineFile = z.infer<typeof BaselineFileSchema>
export type BaselineEntry = z.infer<typeof StoredEntry>
export type StoredMetric = z.infer<typeof StoredMetric>
export type StoredCheck = z.infer<typeof StoredCheck>

export function emptyFile(): BaselineFile {
  return { schema: BASELINE_SCHEMA, updated_at: new Date().toISOString(), entries: {} }
}

/** Validate parsed JSON as a baseline file; a reason when it is not one. */
export function parseBaseline(json: unknown): { data: BaselineFile } | { error: string } {
  if (
    json !== null &&
    typeof json === 'object' &&
    'schema' in json &&
    json.schema !== BASELINE_SCHEMA &&
    json.schema !== BASELINE_SCHEMA_V1
  )
    return { error: `its schema is not '${BASELINE_SCHEMA}'` }
  const parsed = BaselineFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`
    return { error: `it does not match '${BASELINE_SCHEMA}'${where}: ${issue?.message ?? 'invalid'}` }
  }
  for (const [key, entry] of Object.entries(parsed.data.entries)) {
    if (entry.key !== key) return { error: `entry '${key}' says its key is '${entry.key}'` }
    // The stored summary is never trusted (a file with `sd: 1e6` would make every check pass): it is
    // recomputed from the stored per-run values, which are what a check compares against.
    for (const check of [...entry.checks, ...(entry.anchor?.checks ?? [])])
      for (const m of Object.values(check.metrics)) {
        const { n, mean, sd, median } = summarizeCheck(m.values)
        Object.assign(m, { n, mean, sd, median })
      }
  }
  return { data: parsed.data }
}
