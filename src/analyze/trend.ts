/**
 * Trend analysis of the stored history: per series and metric, the per-check values over time and their
 * change points (e-divisive means with a t-test, changepoints/), each with when it happened, what changed
 * in the stack there, before → after, magnitude and p, and whether a later change point reverted it.
 * Pure: history in, report out.
 */
import { createHash } from 'node:crypto'
import type { Direction } from '../types/index.js'
import {
  changePoints,
  DEFAULT_MAX_P,
  DEFAULT_MIN_MAGNITUDE,
  DEFAULT_MIN_SEGMENT,
  DEFAULT_WINDOW,
  magnitude
} from './changepoints/index.js'
import { InputError } from '../util/errors.js'
import { at } from '../util/must.js'
import {
  STACK_FIELDS,
  type History,
  type HistoryPoint,
  type HistorySeries,
  type PointSummary
} from './history.js'

export interface TrendOptions {
  /** Metric names to analyse (default: every steady-state metric). */
  metrics?: readonly string[]
  window?: number
  maxP?: number
  minMagnitude?: number
  minSegment?: number
}

export interface TrendPoint {
  check_id: string
  time: string
  commit: string | null
  image: string | null
  image_digest: string | null
  /** Mean of the check's per-run values. */
  value: number
  runs: number
}

export type ChangeDirection = 'regression' | 'improvement' | 'change'

export interface TrendChange {
  /** Stable id: series id, metric and the first check of the new regime. */
  id: string
  index: number
  check_id: string
  time: string
  commit: string | null
  image: string | null
  image_digest: string | null
  /** The last check of the old regime. */
  previous: { check_id: string; time: string; commit: string | null }
  /** Stack facts that differ between the last point before and the first point after, as `field a → b`. */
  stack_changes: string[]
  before: number
  after: number
  /** after/before − 1, in percent. */
  change_pct: number
  /** max(|after/before − 1|, |before/after − 1|), in percent. */
  magnitude_pct: number
  p: number
  direction: ChangeDirection
  /** Id of the earlier change this one undoes (its level returns within the minimum magnitude). */
  reverts: string | null
  /** Id of the later change that undid this one. */
  reverted_by: string | null
}

export interface TrendSeries {
  /** Short hash of the series key (used in issue markers). */
  id: string
  key: string
  environment: string
  workload: string
  params: string
  facts: HistorySeries['facts']
  metric: string
  unit: string
  better: Direction | null
  points: TrendPoint[]
  changes: TrendChange[]
  /**
   * Isolated outlying checks (one night far off its neighbours on both sides), left out of every test so
   * they neither make a level of their own nor hide a step next to them (changepoints/outliers.ts).
   */
  outliers: TrendOutlier[]
}

export interface TrendOutlier {
  index: number
  check_id: string
  time: string
  value: number
}

export interface TrendReport {
  options: Required<Omit<TrendOptions, 'metrics'>> & { metrics: string[] | null }
  series: TrendSeries[]
  /** Regressions (or changes of unknown direction) that no later change point undid. */
  open: TrendChange[]
}

export class UnknownMetricError extends Error {
  constructor(
    readonly missing: string[],
    readonly available: string[]
  ) {
    super(
      `metric ${missing.join(', ')} is not in the history; it has: ${available.join(', ') || '(no metric)'}`
    )
    this.name = 'UnknownMetricError'
  }
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12)
}

function stackChanges(a: HistoryPoint, b: HistoryPoint): string[] {
  const out: string[] = []
  for (const f of STACK_FIELDS) {
    const x = a.stack[f] ?? null
    const y = b.stack[f] ?? null
    if (x !== y) out.push(`${f} ${x ?? '?'} → ${y ?? '?'}`)
  }
  return out
}

function directionOf(changePct: number, better: Direction | null): ChangeDirection {
  if (better === null) return 'change'
  const worse = better === 'lower' ? changePct > 0 : changePct < 0
  return worse ? 'regression' : 'improvement'
}

/** Steady-state metrics present in a series' points, in first-seen order. */
function metricsOf(series: HistorySeries): string[] {
  const seen = new Set<string>()
  for (const p of series.points)
    for (const [m, s] of Object.entries(p.metrics)) if (s.scope === 'steady') seen.add(m)
  return [...seen]
}

/** Mark changes undone by a later one: the level after the later change is back within `minMagnitude`. */
function linkReverts(changes: TrendChange[], minMagnitude: number): void {
  for (const [i, a] of changes.entries()) {
    for (const b of changes.slice(i + 1)) {
      if (b.reverts !== null) continue
      if (magnitude({ meanBefore: a.before, meanAfter: b.after }) <= minMagnitude) {
        a.reverted_by = b.id
        b.reverts = a.id
        break
      }
    }
  }
}

/**
 * One metric, one unit and one direction over the history: a level shift from ms to s is no change of the
 * workload, and the last point's direction over earlier ones would flip what "worse" means. Refused, naming
 * the first check of each.
 */
