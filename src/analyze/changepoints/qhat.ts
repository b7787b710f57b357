/**
 * The divisive step of e-divisive means (Matteson & James 2014, arXiv:1306.4933): the split of an
 * interval that maximises the energy-distance statistic Q̂ between "before" and "after".
 *
 * For X = s[start, τ) and Y = s[τ, κ) with n = |X|, m = |Y|:
 *   Q(τ, κ) = 2/(m+n)·Σ|Xi−Yj| − 2m/((m+n)(n−1))·Σi<k|Xi−Xk| − 2n/((m+n)(m−1))·Σj<k|Yj−Yk|
 * (a within-term is 0 when its side has one point). The candidate is the τ of the largest Q over every
 * start < τ < κ ≤ end, the first one in (τ, κ) order on ties, as Apache Otava's calculator does.
 * O(L²) per interval with column prefix sums instead of Otava's matrices.
 */
import { at, f64At } from '../../util/must.js'

export interface Candidate {
  /** Index (into the series given) of the first point after the split. */
  index: number
  qhat: number
}

/** Half-open index range [start, end) of a series. */
export interface Interval {
  start: number
  end: number
}

/**
 * Best split of series[start, end) (end − start ≥ 2). `prefix[i][j]` = Σ_{start ≤ u < i} |s[u] − s[j]|
 * is built once per interval, so every sum below is one addition.
 */
export function bestSplit(series: readonly number[], { start, end }: Interval): Candidate {
  const len = end - start
  if (len < 2) throw new RangeError(`interval [${start}, ${end}) has fewer than 2 points`)
  // prefix[a][b]: a = rows u in [start, start+a), b = column index start+b.
  const seg = Float64Array.from(series.slice(start, end))
  let prev = new Float64Array(len)
  const prefix: Float64Array[] = [prev]
  // diag[j] = prefix[j][j]: the distances of s[start + j] to the points before it.
  const diag = new Float64Array(len)
  for (let a = 1; a <= len; a++) {
    const row = new Float64Array(len)
    const u = f64At(seg, a - 1)
    for (let b = 0; b < len; b++) row[b] = f64At(prev, b) + Math.abs(u - f64At(seg, b))
    prefix.push(row)
    if (a < len) diag[a] = f64At(row, a)
    prev = row
  }
  let best: Candidate = { index: start + 1, qhat: Number.NEGATIVE_INFINITY }
  let withinX = 0 // Σ pairs inside X = s[start, τ)
  for (let t = 1; t < len; t++) {
    // X grows by s[start + t − 1]: add its distances to the earlier points of X.
    withinX += f64At(diag, t - 1)
    const rowT = at(prefix, t)
    const n = t
    let cross = 0 // Σ |Xi − Yj|
    let withinY = 0 // Σ pairs inside Y = s[τ, κ)
    for (let k = t + 1; k <= len; k++) {
      const j = k - 1 // the point Y just gained
      const tj = f64At(rowT, j)
      cross += tj
      withinY += f64At(diag, j) - tj
      const m = k - t
      const total = m + n
      const a = (2 / total) * cross
      const b = n > 1 ? ((2 * m) / total / (n - 1)) * withinX : 0
      const c = m > 1 ? ((2 * n) / total / (m - 1)) * withinY : 0
      const q = a - b - c
      if (q > best.qhat) best = { index: start + t, qhat: q }
    }
  }
  return best
}

/** The best candidate over several intervals (those of ≥ 2 points); the first on ties; null if none. */
export function nextCandidate(series: readonly number[], intervals: readonly Interval[]): Candidate | null {
  let best: Candidate | null = null
  for (const iv of intervals) {
    if (iv.end - iv.start < 2) continue
    const c = bestSplit(series, iv)
    if (best === null || c.qhat > best.qhat) best = c
  }
  return best
}
