/**
 * The overhead as the README defines it, tested within blocks: R = mean(worse-way numerator) / mean(denominator),
 * the ratio of the arms' request means (each process contributes the mean of its requests; a block is one
 * process of each arm, adjacent in time or at the same time). Inference is Fieller's, on paired data: for a
 * ratio θ, e_r(θ) = w_r − θ·b_r has mean zero exactly when R = θ, so a paired t-test on e(θ) tests R = θ with
 * no approximation beyond the t-test's own (Fieller 1954; Franz 2007, "Ratios: a short guide to confidence
 * limits and proper use"), and the interval is the set of θ it does not reject. A state a block's two processes
 * share multiplies both w_r and b_r and so only scales e_r: it cancels as it did in the log-ratio.
 *
 * Strata (issue 38): in a duet a block's two processes run on two GPUs, and the GPUs differ. Blocks are
 * grouped by the GPUs they ran on; every stratum's mean is taken alone and the strata are averaged with equal
 * weights (with the crossover, each GPU's offset enters the numerator and the denominator alike), and the
 * variance is pooled within strata with n − S degrees of freedom: each stratum's offset is paid for with one.
 *
 * Every block counts: no block is left out before the test, so the estimate is the mean the README defines and
 * the error rates are the t-test's (issue 39, S2/S4: leaving far blocks out made the test anti-conservative and
 * turned a native-only slow path into a false regression). The robust view of the same blocks is a diagnostic
 * (compare/agreement.ts).
 */
import { numAt } from '../../util/must.js'
import { tCdf as jstatTCdf, tInv } from './distributions.js'

/** Student's t cdf that also takes ±∞ (a θ so far off that its variance rounds to zero). */
function tCdf(x: number, df: number): number {
  if (x === Infinity) return 1
  if (x === -Infinity) return 0
  return jstatTCdf(x, df)
}

const twoSidedT = (t: number, df: number): number => Math.min(1, 2 * tCdf(-Math.abs(t), df))

export interface RatioBlocks {
  /** Worse-way numerator per block (candidate for lower-is-better, baseline for higher-is-better). */
  w: readonly number[]
  /** Worse-way denominator per block. */
  b: readonly number[]
  /** Stratum per block ('' everywhere: one stratum). */
  strata?: readonly string[]
}

export interface RatioTest {
  /** False below 2 degrees of freedom' worth of blocks, or when e(θ) has no spread (constant ratios). */
  defined: boolean
  n: number
  strata: number
  df: number
  /** R̂ = W̄ / B̄ (stratum-balanced means). */
  ratio: number
  /**
   * Two-sided 1 − alpha Fieller interval of R within (0, +∞): low 0 where the blocks do not bound R away from
   * zero, high +∞ where the denominator is not clearly positive (see fieller).
   */
  ci: { low: number; high: number }
  /** Two-sided p of R = 1. */
  p: number
  /** One-sided p of "R ≤ high": small means R exceeds the upper bound (a regression). */
  pAbove: number
  /** One-sided p of "R ≥ low": small means R is below the lower bound (an improvement). */
  pBelow: number
  /** TOST p of R within (low, high). */
  pEquivalent: number
  /** Sd of one block's e(R̂) relative to B̄: the per-block spread on the ratio scale (for MDE and projections). */
  sdRel: number
  /** Var(mean) = sdRel² · varFactor / … : Σ_s (1/n_s) / S², which is 1/n with one stratum. */
  varFactor: number
}

interface Moments {
  W: number
  B: number
  /** R̂ = W / B. */
  R: number
  /** Pooled within-stratum variance of e = w − R̂·b, its covariance with b, and the variance of b. */
  see: number
  seb: number
  sbb: number
  n: number
  S: number
  varFactor: number
}

/**
 * Stratum-balanced means and pooled within-stratum (co)variances. The spread is taken of e = w − R̂·b directly
 * (not as s_ww − 2R̂·s_wb + R̂²·s_bb, which cancels catastrophically when the ratio barely varies).
 */
function moments(blocks: RatioBlocks): Moments | null {
  const { w, b } = blocks
  const n = w.length
  if (n !== b.length || n < 2) return null
  const groups = new Map<string, number[]>()
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(w[i]) || !Number.isFinite(b[i])) return null
    const s = blocks.strata?.[i] ?? ''
    let g = groups.get(s)
    if (g === undefined) groups.set(s, (g = []))
    g.push(i)
  }
  const S = groups.size
  if (n - S < 1) return null
  const means: { idx: number[]; mw: number; mb: number }[] = []
  let W = 0
  let B = 0
  let varFactor = 0
  for (const idx of groups.values()) {
    let mw = 0
    let mb = 0
    for (const i of idx) {
      mw += numAt(w, i)
      mb += numAt(b, i)
    }
    mw /= idx.length
    mb /= idx.length
    means.push({ idx, mw, mb })
    W += mw
    B += mb
    varFactor += 1 / idx.length
  }
  W /= S
  B /= S
  const R = W / B
  let see = 0
  let seb = 0
  let sbb = 0
  for (const { idx, mw, mb } of means)
    for (const i of idx) {
      const db = numAt(b, i) - mb
      const de = numAt(w, i) - mw - R * db
      see += de * de
      seb += de * db
      sbb += db * db
    }
  const df = n - S
  return { W, B, R, see: see / df, seb: seb / df, sbb: sbb / df, n, S, varFactor: varFactor / (S * S) }
}