function refuseMixedDeclarations(
  key: string,
  metric: string,
  withMetric: readonly { point: HistoryPoint; summary: PointSummary }[]
): void {
  for (const [what, values] of [
    ['unit', withMetric.map(r => r.summary.unit.trim()).filter(u => u !== '')],
    ['better', withMetric.flatMap(r => (r.summary.better === undefined ? [] : [r.summary.better]))]
  ] as const) {
    const distinct = [...new Set<string>(values)]
    if (distinct.length > 1) {
      const first = (v: string): string =>
        withMetric.find(r => (what === 'unit' ? r.summary.unit.trim() : r.summary.better) === v)?.point
          .check_id ?? ''
      throw new InputError(
        `${what} (${key}/${metric} in the history)`,
        distinct.map(v => `${v} from check ${first(v)}`).join(' and '),
        `one ${what === 'unit' ? 'unit' : 'direction'} per metric across the history (name the changed metric anew, or start a new history)`
      )
    }
  }
}

function analyzeMetric(series: HistorySeries, metric: string, opts: TrendReport['options']): TrendSeries {
  // The points that have this metric, each with its summary of it.
  const withMetric: { point: HistoryPoint; summary: PointSummary }[] = []
  for (const point of series.points) {
    const summary = point.metrics[metric]
    if (summary !== undefined) withMetric.push({ point, summary })
  }
  refuseMixedDeclarations(series.key, metric, withMetric)
  const points: TrendPoint[] = withMetric.map(({ point: p, summary }) => ({
    check_id: p.check_id,
    time: p.time,
    commit: p.commit ?? null,
    image: p.stack.image ?? null,
    image_digest: p.stack.image_digest ?? null,
    value: summary.mean,
    runs: summary.n
  }))
  const last = withMetric.findLast(r => r.summary.better !== undefined)
  const better = last?.summary.better ?? null
  const unit = withMetric.at(-1)?.summary.unit ?? ''
  const id = shortHash(series.key)
  const result = changePoints(
    points.map(p => p.value),
    opts
  )
  const found = result.changePoints
  const outliers: TrendOutlier[] = result.outliers.map(i => {
    const p = at(points, i)
    return { index: i, check_id: p.check_id, time: p.time, value: p.value }
  })
  const changes: TrendChange[] = found.map(c => {
    const point = at(withMetric, c.index).point
    const prev = at(withMetric, c.index - 1).point
    const changePct = (c.meanAfter / c.meanBefore - 1) * 100
    return {
      id: `${id}/${metric}/${point.check_id}`,
      index: c.index,
      check_id: point.check_id,
      time: point.time,
      commit: point.commit ?? null,
      image: point.stack.image ?? null,
      image_digest: point.stack.image_digest ?? null,
      previous: { check_id: prev.check_id, time: prev.time, commit: prev.commit ?? null },
      stack_changes: stackChanges(prev, point),
      before: c.meanBefore,
      after: c.meanAfter,
      change_pct: changePct,
      magnitude_pct: c.magnitude * 100,
      p: c.pValue,
      direction: directionOf(changePct, better),
      reverts: null,
      reverted_by: null
    }
  })
  linkReverts(changes, opts.minMagnitude)
  return {
    id,
    key: series.key,
    environment: series.environment,
    workload: series.workload,
    params: series.params,
    facts: series.facts,
    metric,
    unit,
    better,
    points,
    changes,
    outliers
  }
}

export function analyzeTrend(history: History, options: TrendOptions = {}): TrendReport {
  const opts: TrendReport['options'] = {
    window: options.window ?? DEFAULT_WINDOW,
    maxP: options.maxP ?? DEFAULT_MAX_P,
    minMagnitude: options.minMagnitude ?? DEFAULT_MIN_MAGNITUDE,
    minSegment: options.minSegment ?? DEFAULT_MIN_SEGMENT,
    metrics: options.metrics && options.metrics.length > 0 ? [...options.metrics] : null
  }
  const all = Object.values(history).sort((a, b) => a.key.localeCompare(b.key))
  if (opts.metrics !== null) {
    const available = new Set(all.flatMap(s => s.points.flatMap(p => Object.keys(p.metrics))))
    const missing = opts.metrics.filter(m => !available.has(m))
    if (missing.length > 0) throw new UnknownMetricError(missing, [...available].sort())
  }
  const series: TrendSeries[] = []
  for (const s of all) {
    const wanted = opts.metrics ?? metricsOf(s)
    for (const m of wanted)
      if (s.points.some(p => p.metrics[m] !== undefined)) series.push(analyzeMetric(s, m, opts))
  }
  const open = series.flatMap(s =>
    s.changes.filter(c => c.direction !== 'improvement' && c.reverts === null && c.reverted_by === null)
  )
  return { options: opts, series, open }
}
