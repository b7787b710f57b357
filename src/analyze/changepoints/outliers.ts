/**
 * Isolated outlying points of a series: one night far off its neighbours on both sides (a co-tenant, a
 * throttled GPU), which is no regime of its own but, left in, inflates the spread of whichever segment
 * holds it. With the spread of a segment inflated, the t-test of a real step next to it loses its
 * significance: one ×1.25 night hid a later +5% step in ~20% of histories (issue 28, D7). Otava keeps such
 * a point as a one-point segment, so it leaves the neighbouring tests; we do not report one-point segments
 * (min segment 3), so the point is left out of every test instead, and named.
 *
 * The rule (a Hampel filter): a point is an outlier when it differs from the median of its neighbourhood
 * (`half` points each side, itself included; truncated at the ends) by more than `z` robust standard
 * deviations AND by more than `minMagnitude` relative. The robust sd comes from the first differences,
 * σ̂ = 1.4826 · median|x[i] − x[i−1]| / √2: a step moves one difference and an outlier two, so neither
 * inflates it. A run of up to `half` points off their surroundings is caught; a level that lasts longer is
 * a regime (the median of a window across a step is a point of the side the point is on).
 */
import { at } from '../../util/must.js'
import { medianSorted } from '../stats/descriptive.js'

export const OUTLIER_HALF_WINDOW = 3
/** Robust standard deviations from the local median (normal noise: 2 in 10⁶ points; Laplace: ~1 in 1,000). */
export const OUTLIER_Z = 6

function median(xs: number[]): number {
  return medianSorted([...xs].sort((a, b) => a - b))
}

/** Robust sd of the noise: the median absolute first difference, scaled to σ for normal noise. */
export function differenceSd(series: readonly number[]): number {
  if (series.length < 2) return 0
  const diffs: number[] = []
  let prev = at(series, 0)
  for (const x of series.slice(1)) {
    diffs.push(Math.abs(x - prev))
    prev = x
  }
  return (1.4826 * median(diffs)) / Math.SQRT2
}

/** Indexes (ascending) of the isolated outliers of `series`. */
export function isolatedOutliers(
  series: readonly number[],
  {
    half = OUTLIER_HALF_WINDOW,
    z = OUTLIER_Z,
    minMagnitude = 0
  }: { half?: number; z?: number; minMagnitude?: number } = {}
): number[] {
  // Fewer points than two full neighbourhoods: no local level to be off from.
  if (series.length < 2 * half + 1) return []
  const sd = differenceSd(series)
  const out: number[] = []
  for (const [i, x] of series.entries()) {
    const local = median(series.slice(Math.max(0, i - half), Math.min(series.length, i + half + 1)))
    const dev = Math.abs(x - local)
    if (dev === 0 || !(dev > z * sd)) continue
    const relative = local === 0 ? Infinity : dev / Math.abs(local)
    if (relative > minMagnitude) out.push(i)
  }
  return out
}