/** t statistic of R = θ: (W̄ − θB̄) / se(θ), with θ = R̂ + δ. */
function tAt(m: Moments, theta: number): number {
  const d = theta - m.R
  const v = (m.see - 2 * d * m.seb + d * d * m.sbb) * m.varFactor
  const diff = -d * m.B
  if (!(v > 0)) return diff === 0 ? 0 : diff > 0 ? Infinity : -Infinity
  return diff / Math.sqrt(v)
}

/**
 * Fieller's interval: the θ with |t(θ)| ≤ q, solved for δ = θ − R̂ (stable at a small spread), within the ratios
 * two positive quantities can have. The true ratio of two positive means is positive, so the set's part at or
 * below zero holds no value it could take: the interval is the set's part above zero (its coverage is the
 * set's). A low end of 0 means the blocks do not bound the ratio away from zero (the numerator's mean is not
 * clearly positive at this spread); a high end of +∞ that they do not bound it at all (the denominator's mean is
 * not clearly positive: Fieller's set is the whole line or two pieces). Neither is a number: the report says so
 * in words (issue 51).
 */
function fieller(m: Moments, q: number): { low: number; high: number } {
  const k = q * q * m.varFactor
  const a = m.B * m.B - k * m.sbb
  if (!(a > 0)) return { low: 0, high: Infinity }
  const r = Math.sqrt(k * k * m.seb * m.seb + a * k * m.see)
  const low = m.R + (-k * m.seb - r) / a
  return { low: Math.max(0, low), high: m.R + (-k * m.seb + r) / a }
}

/** Fieller's set always holds R̂ (t(R̂) = 0); rounding at a near-zero spread must not move it off. */
function containing(ci: { low: number; high: number }, r: number): { low: number; high: number } {
  return { low: Math.min(ci.low, r), high: Math.max(ci.high, r) }
}

/** The test's result where nothing can be tested (too few blocks, no spread): every claim's p is 1. */
export const UNDEFINED = (n: number, S: number): RatioTest => ({
  defined: false,
  n,
  strata: S,
  df: Math.max(0, n - S),
  ratio: NaN,
  ci: { low: NaN, high: NaN },
  p: 1,
  pAbove: 1,
  pBelow: 1,
  pEquivalent: 1,
  sdRel: NaN,
  varFactor: NaN
})

/**
 * The paired ratio-of-means tests against the bounds (low, high) of the equivalence region on the ratio scale
 * (1 − m, 1 + m), and the 1 − alpha interval.
 */
export function ratioTest(blocks: RatioBlocks, low: number, high: number, alpha: number): RatioTest {
  const m = moments(blocks)
  const n = blocks.w.length
  if (m === null) return UNDEFINED(n, new Set(blocks.strata ?? []).size || 1)
  const df = m.n - m.S
  const ratio = m.R
  const spread = m.see
  // A constant ratio (no spread at all) tests nothing: the two-sample figures stand.
  if (!(m.B > 0) || !(spread > 0)) return { ...UNDEFINED(n, m.S), ratio }
  const tHigh = tAt(m, high)
  const tLow = tAt(m, low)
  // One-sided p values: "R ≤ high" rejected for a large t(high); "R ≥ low" rejected for a small t(low).
  const pAbove = 1 - tCdf(tHigh, df)
  const pBelow = tCdf(tLow, df)
  const pUnderHigh = tCdf(tHigh, df)
  const pOverLow = 1 - tCdf(tLow, df)
  return {
    defined: true,
    n: m.n,
    strata: m.S,
    df,
    ratio,
    ci: containing(fieller(m, tInv(1 - alpha / 2, df)), ratio),
    p: twoSidedT(tAt(m, 1), df),
    pAbove,
    pBelow,
    pEquivalent: Math.max(pUnderHigh, pOverLow),
    sdRel: Math.sqrt(spread) / m.B,
    varFactor: m.varFactor
  }
}

/** The Fieller interval of the same blocks at another level (a repeated interval after a sequential stop). */
export function ratioInterval(blocks: RatioBlocks, alpha: number): { low: number; high: number } | null {
  const m = moments(blocks)
  if (m === null || !(m.B > 0)) return null
  return containing(fieller(m, tInv(1 - alpha / 2, m.n - m.S)), m.R)
}
