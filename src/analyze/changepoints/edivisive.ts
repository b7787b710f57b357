/**
 * Change points of a series by Otava's (Hunter's) variant of e-divisive means — Fleming et al.,
 * "Hunter: Using Change Point Detection to Hunt for Performance Regressions", ICPE 2023,
 * doi:10.1145/3578244.3583719 — ported from apache/otava `otava/analysis.py` and
 * `otava/change_point_divisive/` (commit 1ceb1537a49d516cf6cef9a79bea6926002082f8) and checked against
 * its published test expectations and recorded outputs:
 *
 * 1. Split: slide a window (step = window/2) over the series; inside each window, split recursively at
 *    the best Q̂ candidate while its t-test p ≤ a relaxed threshold (10× max p below 0.05), giving
 *    "weak" change points.
 * 2. Merge: repeatedly drop the weakest — the largest p while any p ≥ max p, then the smallest
 *    magnitude while it is ≤ the minimum magnitude — and re-test its neighbours.
 *
 * One deliberate difference, on by default: the t-test's p is corrected for the search. The split is
 * the best of (segment length − 1) positions, so the plain t-test p of that split is far too small
 * under pure noise (measured: 42 of 1,000 noise series of length 100 got a "p ≤ 0.001" change point).
 * Bonferroni over the positions of the segment tested bounds the chance of a false split at max p.
 * And a reported change point needs `minSegment` points on each side (default 3). Two more, so one
 * night cannot decide the result (issue 28, D7): an isolated outlying point is left out of every test
 * (outliers.ts), and the merged points are settled (`settle`) so a looser max p never loses a step a
 * stricter one found through the order split and merge met the candidates.
 * A change point's index is the first point of the new regime.
 */
import { nextCandidate, type Interval } from './qhat.js'
import { isolatedOutliers } from './outliers.js'
import { magnitude, splitTest } from './ttest.js'
import { bestTSplit } from './best-t-split.js'
import { at, last, must, numAt } from '../../util/must.js'
import {
  DEFAULT_MAX_P,
  DEFAULT_MIN_MAGNITUDE,
  DEFAULT_MIN_SEGMENT,
  DEFAULT_WINDOW,
  validate,
  validateResume,
  type ChangePoint,
  type ChangePointOptions,
  type ChangePointResult,
  type Resume
} from './options.js'

interface Context {
  series: readonly number[]
  /** Multiply p by the number of split positions of the segment tested. */
  correct: boolean
}

/** Segments between sorted change points (empty ones dropped), as Otava's get_intervals. */
function intervalsOf(indexes: readonly number[], length: number): Interval[] {
  const out: Interval[] = []
  let start = 0
  for (const end of [...indexes, length]) {
    if (start !== end) out.push({ start, end })
    start = end
  }
  return out
}

function test(ctx: Context, index: number, qhat: number, start: number, end: number): ChangePoint {
  const stats = splitTest(ctx.series.slice(start, index), ctx.series.slice(index, end))
  const pRaw = stats.pValue
  const positions = end - start - 1
  const pValue = ctx.correct ? Math.min(1, pRaw * positions) : pRaw
  return { index, qhat, ...stats, pValue, pRaw, magnitude: magnitude(stats) }
}

/**
 * A split at `index`: between the two intervals that meet there (a point already in the list) or the
 * two halves of the interval that contains it (a new candidate).
 */
function testAt(ctx: Context, index: number, qhat: number, intervals: readonly Interval[]): ChangePoint {
  for (const [i, iv] of intervals.entries()) {
    const next = intervals[i + 1]
    if (iv.end === index && next !== undefined) return test(ctx, index, qhat, iv.start, next.end)
    if (iv.start < index && index < iv.end) return test(ctx, index, qhat, iv.start, iv.end)
  }
  throw new RangeError(`index ${index} is in no interval`)
}

/** E-divisive with a t-test stop over a whole series (one window); exported for Otava's detector test. */
export function detectInWindow(
  window: readonly number[],
  maxP: number,
  { correct = true }: { correct?: boolean } = {}
): ChangePoint[] {
  const ctx: Context = { series: window, correct }
  const found: ChangePoint[] = []
  // Each round adds a point or stops; a window of L points has at most L − 1 splits.
  for (let round = 0; round < window.length; round++) {
    const intervals = intervalsOf(
      found.map(c => c.index),
      window.length
    )
    const candidate = nextCandidate(window, intervals)
    if (candidate === null) break
    const cp = testAt(ctx, candidate.index, candidate.qhat, intervals)
    if (!(cp.pValue <= maxP)) break
    found.push(cp)
    found.sort((a, b) => a.index - b.index)
  }
  return found
}

