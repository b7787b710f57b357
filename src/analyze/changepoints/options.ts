/** What changePoints (edivisive.ts) takes and returns: its options and defaults, checked; its change points. */
import type { SplitStats } from './ttest.js'

export const DEFAULT_WINDOW = 50
export const DEFAULT_MAX_P = 0.001
/** Relative change (0.02 = 2%) below which a significant change point is still dropped. */
export const DEFAULT_MIN_MAGNITUDE = 0.02
export const DEFAULT_MIN_SEGMENT = 3

export interface ChangePointOptions {
  window?: number
  maxP?: number
  minMagnitude?: number
  /**
   * Reproduce apache/otava exactly: no correction of p for the search, and stop after Otava's merge
   * step (see changePoints). For comparison with Otava; not calibrated.
   */
  otavaExact?: boolean
  /**
   * Fewest points a regime needs on each side of a reported change point (default 3; ignored under
   * otavaExact). Without it one outlying night splits off as a one-point segment with two change points.
   */
  minSegment?: number
  /**
   * Otava's incremental append (compute_change_points' new_data / old_weak_cp, used by
   * AnalyzedSeries.append): the last `newPoints` points are new and `weak` are the change points Otava
   * returned as weak for the series before them (its merge deletes from that list in place, so they are
   * the final points of that run). They are kept, and the windows restart near the end. Its result can
   * differ from a fresh run (Otava's own test_incremental_otava keeps a point a fresh run drops).
   */
  resume?: Resume
  /**
   * Leave isolated outlying points out of every test (default true; always off under otavaExact and
   * resume): see outliers.ts. The result names them.
   */
  outliers?: boolean
}

export interface Resume {
  newPoints: number
  weak: readonly number[]
}

export interface ChangePoint extends SplitStats {
  index: number
  /** Q̂ of the split when it was found. */
  qhat: number
  /** max(|after/before − 1|, |before/after − 1|). */
  magnitude: number
  /** The t-test's p before the correction for the search (equals pValue under otavaExact). */
  pRaw: number
}

export interface ChangePointResult {
  changePoints: ChangePoint[]
  /** Candidates of the split step, before merging (for diagnostics). */
  weak: ChangePoint[]
  /** Indexes of isolated outlying points left out of every test (see `isolatedOutliers`); [] under otavaExact. */
  outliers: number[]
}

export function validate(
  series: readonly number[],
  window: number,
  maxP: number,
  minMagnitude: number
): void {
  if (!Number.isInteger(window) || window < 2)
    throw new RangeError(`window must be an integer ≥ 2, got ${window}`)
  if (!(maxP > 0 && maxP <= 1)) throw new RangeError(`max p must be in (0, 1], got ${maxP}`)
  if (!(minMagnitude >= 0)) throw new RangeError(`min magnitude must be ≥ 0, got ${minMagnitude}`)
  for (const [i, v] of series.entries())
    if (!Number.isFinite(v)) throw new RangeError(`series value ${i} is not a finite number (${v})`)
}

export function validateResume({ newPoints, weak }: Resume, length: number): void {
  if (!Number.isInteger(newPoints) || newPoints < 1 || newPoints > length)
    throw new RangeError(`resume.newPoints must be an integer in [1, ${length}], got ${newPoints}`)
  for (const i of weak)
    if (!Number.isInteger(i) || i < 1 || i >= length - newPoints)
      throw new RangeError(`resume.weak holds ${i}, not an index inside the old series`)
  if (weak.some((v, k) => k > 0 && v <= (weak[k - 1] ?? -Infinity)))
    throw new RangeError('resume.weak must be ascending')
}
