/**
 * The baseline store: the last N accepted checks, each as its own record (date, commit, image digest,
 * fingerprint, and per metric: n, mean, sd, median and the per-run values), keyed by fingerprint +
 * workload config. A new check is compared with the history CHECK BY CHECK (history.ts: prediction
 * interval over check means), never by pooling runs of different days into one sample.
 *
 * Format `gpu-overhead/baseline@2` (docs/baseline-format.md): `entries[key].checks` is oldest first and
 * bounded by `keep`, so each (entry, metric) is a time series a trend or change-point reader can use
 * as is: `checks[i].time`, `.commit`, `.metrics[metric].mean/sd/n`. Files of `@1` (per-run values only)
 * are read and upgraded on the next save.
 *
 * `BaselineStore` is the interface; `JsonFileBaselineStore` keeps a JSON file in the repository
 * (default .github/gpu-overhead/baseline.json). Another backend (e.g. an artifact of the default
 * branch's last run) implements the same three methods.
 *
 * The file is never overwritten silently: a corrupt or foreign file is reported and left alone unless
 * the caller explicitly asks to replace it (the old file is then kept beside it). Writes go to a temp
 * file in the same directory, are fsynced and renamed over the target, under a lock, so two jobs
 * updating the same file lose no update and a crash never leaves half a file.
 */
