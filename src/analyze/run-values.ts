/**
 * Reduce raw sample rows to one value per process run.
 *
 * The unit of replication is the process run, not the iteration: iterations inside one process share
 * its allocator state, clocks, caches, container start-up and whatever else that process drew, so they
 * are correlated. Treating 1,000 iterations of 5 runs as n = 5,000 would shrink standard errors by
 * ~30x and make every test wildly anti-conservative. So iteration rows are aggregated to ONE value per
 * (workload, params, environment, run, metric) — their median, robust to the odd slow iteration —
 * before any test; tests then see n = number of runs per arm.
 */
import { median } from 'simple-statistics'
import type { Direction, Fingerprint, MetricScope } from '../types/index.js'
import { canonicalParams } from '../util/params.js'
import { knownMetric } from './known-metrics.js'

/** `steady` gates; `startup` (start-up phases) and `info` (writable-layer I/O) are reported only. */
export type Scope = MetricScope

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
  scope: Scope
  /** Run labels in run order (numeric order when all are numbers). */
  runs: string[]
  /** One value per run: the median over that run's iterations. */
  values: number[]
  /** Number of rows (iterations) behind each value. */
  iterations: number[]
}

/** Start-up phases: reported, never gating, never in the Holm family. */
const STARTUP_METRICS = new Set([
  'launch',
  'interpreter',
  'imports',
  'device_init',
  'first_kernel',
  'prepare',
  'total_startup',
  'launch_s',
  'interpreter_s',
  'imports_s',
  'device_init_s',
  'first_kernel_s',
  'prepare_s',
  'total_startup_s'
])