/** Where Otava's split restarts on an append: the last old weak point or window step before its cut-off. */
function resumeStart(resume: Resume, length: number, window: number, step: number): number {
  const maxStart = length - (resume.newPoints / window + 4) * window
  let start = 0
  for (const i of resume.weak) if (i < maxStart) start = i
  for (let s = 0; s < length; s += step) if (s < maxStart && start < s) start = s
  return start
}

/** Split step: union of the windows' change points, re-tested against their neighbours in the whole series. */
function split(ctx: Context, window: number, maxP: number, resume?: Resume): ChangePoint[] {
  const { series } = ctx
  const step = Math.floor(window / 2)
  // index → qhat (Otava passes old weak points back with qhat 0)
  const found = new Map<number, number>((resume?.weak ?? []).map(i => [i, 0]))
  let start = resume === undefined ? 0 : resumeStart(resume, series.length, window, step)
  while (start < series.length) {
    const end = Math.min(start + window, series.length)
    const local = detectInWindow(series.slice(start, end), maxP, ctx)
    for (const c of local) if (!found.has(c.index + start)) found.set(c.index + start, c.qhat)
    const lastFound = local.length > 0 ? last(local).index + start : 0
    start = Math.max(lastFound, start + step)
  }
  const indexes = [...found.keys()].sort((a, b) => a - b)
  const intervals = intervalsOf(indexes, series.length)
  return indexes.map(i => testAt(ctx, i, must(found.get(i), 'every index came from found'), intervals))
}

/**
 * Which neighbours a removal re-tests. Otava re-tests the point after the removed one and the one after
 * that ('otava'), leaving the point before with its old, now stale, statistics; 'adjacent' re-tests the
 * two points that now border the joined segment.
 */
type Retest = 'otava' | 'adjacent'

/** Merge step: drop the weakest point until every one is significant and large enough. */
function merge(
  ctx: Context,
  points: readonly ChangePoint[],
  maxP: number,
  minMagnitude: number,
  retest: Retest,
  minSegment = 1
): ChangePoint[] {
  const cps = [...points]
  while (cps.length > 0) {
    const short = shortSegmentPoints(cps, ctx.series.length, minSegment)
    let weakest = short[0] ?? 0
    for (const i of short) if (at(cps, i).pValue > at(cps, weakest).pValue) weakest = i
    if (short.length === 0)
      for (let i = 1; i < cps.length; i++) if (at(cps, i).pValue > at(cps, weakest).pValue) weakest = i
    if (short.length === 0 && at(cps, weakest).pValue < maxP) {
      weakest = 0
      for (let i = 1; i < cps.length; i++) if (at(cps, i).magnitude < at(cps, weakest).magnitude) weakest = i
      if (at(cps, weakest).magnitude > minMagnitude) return cps
    }
    cps.splice(weakest, 1)
    const intervals = intervalsOf(
      cps.map(c => c.index),
      ctx.series.length
    )
    const neighbours = retest === 'otava' ? [weakest, weakest + 1] : [weakest - 1, weakest]
    for (const i of neighbours) {
      const cp = cps[i]
      if (cp !== undefined) cps[i] = testAt(ctx, cp.index, cp.qhat, intervals)
    }
  }
  return cps
}

/** Positions (in `cps`) of the points next to a segment shorter than `minSegment`. */
function shortSegmentPoints(cps: readonly ChangePoint[], length: number, minSegment: number): number[] {
  const out: number[] = []
  for (const [i, cp] of cps.entries()) {
    const before = cp.index - (cps[i - 1]?.index ?? 0)
    const after = (cps[i + 1]?.index ?? length) - cp.index
    if (before < minSegment || after < minSegment) out.push(i)
  }
  return out
}

/** First-pass threshold of the split step, as Otava: 10× below 0.05, 2× below 0.5. */
export function firstPassP(maxP: number): number {
  return maxP < 0.05 ? maxP * 10 : maxP < 0.5 ? maxP * 2 : maxP
}

/**
 * Change points of `series` (oldest first). By default Otava's merge is followed by a reconciling pass:
 * every point is re-tested against its final neighbours and the merge goes on with adjacent re-tests,
 * so each reported p and magnitude describe the segments actually reported. Where the series has a
 * clear step both modes agree; on drift they may split at other points.
 */
