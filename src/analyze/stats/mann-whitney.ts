/**
 * Mann–Whitney U, two-sided, with the right null distribution for the sample sizes we have.
 *
 * - No ties and one arm ≤ 8 values: SciPy's exact distribution (its `method='auto'` rule), counted.
 * - Ties and C(n1+n2, n1) ≤ 100,000: the exact permutation distribution of the rank sum given the tied
 *   mid-ranks (what `scipy.stats.mannwhitneyu(..., method=PermutationMethod())` enumerates). The normal
 *   approximation is badly off there: two constant arms of 3 get p = 0.047 from it, while no
 *   arrangement of 3 vs 3 can give less than 2/20 = 0.10.
 * - Otherwise the normal approximation with tie and continuity corrections (SciPy's `asymptotic`), whose
 *   tail comes from erfc (not 1 − cdf, which cancels to 0 beyond ~1e-16), and whose log is kept so a p
 *   below the smallest double is still ordered and printable (n = 50 vs 50 separated: 7.07e-18).
 */
import erfc from '@stdlib/math-base-special-erfc'
import normalLogCdf from '@stdlib/stats-base-dists-normal-logcdf'
import { at, f64At, numAt } from '../../util/must.js'

/** Enumerate the permutation distribution up to this many arrangements. */
export const EXACT_PERMUTATION_LIMIT = 100_000
/** SciPy's auto rule: exact (tie-free) distribution when an arm has at most this many values. */
const SCIPY_EXACT_MAX_N = 8

export type MannWhitneyMethod = 'exact' | 'permutation' | 'normal'

export interface MannWhitneyResult {
  /** U of the first sample (pairs with x > y, ties counting one half), as SciPy reports it. */
  u: number
  /** Two-sided p (0 only when it underflows a double; see log10_p). */
  p: number
  /** log10 of the two-sided p, finite even where p underflows. */
  log10_p: number
  method: MannWhitneyMethod
}

/** Average ranks (1-based) of `values`, ties sharing the mean of their ranks; plus the tie-group sizes. */
export function rankWithTies(values: readonly number[]): { ranks: Float64Array; ties: number[] } {
  const n = values.length
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => numAt(values, i) - numAt(values, j))
  const ranks = new Float64Array(n)
  const ties: number[] = []
  let i = 0
  while (i < n) {
    let j = i
    while (j + 1 < n && values[numAt(order, j + 1)] === values[numAt(order, i)]) j++
    const avg = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) ranks[numAt(order, k)] = avg
    if (j > i) ties.push(j - i + 1)
    i = j + 1
  }
  return { ranks, ties }
}

/** C(n, k) as a double (exact well beyond the limit we compare it with). */
export function binomial(n: number, k: number): number {
  let c = 1
  for (let i = 1; i <= Math.min(k, n - k); i++) c = (c * (n - i + 1)) / i
  return Math.round(c)
}

/**
 * Counts of the U statistic over all C(m+n, m) tie-free orderings: counts[u]. Recurrence
 * f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u) (the largest value belongs to one sample or the other),
 * as SciPy's `_mwu_state`. Additions only, so counts stay accurate in floating point beyond 2^53.
 */
function tieFreeCounts(m: number, n: number): Float64Array {
  let prev: Float64Array[] = Array.from({ length: n + 1 }, () => Float64Array.of(1))
  for (let i = 1; i <= m; i++) {
    const cur: Float64Array[] = new Array<Float64Array>(n + 1)
    cur[0] = Float64Array.of(1)
    for (let j = 1; j <= n; j++) {
      // f(m−1, n, u−n): prev[j] (length (i−1)·j + 1) shifted by j fills poly's tail exactly.
      const poly = new Float64Array(i * j + 1)
      poly.set(at(prev, j), j)
      const fromY = at(cur, j - 1)
      for (let k = 0; k < fromY.length; k++) poly[k] = f64At(poly, k) + f64At(fromY, k)
      cur[j] = poly
    }
    prev = cur
  }
  return at(prev, n)
}

