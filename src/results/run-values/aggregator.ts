/**
 * Reduce raw sample rows to one value per process run.
 *
 * The unit of replication is the process run, not the iteration: iterations inside one process share
 * its allocator state, clocks, caches, container start-up and whatever else that process drew, so they
 * are correlated. Treating 1,000 iterations of 5 runs as n = 5,000 would shrink standard errors by
 * ~30x and make every test wildly anti-conservative. So iteration rows are aggregated to ONE value per
 * (workload, params, environment, run, metric) — their mean, so the overhead is the ratio of request means
 * the README defines: a median would hide a slowdown that a minority of requests pays (issue 39, S5: 10% of
 * requests ×1.3 read +0.1%) — before any test; tests then see n = number of runs per arm. An odd slow
 * request is part of what the arm costs; it widens the interval, it cannot fake a difference. A run that took turns request by request
 * with the other arm's process of its block (`interleave` = `turns`) also keeps its values by iteration,
 * so the blocks can be read pair by pair (compare/pairs.ts).
 */
import { knownMetric } from '../known-metrics.js'
import { isTailMetric } from '../../config/index.js'
import { FINGERPRINT_FIELDS, type ArmSeries, type Interleave, type PartialFingerprint } from './series.js'
import { isStartupMetric } from './startup-metrics.js'
import { at } from '../../util/must.js'
import {
  RowConflictError,
  declaredOnce,
  meanOf,
  noteIteration,
  noteTurn,
  refuseDuplicatedRuns,
  refuseRevisitedRuns,
  settle,
  turnValues,
  type Group
} from './run-group.js'

/**
 * Streaming aggregator: `add` one row at a time (only the numbers are kept, grouped per run), then
 * `series()` gives per-run means. Consecutive rows of the same run (the usual layout) skip the map.
 */
export class RunAggregator {
  private readonly groups = new Map<string, Group>()
  /** Per arm and metric (workload, params, environment, metric): which run took its last row. */
  private readonly siblings = new Map<string, { current: Group | undefined }>()
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
    better = '',
    iteration?: number,
    interleave: Interleave = ''
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
        const arm = `${workload}\u0000${params}\u0000${environment}\u0000${metric}`
        let siblings = this.siblings.get(arm)
        if (siblings === undefined) this.siblings.set(arm, (siblings = { current: undefined }))
        g = {
          workload,
          params,
          environment,
          run,
          metric,
          unit,
          scope,
          better,
          interleave,
          values: [],
          siblings
        }
        this.groups.set(key, g)
        if (!this.environments.includes(environment)) this.environments.push(environment)
        isNew = true
      } else if (iteration === undefined && g.siblings.current !== g) g.revisited = true
      g.siblings.current = g
      this.last = g
    }
    settle(g, 'unit', unit)
    settle(g, 'scope', scope)
    settle(g, 'better', better)
    // Every row of a run says whether it took turns: a row that does not say so is not the same process.
    if (interleave !== g.interleave)
      throw new RowConflictError(
        'interleave',
        interleave,
        `${g.interleave === '' ? 'empty' : `'${g.interleave}'`} as in earlier rows of this run (one process, one way)`
      )
    noteIteration(g, iteration)
    if (g.interleave === 'turns') noteTurn(g, value, iteration)
    g.values.push(value)
    return isNew
  }

  /** Add a value to the run group of the previous `add` (the caller knows the row's keys are the same). */
  addToLast(value: number, iteration?: number): void {
    if (this.last === undefined) throw new Error('addToLast before add')
    this.rows++
    const g = this.last
    noteIteration(g, iteration)
    if (g.interleave === 'turns') noteTurn(g, value, iteration)
    g.values.push(value)
  }

  /**
   * The values of the run groups that name their GPU, per metric key (workload, params, metric), GPU and
   * arm: what analyze/blocking.ts reads to pool several GPUs as a check pools them (csv/gpu-pooling.ts).
   */
  gpuCells(): Map<string, Map<string, Map<string, number[]>>> {
    const out = new Map<string, Map<string, Map<string, number[]>>>()
    for (const g of this.groups.values()) {
      if (g.gpu === undefined) continue
      const key = `${g.workload}\u0000${g.params}\u0000${g.metric}`
      let byGpu = out.get(key)
      if (byGpu === undefined) out.set(key, (byGpu = new Map<string, Map<string, number[]>>()))
      let byEnv = byGpu.get(String(g.gpu))
      if (byEnv === undefined) byGpu.set(String(g.gpu), (byEnv = new Map<string, number[]>()))
      const values = byEnv.get(g.environment)
      if (values === undefined) byEnv.set(g.environment, [...g.values])
      else for (const v of g.values) values.push(v)
    }
    return out
  }

  /** Multiply every value of the run groups on a GPU by `factor(metric key, gpu)` (1 where undefined). */
  scaleGpus(factor: (key: string, gpu: string) => number | undefined): void {
    for (const g of this.groups.values()) {
      if (g.gpu === undefined) continue
      const f = factor(`${g.workload}\u0000${g.params}\u0000${g.metric}`, String(g.gpu)) ?? 1
      if (f === 1) continue
      for (const [i, v] of g.values.entries()) g.values[i] = v * f
      if (g.byIteration !== undefined)
        for (const vs of g.byIteration.values()) for (const [i, v] of vs.entries()) vs[i] = v * f
    }
  }

  /** Record the GPU of the run group of the previous `add` (called once per new group). */
  noteGpu(gpu: number): void {
    if (this.last !== undefined && Number.isInteger(gpu)) this.last.gpu ??= gpu
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

  /** Per-run means, one series per (workload, params, metric, environment). */
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
      const first = at(groups, 0)
      const unit = declaredOnce(groups, 'unit', 'unit')
      const better = declaredOnce(groups, 'better', 'direction')
      const startup = isStartupMetric(first.metric) || groups.some(g => g.scope === 'startup')
      const info = groups.some(g => g.scope === 'info')
      // Records made before samples declared `derived_from` still mark our own derived metrics.
      const derived =
        groups.some(g => g.scope === 'derived') ||
        (groups.every(g => g.scope === '' || g.scope === 'steady') &&
          knownMetric(first.workload, first.metric)?.derived_from !== undefined)
      // A result file's or CSV's percentile of an LLM-serving workload, with no scope of its own, is a tail
      // metric: shown, gated only where gate-metrics names it (config/tail-metrics.ts).
      const tail =
        groups.some(g => g.scope === 'tail') ||
        (groups.every(g => g.scope === '') && isTailMetric(first.workload, first.metric))
      if (!derived) {
        refuseDuplicatedRuns(groups)
        refuseRevisitedRuns(groups)
      }
      const turns = groups.map(turnValues)
      out.push({
        workload: first.workload,
        params: first.params,
        metric: first.metric,
        environment: first.environment,
        unit: unit ?? '',
        ...(better === 'lower' || better === 'higher' ? { better } : {}),
        scope: startup ? 'startup' : info ? 'info' : derived ? 'derived' : tail ? 'tail' : 'steady',
        runs: groups.map(g => g.run),
        values: groups.map(g => meanOf(g.values)),
        iterations: groups.map(g => g.values.length),
        ...(turns.some(t => t !== null) ? { turns } : {}),
        ...(groups.some(g => g.gpu !== undefined) ? { gpus: groups.map(g => g.gpu ?? null) } : {})
      })
    }
    return out
  }
}
