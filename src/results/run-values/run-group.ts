/**
 * One run's rows, grouped (aggregator.ts RunAggregator): its values, the iterations it saw, its declared unit,
 * scope and direction, and the refusals of rows that make one "run" two processes.
 */
import { median } from 'simple-statistics'
import { InputError } from '../../util/errors.js'
import { at, numAt } from '../../util/must.js'
import type { Interleave } from './series.js'

export interface Group {
  workload: string
  params: string
  environment: string
  run: string
  metric: string
  unit: string
  scope: string
  better: string
  interleave: Interleave
  values: number[]
  /** A turns run's values by iteration; `untimed` when one of its rows had no iteration (no pairs then). */
  byIteration?: Map<number, number[]>
  untimed?: boolean
  /**
   * Iterations seen (when rows carry one), as spans of consecutive whole numbers [lo, hi, lo, hi, …] while
   * they arrive in ascending order (the usual layout: a few numbers per run, not one Set entry per row);
   * as a Set once one arrives out of order.
   */
  spans?: number[]
  seen?: Set<number>
  /** An iteration this run saw twice, if any. */
  repeated?: number
  /** The GPU the run's process was pinned to, when its rows say. */
  gpu?: number
  /** The arm's other runs of this metric, and which of them took the last row (see `add`). */
  siblings: { current: Group | undefined }
  /** A row without an iteration came back to this run after a row of another run of its arm and metric. */
  revisited?: boolean
}

/**
 * Remember a row's iteration; the first one seen twice is kept for `series` to judge. Ascending whole
 * numbers extend spans (no per-row allocation); the first one out of order is looked up in them, and from
 * then on the run's iterations are kept in a Set.
 */
export function noteIteration(g: Group, iteration: number | undefined): void {
  if (iteration === undefined || g.repeated !== undefined || !Number.isFinite(iteration)) return
  const seen = g.seen
  if (seen !== undefined) {
    if (seen.has(iteration)) g.repeated = iteration
    else seen.add(iteration)
    return
  }
  const spans = (g.spans ??= [])
  const n = spans.length
  if (Number.isInteger(iteration)) {
    if (n === 0) {
      spans.push(iteration, iteration)
      return
    }
    const hi = numAt(spans, n - 1)
    if (iteration === hi + 1) {
      spans[n - 1] = iteration
      return
    }
    if (iteration > hi) {
      spans.push(iteration, iteration)
      return
    }
    for (let i = 0; i < n; i += 2)
      if (iteration >= numAt(spans, i) && iteration <= numAt(spans, i + 1)) {
        g.repeated = iteration
        return
      }
  }
  const all = new Set<number>()
  for (let i = 0; i < n; i += 2)
    for (let it = numAt(spans, i), end = numAt(spans, i + 1); it <= end; it++) all.add(it)
  g.spans = undefined
  g.seen = all
  if (all.has(iteration)) g.repeated = iteration
  else all.add(iteration)
}

/**
 * A run id that two runs share (two checks' rows concatenated): a gated metric's iterations repeat. Merged,
 * one "run" would be two processes — the unit of replication — so it is refused, naming the run. Derived
 * per-token metrics (itl_ms) repeat an iteration by design and are not judged.
 */
export function refuseDuplicatedRuns(groups: readonly Group[]): void {
  const dup = groups.find(g => g.repeated !== undefined)
  if (dup === undefined) return
  throw new InputError(
    'run',
    `${dup.environment} ${dup.workload}/${dup.metric} run ${dup.run} (iteration ${dup.repeated} twice)`,
    "one process per run id and arm: these rows repeat a run's iterations, as two checks' files put together do; give each check's runs their own labels (e.g. a1, a2 … b1, b2) or analyse them apart"
  )
}

/**
 * Two checks' rows put together where rows carry no iteration (one row per run, issue 39 S7): a run's rows
 * came back after rows of the arm's other runs of the metric, so one "run" would be two processes — the
 * unit of replication — and its median would blend two checks. Refused, naming the run. Rows that carry
 * an iteration are judged by their iterations instead (refuseDuplicatedRuns).
 */
export function refuseRevisitedRuns(groups: readonly Group[]): void {
  const back = groups.find(g => g.revisited === true)
  if (back === undefined) return
  throw new InputError(
    'run',
    `${back.environment} ${back.workload}/${back.metric} run ${back.run} (its rows come back after other runs' rows, without an iteration)`,
    "one process per run id and arm, its rows together: these rows repeat a run after the arm's other runs, as two checks' files put together do; give each check's runs their own labels (e.g. a1, a2 … b1, b2), analyse the checks apart, or add an iteration column"
  )
}

/** Keep a turns run's value under its iteration. */
export function noteTurn(g: Group, value: number, iteration: number | undefined): void {
  if (g.interleave !== 'turns') return
  if (iteration === undefined || !Number.isFinite(iteration)) {
    g.untimed = true
    return
  }
  const at = (g.byIteration ??= new Map<number, number[]>())
  const values = at.get(iteration)
  if (values === undefined) at.set(iteration, [value])
  else values.push(value)
}

/** A turns run's values in ascending iteration order (an iteration's median where it has several). */
export function turnValues(g: Group): number[] | null {
  if (g.interleave !== 'turns' || g.untimed === true || g.byIteration === undefined) return null
  return [...g.byIteration.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, v]) => (v.length === 1 ? numAt(v, 0) : median(v)))
}

/** The mean of a run's values (summed in order; one value is itself). */
export function meanOf(values: readonly number[]): number {
  const [only] = values
  if (values.length === 1 && only !== undefined) return only
  let s = 0
  for (const v of values) s += v
  return s / values.length
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

/** Fields a run group takes from its first row that declares them; a later row may not contradict it. */
type DeclaredField = 'unit' | 'scope' | 'better'

/** Take a row's declared field into its run group: the first non-empty value holds for the whole run. */
export function settle(g: Group, field: DeclaredField, value: string): void {
  if (value === g[field]) return
  if (g[field] === '') g[field] = value
  else if (value !== '')
    throw new RowConflictError(field, value, `'${g[field]}' as in earlier rows of this run`)
}

/** The one value a series' runs declared for a field (undefined when none did); several are a conflict. */
export function declaredOnce(
  groups: readonly Group[],
  field: 'unit' | 'better',
  what: string
): string | undefined {
  const values = [...new Set(groups.map(g => g[field]).filter(v => v !== ''))]
  if (values.length > 1) {
    const first = at(groups, 0)
    throw new RowConflictError(
      field,
      values.join(' and '),
      `one ${what} per metric (${first.workload}/${first.metric} in ${first.environment})`
    )
  }
  return values[0]
}