export function isStartupMetric(metric: string): boolean {
  return STARTUP_METRICS.has(metric)
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

interface Group {
  workload: string
  params: string
  environment: string
  run: string
  metric: string
  unit: string
  scope: string
  better: string
  values: number[]
}

/** Thrown by `add` for rows that contradict earlier ones; the caller adds where (file, line). */
export class RowConflictError extends Error {
  constructor(
    readonly column: string,
    readonly value: string,
    readonly allowed: string
  ) {
    super(`column '${column}': got ${JSON.stringify(value)}; allowed: ${allowed}`)
    this.name = 'RowConflictError'
  }
}

export { canonicalParams }

/**
 * Streaming aggregator: `add` one row at a time (only the numbers are kept, grouped per run), then
 * `series()` gives per-run medians. Consecutive rows of the same run (the usual layout) skip the map.
 */
export class RunAggregator {
  private readonly groups = new Map<string, Group>()
  private last: Group | undefined
  /** Environments in order of first appearance. */
  readonly environments: string[] = []
  /** Fingerprint facts per environment (first known value of each field). */
  readonly fingerprints: Record<string, PartialFingerprint> = {}
  /** Stack digest per environment and workload (the first seen). */
  readonly stacks: Record<string, Record<string, string>> = {}
  /** Fingerprint fields that took different values within one environment. */
  readonly fingerprintConflicts: string[] = []
  rows = 0
  /**
   * Rows dropped because their value was not a finite number ≥ 0 (in-memory rows only; the CSV reader
   * refuses them): every metric is a duration, a rate or a count, and the overhead is a ratio of them.
   */
  skippedNonFinite = 0

  /**
   * Add one value. Returns true when this row started a new run group (so callers can record the
   * per-run context such as fingerprints only once per run).
   */
  add(
    workload: string,
    environment: string,
    run: string,
    metric: string,
    value: number,
    unit = '',
    scope = '',
    params = '',
    better = ''
  ): boolean {
    this.rows++
    let g = this.last
    let isNew = false
    if (
      g === undefined ||
      g.run !== run ||
      g.metric !== metric ||
      g.environment !== environment ||
      g.workload !== workload ||
      g.params !== params
    ) {
      const key = `${workload}\u0000${params}\u0000${environment}\u0000${run}\u0000${metric}`
      g = this.groups.get(key)
      if (g === undefined) {
        g = { workload, params, environment, run, metric, unit, scope, better, values: [] }
        this.groups.set(key, g)
        if (!this.environments.includes(environment)) this.environments.push(environment)
        isNew = true
      }
      this.last = g
    }
    if (unit !== g.unit) {
      if (g.unit === '') g.unit = unit
      else if (unit !== '')
        throw new RowConflictError('unit', unit, `'${g.unit}' as in earlier rows of this run`)
    }
    if (scope !== g.scope) {
      if (g.scope === '') g.scope = scope
      else if (scope !== '')
        throw new RowConflictError('scope', scope, `'${g.scope}' as in earlier rows of this run`)
    }
    if (better !== g.better) {
      if (g.better === '') g.better = better
      else if (better !== '')
        throw new RowConflictError('better', better, `'${g.better}' as in earlier rows of this run`)
    }
    g.values.push(value)
    return isNew
  }

  /** Add a value to the run group of the previous `add` (the caller knows the row's keys are the same). */
  addToLast(value: number): void {
    if (this.last === undefined) throw new Error('addToLast before add')
    this.rows++
    this.last.values.push(value)
  }

  /**
   * Record fingerprint facts for an environment; differing values within one environment are noted.
   * The stack is kept per workload (io imports no torch: its stack differs from matmul's by nature).
   */
  noteFingerprint(environment: string, facts: PartialFingerprint, workload?: string): void {
    const fp = (this.fingerprints[environment] ??= {})
    for (const field of FINGERPRINT_FIELDS) {
      const v = facts[field]
      if (v === undefined || v === null || v === '') continue
      if (field === 'stack') {
        if (workload !== undefined) (this.stacks[environment] ??= {})[workload] ??= v
        continue
      }
      const known = fp[field]
      if (known === undefined || known === null) fp[field] = v
      else if (known !== v) {
        const note = `${environment}: ${field} took several values (${known}, ${v})`
        if (!this.fingerprintConflicts.includes(note)) this.fingerprintConflicts.push(note)
      }
    }
  }

  /** Per-run medians, one series per (workload, params, metric, environment). */
  series(): ArmSeries[] {
    const bySeries = new Map<string, Group[]>()
    for (const g of this.groups.values()) {
      const key = `${g.workload}\u0000${g.params}\u0000${g.metric}\u0000${g.environment}`
      let list = bySeries.get(key)
      if (list === undefined) bySeries.set(key, (list = []))
      list.push(g)
    }
    const out: ArmSeries[] = []
    for (const groups of bySeries.values()) {
      const numeric = groups.every(g => g.run.trim() !== '' && Number.isFinite(Number(g.run)))
      if (numeric) groups.sort((a, b) => Number(a.run) - Number(b.run))
      const first = groups[0]!
      const units = [...new Set(groups.map(g => g.unit).filter(u => u !== ''))]
      if (units.length > 1)
        throw new RowConflictError(
          'unit',
          units.join(' and '),
          `one unit per metric (${first.workload}/${first.metric} in ${first.environment})`
        )
      const betters = [...new Set(groups.map(g => g.better).filter(b => b !== ''))]
      if (betters.length > 1)
        throw new RowConflictError(
          'better',
          betters.join(' and '),
          `one direction per metric (${first.workload}/${first.metric} in ${first.environment})`
        )
      const startup = isStartupMetric(first.metric) || groups.some(g => g.scope === 'startup')
      const info = groups.some(g => g.scope === 'info')
      // Records made before samples declared `derived_from` still mark our own derived metrics.
      const derived =
        groups.some(g => g.scope === 'derived') ||
        (groups.every(g => g.scope === '' || g.scope === 'steady') &&
          knownMetric(first.workload, first.metric)?.derived_from !== undefined)
      out.push({
        workload: first.workload,
        params: first.params,
        metric: first.metric,
        environment: first.environment,
        unit: units[0] ?? '',
        ...(betters[0] === 'lower' || betters[0] === 'higher' ? { better: betters[0] } : {}),
        scope: startup ? 'startup' : info ? 'info' : derived ? 'derived' : 'steady',
        runs: groups.map(g => g.run),
        values: groups.map(g => (g.values.length === 1 ? g.values[0]! : median(g.values))),
        iterations: groups.map(g => g.values.length)
      })
    }
    return out
  }
}

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

/** Aggregate in-memory rows (e.g. SampleRecords from results.jsonl). */
export function aggregateRows(rows: Iterable<RawRow>): RunAggregator {
  const agg = new RunAggregator()
  for (const row of rows) {
    if (row.warmup === true) continue
    if (!Number.isFinite(row.value) || row.value < 0) {
      agg.skippedNonFinite++
      continue
    }
    const isNew = agg.add(
      row.workload,
      row.environment,
      String(row.run),
      row.metric,
      row.value,
      row.unit ?? '',
      row.scope ?? '',
      canonicalParams(row.params),
      row.better ?? ''
    )
    if (isNew && row.fingerprint !== undefined)
      agg.noteFingerprint(row.environment, row.fingerprint, row.workload)
  }
  return agg
}