export function changePoints(series: readonly number[], options: ChangePointOptions = {}): ChangePointResult {
  const window = options.window ?? DEFAULT_WINDOW
  const maxP = options.maxP ?? DEFAULT_MAX_P
  const minMagnitude = options.minMagnitude ?? DEFAULT_MIN_MAGNITUDE
  const minSegment = options.minSegment ?? DEFAULT_MIN_SEGMENT
  validate(series, window, maxP, minMagnitude)
  if (!Number.isInteger(minSegment) || minSegment < 1)
    throw new RangeError(`min segment must be an integer ≥ 1, got ${minSegment}`)
  const exact = options.otavaExact === true
  if (options.resume !== undefined) validateResume(options.resume, series.length)
  const outliers =
    exact || options.resume !== undefined || options.outliers === false
      ? []
      : isolatedOutliers(series, { minMagnitude })
  if (outliers.length === 0)
    return { ...detect(series, window, maxP, minMagnitude, minSegment, options), outliers }
  // Left out of every test; indexes mapped back to the series given.
  const left = new Set(outliers)
  const kept = [...series.keys()].filter(i => !left.has(i))
  const found = detect(
    series.filter((_, i) => !left.has(i)),
    window,
    maxP,
    minMagnitude,
    minSegment,
    options
  )
  const back = (c: ChangePoint): ChangePoint => ({ ...c, index: numAt(kept, c.index) })
  return { changePoints: found.changePoints.map(back), weak: found.weak.map(back), outliers }
}

function detect(
  series: readonly number[],
  window: number,
  maxP: number,
  minMagnitude: number,
  minSegment: number,
  options: ChangePointOptions
): Omit<ChangePointResult, 'outliers'> {
  const exact = options.otavaExact === true
  const ctx: Context = { series, correct: !exact }
  const weak = split(ctx, window, firstPassP(maxP), options.resume)
  const merged = merge(ctx, weak, maxP, minMagnitude, 'otava')
  if (exact) return { changePoints: merged, weak }
  const intervals = intervalsOf(
    merged.map(c => c.index),
    series.length
  )
  const fresh = merged.map(c => testAt(ctx, c.index, c.qhat, intervals))
  const reconciled = merge(ctx, fresh, maxP, minMagnitude, 'adjacent', minSegment)
  return { changePoints: settle(ctx, reconciled, maxP, minMagnitude, minSegment), weak }
}

/**
 * Settle the merged points so the result does not hang on the order in which split and merge met them:
 * every point moves to the best split between its neighbours, and a segment that still holds a step
 * significant on its own (its best split, p corrected for the segment's positions ≤ max p, magnitude above
 * the minimum) gets it; then all are re-tested and merged again, until nothing changes. Without this a
 * looser max p could find fewer true steps than a stricter one: its extra weak candidates cut the true
 * step's segments short and the merge dropped the true step first (issue 28, D7). Each added point is a
 * level-max-p test of its segment (Bonferroni over the positions bounds the best split's p).
 */
function settle(
  ctx: Context,
  points: readonly ChangePoint[],
  maxP: number,
  minMagnitude: number,
  minSegment: number
): ChangePoint[] {
  const { series } = ctx
  const qhats = new Map(points.map(c => [c.index, c.qhat]))
  let current = [...points]
  const seen = new Set<string>()
  for (let round = 0; round <= series.length; round++) {
    const key = current.map(c => c.index).join(',')
    if (seen.has(key)) break
    seen.add(key)
    const indexes = current.map(c => c.index)
    // Each point between its neighbours as moved so far (the series' ends at the ends).
    for (const [k, here] of indexes.entries()) {
      const lo = indexes[k - 1] ?? 0
      const hi = indexes[k + 1] ?? series.length
      indexes[k] = bestTSplit(series, lo, hi, minSegment, here) ?? here
    }
    let added: ChangePoint | null = null
    for (const iv of intervalsOf(indexes, series.length)) {
      const at = bestTSplit(series, iv.start, iv.end, minSegment)
      if (at === null) continue
      const cp = test(ctx, at, 0, iv.start, iv.end)
      if (cp.pValue <= maxP && cp.magnitude > minMagnitude && (added === null || cp.pValue < added.pValue))
        added = cp
    }
    if (added !== null) indexes.push(added.index)
    indexes.sort((a, b) => a - b)
    const intervals = intervalsOf(indexes, series.length)
    const tested = indexes.map(i => testAt(ctx, i, qhats.get(i) ?? 0, intervals))
    current = merge(ctx, tested, maxP, minMagnitude, 'adjacent', minSegment)
    if (current.map(c => c.index).join(',') === key) break
  }
  return current
}