/**
 * Permutation distribution of the rank sum of a size-k subset of `doubledRanks` (twice the mid-ranks,
 * so integers): counts[s] = number of size-k subsets summing to s. Subset-sum dynamic programme; every
 * one of the C(N, k) subsets is counted exactly once.
 */
function subsetSumCounts(doubledRanks: readonly number[], k: number): Float64Array {
  const total = doubledRanks.reduce((a, b) => a + b, 0)
  const dp: Float64Array[] = Array.from({ length: k + 1 }, () => new Float64Array(total + 1))
  at(dp, 0)[0] = 1
  for (const r of doubledRanks)
    for (let size = k; size >= 1; size--) {
      const from = at(dp, size - 1)
      const to = at(dp, size)
      for (let s = total - r; s >= 0; s--) {
        const c = f64At(from, s)
        if (c !== 0) to[s + r] = f64At(to, s + r) + c
      }
    }
  return at(dp, k)
}

/** 2·min(P(S ≤ obs), P(S ≥ obs)) over a count distribution, capped at 1. */
function twoSidedFromCounts(counts: Float64Array, obs: number): number {
  let below = 0
  let above = 0
  let total = 0
  let s = 0
  for (const c of counts) {
    total += c
    if (s <= obs) below += c
    if (s >= obs) above += c
    s++
  }
  return Math.min(1, (2 * Math.min(below, above)) / total)
}

const log10OfP = (p: number): number => Math.log10(p)

/**
 * Two-sided Mann–Whitney U test of x against y. `method` forces one distribution ('auto' picks as the
 * module comment says); 'exact' on tied data enumerates the permutation distribution when feasible.
 */
export function mannWhitneyU(
  x: readonly number[],
  y: readonly number[],
  method: 'auto' | 'exact' | 'normal' = 'auto'
): MannWhitneyResult {
  const n1 = x.length
  const n2 = y.length
  if (n1 === 0 || n2 === 0) return { u: 0, p: 1, log10_p: 0, method: 'normal' }
  const { ranks, ties } = rankWithTies([...x, ...y])
  let r1 = 0
  for (const r of ranks.subarray(0, n1)) r1 += r
  const u1 = r1 - (n1 * (n1 + 1)) / 2
  const feasible = binomial(n1 + n2, n1) <= EXACT_PERMUTATION_LIMIT
  const tieFreeExact = ties.length === 0 && (n1 <= SCIPY_EXACT_MAX_N || n2 <= SCIPY_EXACT_MAX_N)
  if ((method === 'exact' || method === 'auto') && ties.length > 0 && feasible) {
    const doubled = Array.from(ranks, r => Math.round(2 * r))
    const p = twoSidedFromCounts(subsetSumCounts(doubled, n1), Math.round(2 * r1))
    return { u: u1, p, log10_p: log10OfP(p), method: 'permutation' }
  }
  if (method === 'exact' || (method === 'auto' && tieFreeExact)) {
    const counts = tieFreeCounts(Math.min(n1, n2), Math.max(n1, n2))
    // SciPy truncates U to an integer (only matters when exact is forced on tied, infeasible data).
    const p = twoSidedFromCounts(counts, Math.floor(u1))
    return { u: u1, p, log10_p: log10OfP(p), method: 'exact' }
  }
  const n = n1 + n2
  const tieTerm = ties.reduce((s, t) => s + t ** 3 - t, 0)
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))))
  // All values tied: no information at all.
  if (!(sigma > 0)) return { u: u1, p: 1, log10_p: 0, method: 'normal' }
  const u = Math.max(u1, n1 * n2 - u1)
  const z = (u - (n1 * n2) / 2 - 0.5) / sigma
  // Two-sided p = 2·Φ(−z) = erfc(z/√2); its log from the normal log-cdf where erfc underflows.
  const p = Math.min(1, erfc(z / Math.SQRT2))
  const log10p = p > 0 ? Math.log10(p) : (Math.LN2 + normalLogCdf(-z, 0, 1)) / Math.LN10
  return { u: u1, p, log10_p: Math.min(0, log10p), method: 'normal' }
}