import { createHash } from 'node:crypto'
import { mkdir, open, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import lockfile from 'proper-lockfile'
import { z } from 'zod'
import type { BaselineResult, Comparison } from '../types/index.js'
import type { ArmSeries, PartialFingerprint, RawRow } from './run-values.js'
import { FINGERPRINT_FIELDS, aggregateRows } from './run-values.js'
import { decide, fingerprintDifferences, metricDirection } from './compare/index.js'
import type { CheckMetricSummary } from './history-compare.js'
import { compareWithHistory, summarizeCheck } from './history-compare.js'
import type { BootstrapOptions } from './stats/index.js'
import { READ_LIMITS, UnsafePathError, parseJsonQuiet, readUntrusted, safeReplace } from '../util/safe-fs.js'
import { METRIC_SCOPES } from '../types/index.js'
import { appendHistory, HistorySchema } from './history.js'

export const BASELINE_SCHEMA = 'gpu-overhead/baseline@2'
/** The previous format (per-run values only), still read. */
export const BASELINE_SCHEMA_V1 = 'gpu-overhead/baseline@1'
export const DEFAULT_BASELINE_PATH = '.github/gpu-overhead/baseline.json'
/** Accepted checks kept per entry. */
export const DEFAULT_KEEP_CHECKS = 5

// ---- file format ----

const FingerprintFacts = z.object(
  Object.fromEntries(FINGERPRINT_FIELDS.map(f => [f, z.string().nullable().optional()])) as Record<
    (typeof FINGERPRINT_FIELDS)[number],
    z.ZodOptional<z.ZodNullable<z.ZodString>>
  >
)

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

const StoredEntry = z.object({
  key: z.string().min(1),
  environment: z.string().min(1),
  workload: z.string().min(1),
  params: z.string(),
  params_hash: z.string(),
  fingerprint: FingerprintFacts,
  /** Oldest first; at most `keep` of them. */
  checks: z.array(StoredCheck)
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

// ---- keys ----

/** Short stable hash of the canonical params string ('none' when there are none). */
export function paramsHash(params: string): string {
  return params === '' ? 'none' : createHash('sha256').update(params).digest('hex').slice(0, 12)
}

/**
 * Stable key: arm label, GPU model, driver, image digest, GPU access mode, device, workload and a hash
 * of its params. Unknown facts are '-'. The arm label is included so a native arm and a container arm
 * whose facts are unknown never share an entry.
 */
export function baselineKey(
  environment: string,
  facts: PartialFingerprint | undefined,
  workload: string,
  params: string
): string {
  const f = (v: string | null | undefined): string => (v === undefined || v === null || v === '' ? '-' : v)
  return [
    `env=${environment}`,
    `gpu=${f(facts?.gpu_name)}`,
    `driver=${f(facts?.driver)}`,
    `image=${f(facts?.image_digest)}`,
    `access=${f(facts?.gpu_access)}`,
    `device=${f(facts?.device)}`,
    `workload=${workload}`,
    `params=${paramsHash(params)}`,
    // Only when known, so keys written before stacks were recorded keep matching.
    ...(facts?.stack ? [`stack=${facts.stack}`] : [])
  ].join('|')
}

/** The arm's facts for one workload: its fingerprint plus the stack that workload ran on. */
function factsFor(current: CurrentResults, environment: string, workload: string): PartialFingerprint {
  const stack = current.stacks?.[environment]?.[workload]
  return { ...(current.fingerprints[environment] ?? {}), ...(stack ? { stack } : {}) }
}

// ---- interface ----

/** What a check measured: per-run series and fingerprint facts per arm. */
export interface CurrentResults {
  check_id: string
  /** ISO time of the check (default: now). */
  time?: string
  /** The commit the check ran on (GITHUB_SHA): stored with the check and in the trend history. */
  commit?: string | null
  series: readonly ArmSeries[]
  fingerprints: Record<string, PartialFingerprint | undefined>
  /** Stack digest per environment and workload (Fingerprint.stack). */
  stacks?: Record<string, Record<string, string>>
}

export interface BaselineCompareOptions {
  maxOverheadPct: number
  alpha: number
  /** Arms to compare with their stored baselines (default: every arm in `series`). */
  environments?: readonly string[]
  bootstrap?: BootstrapOptions
}

export interface BaselineLoad {
  status: 'ok' | 'missing' | 'corrupt'
  location: string
  message: string
  data?: BaselineFile
}

export interface AppendOptions {
  /** Accepted checks kept per entry (default 5). */
  keep?: number
  /** Replace a corrupt or foreign file (it is renamed to `<file>.corrupt-<time>` first). */
  overwriteCorrupt?: boolean
  /** Arms to store (default: every arm in `series`). */
  environments?: readonly string[]
  /** Points kept per series in the trend history (default 200). */
  historyKeep?: number
}

export interface AppendResult {
  saved: boolean
  location: string
  message: string
  /** Entries written or updated. */
  entries: number
}

export interface BaselineStore {
  /** Where the baseline lives, for messages (a path, an artifact name...). */
  readonly location: string
  load(): Promise<BaselineLoad>
  /** Current (candidate) vs stored (baseline), arm by arm, with the same tests as the arms comparison. */
  compare(current: CurrentResults, options: BaselineCompareOptions): Promise<BaselineResult>
  /** Add this check's per-run values as an accepted run (call only when the check passed). */
  append(current: CurrentResults, options?: AppendOptions): Promise<AppendResult>
}

// ---- shared logic (usable by any backend) ----

function emptyFile(): BaselineFile {
  return { schema: BASELINE_SCHEMA, updated_at: new Date().toISOString(), entries: {} }
}

/** A stored metric's summary; @1 files stored values only, so the summary is computed from them. */
function metricSummary(
  m: BaselineFile['entries'][string]['checks'][number]['metrics'][string]
): CheckMetricSummary {
  if (m.n !== undefined && m.mean !== undefined && m.sd !== undefined && m.median !== undefined)
    return { n: m.n, mean: m.mean, sd: m.sd, median: m.median, values: m.values }
  return summarizeCheck(m.values)
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
  for (const [key, entry] of Object.entries(parsed.data.entries))
    if (entry.key !== key) return { error: `entry '${key}' says its key is '${entry.key}'` }
  return { data: parsed.data }
}

/** Group series by arm and workload config. */
function groupSeries(
  series: readonly ArmSeries[],
  environments: readonly string[] | undefined
): Map<string, { environment: string; workload: string; params: string; series: ArmSeries[] }> {
  const groups = new Map<
    string,
    { environment: string; workload: string; params: string; series: ArmSeries[] }
  >()
  for (const s of series) {
    if (environments !== undefined && !environments.includes(s.environment)) continue
    const k = `${s.environment}\u0000${s.workload}\u0000${s.params}`
    let g = groups.get(k)
    if (g === undefined)
      groups.set(k, (g = { environment: s.environment, workload: s.workload, params: s.params, series: [] }))
    g.series.push(s)
  }
  return groups
}

/** The stored checks that measured `metric`, oldest first, as summaries; and what they declared. */
function storedHistory(
  entry: BaselineEntry,
  metric: string
): { history: CheckMetricSummary[]; better?: 'lower' | 'higher' } | undefined {
  const history: CheckMetricSummary[] = []
  let better: 'lower' | 'higher' | undefined
  for (const check of entry.checks) {
    const m = check.metrics[metric]
    if (m === undefined || m.values.length === 0) continue
    history.push(metricSummary(m))
    better = m.better ?? better
  }
  return history.length === 0 ? undefined : { history, ...(better ? { better } : {}) }
}

/**
 * Compare current arms with a loaded baseline file. The exact key is preferred; failing that, an entry
 * of the same arm and workload config recorded under another fingerprint is used and the comparison is
 * incomparable, naming what changed (driver, image digest...), rather than silently skipped.
 */
export function compareWithStored(
  data: BaselineFile,
  current: CurrentResults,
  options: BaselineCompareOptions,
  location: string
): BaselineResult {
  const measured: Comparison[] = []
  const unmatched: string[] = []
  const notes: string[] = []
  for (const g of groupSeries(current.series, options.environments).values()) {
    const facts = factsFor(current, g.environment, g.workload)
    const key = baselineKey(g.environment, facts, g.workload, g.params)
    let entry: BaselineEntry | undefined = data.entries[key]
    let differences: string[]
    if (entry === undefined) {
      const hash = paramsHash(g.params)
      const similar = Object.values(data.entries).filter(
        e => e.environment === g.environment && e.workload === g.workload && e.params_hash === hash
      )
      // The most recently accepted one.
      entry = similar
        .sort((a, b) => (a.checks.at(-1)?.time ?? '').localeCompare(b.checks.at(-1)?.time ?? ''))
        .at(-1)
      if (entry === undefined) {
        unmatched.push(`${g.environment}/${g.workload}`)
        continue
      }
      differences = fingerprintDifferences(entry.fingerprint, facts, 'baseline')
      if (differences.length === 0)
        notes.push(
          `${g.environment}/${g.workload}: stored under another key (${entry.key}) whose known facts match; compared.`
        )
    } else differences = fingerprintDifferences(entry.fingerprint, facts, 'baseline')
    for (const cand of g.series) {
      const stored = storedHistory(entry, cand.metric)
      if (stored === undefined) continue
      const { direction, source } = metricDirection(cand, { better: stored.better })
      measured.push(
        compareWithHistory({
          workload: cand.workload,
          metric: cand.metric,
          unit: cand.unit,
          direction,
          directionSource: source,
          scope: cand.scope,
          params: cand.params,
          baselineEnv: `${g.environment}@baseline`,
          candidateEnv: g.environment,
          history: stored.history,
          current: cand.values,
          maxOverheadPct: options.maxOverheadPct,
          alpha: options.alpha,
          incomparable: differences
        })
      )
    }
  }
  const comparisons = decide(measured, options)
  if (comparisons.length === 0)
    return {
      status: 'no-match',
      path: location,
      message: `No stored baseline matches this run (${unmatched.join(', ') || 'nothing to compare'}) in ${location}.`,
      comparisons: [],
      saved: false
    }
  const skipped = unmatched.length > 0 ? ` No stored baseline for ${unmatched.join(', ')}.` : ''
  return {
    status: 'compared',
    path: location,
    message: `Compared ${comparisons.length} metric(s) with the baseline in ${location}.${skipped}${notes.length > 0 ? ' ' + notes.join(' ') : ''}`,
    comparisons,
    saved: false
  }
}

/** Add the current check to a baseline file in memory (keeping the last `keep` checks per entry). */
export function appendToBaseline(
  data: BaselineFile,
  current: CurrentResults,
  options: AppendOptions = {}
): { data: BaselineFile; entries: number } {
  const keep = options.keep ?? DEFAULT_KEEP_CHECKS
  const time = current.time ?? new Date().toISOString()
  let touched = 0
  for (const g of groupSeries(current.series, options.environments).values()) {
    const facts = factsFor(current, g.environment, g.workload)
    const key = baselineKey(g.environment, facts, g.workload, g.params)
    const entry = (data.entries[key] ??= {
      key,
      environment: g.environment,
      workload: g.workload,
      params: g.params,
      params_hash: paramsHash(g.params),
      fingerprint: {},
      checks: []
    })
    const fingerprint: PartialFingerprint = {}
    for (const field of FINGERPRINT_FIELDS) if (facts[field] !== undefined) fingerprint[field] = facts[field]
    entry.fingerprint = fingerprint
    const metrics: BaselineFile['entries'][string]['checks'][number]['metrics'] = {}
    for (const s of g.series) {
      const sum = summarizeCheck(s.values)
      if (sum.n > 0)
        metrics[s.metric] = {
          unit: s.unit,
          ...(s.better ? { better: s.better } : {}),
          scope: s.scope,
          n: sum.n,
          mean: sum.mean,
          sd: sum.sd,
          median: sum.median,
          values: sum.values
        }
    }
    // Re-saving the same check replaces it rather than counting it twice.
    entry.checks = entry.checks.filter(c => c.check_id !== current.check_id)
    entry.checks.push({
      check_id: current.check_id,
      time,
      commit: current.commit ?? null,
      image_digest: fingerprint.image_digest ?? null,
      fingerprint,
      metrics
    })
    if (entry.checks.length > keep) entry.checks = entry.checks.slice(entry.checks.length - keep)
    touched++
  }
  // The same accepted check, as one point per series of the (longer) trend history.
  appendHistory(
    (data.history ??= {}),
    { ...current, time, commit: current.commit ?? null },
    { keep: options.historyKeep, environments: options.environments }
  )
  data.schema = BASELINE_SCHEMA
  data.keep = keep
  data.updated_at = new Date().toISOString()
  return { data, entries: touched }
}

// ---- the JSON file backend ----

/** Write `text` to `file` atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file)
  // Fresh temp file (O_EXCL, no link followed), fsynced, renamed over the target: util/safe-fs.
  safeReplace(file, text)
  // Make the rename itself durable; not every platform lets a directory be fsynced.
  try {
    const d = await open(dir, 'r')
    try {
      await d.sync()
    } finally {
      await d.close()
    }
  } catch {
    // best effort
  }
}

export class JsonFileBaselineStore implements BaselineStore {
  constructor(readonly location: string = DEFAULT_BASELINE_PATH) {}

  load(): Promise<BaselineLoad> {
    return Promise.resolve(this.loadNow())
  }

  private loadNow(): BaselineLoad {
    let text: string
    try {
      // The baseline comes from the tree: a regular file, not a link (it could point at a secret), capped.
      text = readUntrusted(this.location, { maxBytes: READ_LIMITS.baseline, noFollow: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return {
          status: 'missing',
          location: this.location,
          message: `No baseline file at ${this.location} yet.`
        }
      if (error instanceof UnsafePathError) return this.corrupt(`it ${error.reason}`)
      throw error
    }
    // Never quote the file: JSON.parse's message holds a slice of it (a secret, if the file is one).
    const quiet = parseJsonQuiet(text)
    if (!quiet.ok) return this.corrupt('it is not valid JSON')
    const json = quiet.value
    const parsed = parseBaseline(json)
    if ('error' in parsed) return this.corrupt(parsed.error)
    return {
      status: 'ok',
      location: this.location,
      message: `Baseline ${this.location}: ${Object.keys(parsed.data.entries).length} entr(ies).`,
      data: parsed.data
    }
  }

  private corrupt(why: string): BaselineLoad {
    return {
      status: 'corrupt',
      location: this.location,
      message:
        `Baseline file ${this.location} was ignored: ${why}. It will not be overwritten; ` +
        `fix or delete it; it is never overwritten silently.`
    }
  }

  async compare(current: CurrentResults, options: BaselineCompareOptions): Promise<BaselineResult> {
    const loaded = await this.load()
    if (loaded.status === 'missing' || loaded.data === undefined)
      return {
        status: loaded.status === 'corrupt' ? 'corrupt' : 'no-baseline',
        path: this.location,
        message: loaded.message,
        comparisons: [],
        saved: false
      }
    return compareWithStored(loaded.data, current, options, this.location)
  }

  async append(current: CurrentResults, options: AppendOptions = {}): Promise<AppendResult> {
    await mkdir(dirname(this.location), { recursive: true })
    // The lock is a directory `<file>.lock` (atomic mkdir); realpath: false because the file may not
    // exist yet. Retries with jitter so concurrent jobs queue instead of failing.
    const release = await lockfile.lock(this.location, {
      realpath: false,
      stale: 30_000,
      retries: { retries: 400, factor: 1.2, minTimeout: 10, maxTimeout: 250, randomize: true }
    })
    try {
      const loaded = await this.load()
      let data: BaselineFile
      if (loaded.status === 'corrupt') {
        if (options.overwriteCorrupt !== true)
          return { saved: false, location: this.location, message: loaded.message, entries: 0 }
        const aside = `${this.location}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
        await rename(this.location, aside)
        data = emptyFile()
      } else data = loaded.data ?? emptyFile()
      const { entries } = appendToBaseline(data, current, options)
      await writeFileAtomic(this.location, JSON.stringify(data, null, 2) + '\n')
      return {
        saved: true,
        location: this.location,
        message: `Saved check ${current.check_id} to ${this.location} (${entries} entr(ies); last ${options.keep ?? DEFAULT_KEEP_CHECKS} checks kept).`,
        entries
      }
    } finally {
      await release()
    }
  }
}

// ---- the pipeline's entry point ----

export interface BaselineCheckOptions {
  /** Baseline file; empty or null disables the baseline (status 'disabled'). */
  path: string | null | undefined
  /** Append this check as an accepted run (the caller says the check passed and is complete). */
  save: boolean
  maxOverheadPct: number
  alpha: number
  /** Bootstrap seed (the check's seed). */
  seed?: number | string
  /** Accepted checks kept per entry (default 5). */
  keep?: number
  /** Replace a corrupt baseline file when saving (it is kept as `<file>.corrupt-<time>`). */
  overwriteCorrupt?: boolean
  /** Arms to compare and store (default: all). */
  environments?: readonly string[]
  /** Another backend; default: the JSON file at `path`. */
  store?: BaselineStore
  /** The commit the check ran on (GITHUB_SHA): stored with the check and in the trend history. */
  commit?: string | null
}

/**
 * Compare this check's samples with the stored baseline and, when asked, store them as an accepted run.
 * A run whose stored comparison shows a regression is not saved: the baseline must not drift towards it.
 */
export async function compareWithBaseline(
  samples: Iterable<RawRow & { check_id?: string }>,
  opts: BaselineCheckOptions
): Promise<BaselineResult> {
  if (opts.store === undefined && (opts.path === null || opts.path === undefined || opts.path === ''))
    return {
      status: 'disabled',
      path: '',
      message: 'Baseline comparison is off.',
      comparisons: [],
      saved: false
    }
  const rows = [...samples]
  const agg = aggregateRows(rows)
  const current: CurrentResults = {
    check_id: rows.find(r => r.check_id !== undefined)?.check_id ?? new Date().toISOString(),
    commit: opts.commit ?? null,
    series: agg.series(),
    fingerprints: agg.fingerprints,
    stacks: agg.stacks
  }
  const store = opts.store ?? new JsonFileBaselineStore(opts.path!)
  const result = await store.compare(current, {
    maxOverheadPct: opts.maxOverheadPct,
    alpha: opts.alpha,
    environments: opts.environments,
    bootstrap: opts.seed === undefined ? undefined : { seed: String(opts.seed) }
  })
  if (!opts.save) return result
  const regressed = result.comparisons.filter(c => c.scope === 'steady' && c.verdict === 'regression')
  if (regressed.length > 0)
    return {
      ...result,
      message: `${result.message} Not saved as a baseline: ${regressed.length} metric(s) regressed against it.`
    }
  const saved = await store.append(current, {
    keep: opts.keep,
    overwriteCorrupt: opts.overwriteCorrupt,
    environments: opts.environments
  })
  return { ...result, saved: saved.saved, message: `${result.message} ${saved.message}` }
}
