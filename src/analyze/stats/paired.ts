/**
 * Tests on paired differences (one per block of the interleaved schedule). A block whose two processes straddle
 * a change of host state gives a difference far off the others (±5–12% where the rest sit within ±1%); such
 * blocks are left out before the paired t-test by the MAD–median rule (Wilcox, "Introduction to Robust
 * Estimation and Hypothesis Testing", 3.13; the rule behind the modified one-step M-estimator) with a wide
 * cut-off, K = 5 scaled MADs from the median, so at normal data it practically never leaves one out (the
 * test keeps the paired t-test's power) and only from 6 blocks on, never below 5 kept. The equivalence claim
 * also needs the plain mean of every block inside the region (pairedTest), so what was left out cannot hide
 * a real difference. Distribution functions come from jstat.
 */
import { mean, median } from 'simple-statistics'
import { variance } from './descriptive.js'
import { smallestDetecting } from './detectable-effect.js'
import { tCdf, tInv, twoSidedT } from './distributions.js'

/** Scaled MADs from the median beyond which a block is left out. */
export const OUTLYING_MADS = 5
/** Blocks always kept, and the fewest blocks from which any is left out. */
export const MIN_KEPT = 5
const MIN_BLOCKS_TO_SCREEN = 6
/** At most this share of the blocks is left out. */
export const MAX_LEFT_OUT = 0.25
/** MAD / 0.6745 estimates σ at normal data. */
const MAD_TO_SD = 1 / 0.6745

/** The blocks kept for the test: all but those further than OUTLYING_MADS scaled MADs from the median. */
export function keptBlocks(xs: readonly number[]): number[] {
  if (xs.length < MIN_BLOCKS_TO_SCREEN) return [...xs]
  const m = median([...xs])
  const madn = median(xs.map(x => Math.abs(x - m))) * MAD_TO_SD
  // More than half the blocks identical (a coarse timer): no scale to judge by, nothing is left out.
  if (!(madn > 0)) return [...xs]
  const kept = xs.filter(x => Math.abs(x - m) <= OUTLYING_MADS * madn)
  // A few straddling blocks are outliers; a quarter or more far off is a second population (bimodal
  // processes), which no screening makes normal: then every block counts.
  return kept.length >= MIN_KEPT && xs.length - kept.length <= MAX_LEFT_OUT * xs.length ? kept : [...xs]
}

export interface BlockMean {
  n: number
  /** Blocks left out as outlying. */
  leftOut: number
  /** The mean of the kept blocks. */
  estimate: number
  /** The plain mean of every block, for the guard against a real difference hiding in what was left out. */
  mean: number
  /** Standard error of the estimate; 0 when the kept values do not vary. */
  se: number
  df: number
}

/** The robust location of the blocks and its standard error (t-test on the kept blocks); null below 2. */
export function blockMean(xs: readonly number[]): BlockMean | null {
  const n = xs.length
  if (n < 2 || xs.some(x => !Number.isFinite(x))) return null
  const kept = keptBlocks(xs)
  const h = kept.length
  return {
    n,
    leftOut: n - h,
    estimate: mean(kept),
    mean: mean([...xs]),
    se: Math.sqrt(variance(kept) / h),
    df: h - 1
  }
}

export interface PairedTest extends BlockMean {
  /** False when fewer than 2 pairs or no spread: nothing can be tested (a timer too coarse, constant arms). */
  defined: boolean
  /** Two-sided interval of the estimate at 1 − alpha. */
  ci: { low: number; high: number }
  /** Two-sided p of "no difference". */
  p: number
  /** One-sided p of "the difference is ≤ low" (TOST's lower half). */
  pLower: number
  /** One-sided p of "the difference is ≥ high" (TOST's upper half). */
  pUpper: number
  /** TOST p; 1 when the plain mean lies outside (low, high), whatever the kept blocks say. */
  pEquivalent: number
  /** One-sided p of "the difference is ≤ high": small means it exceeds the upper bound (a regression). */
  pAbove: number
  /** One-sided p of "the difference is ≥ low": small means it is below the lower bound (an improvement). */
  pBelow: number
}

/**
 * The paired tests against the bounds (low, high) of the equivalence region. Equivalence also needs the plain
 * mean inside the region: leaving blocks out may drop a real difference that only some blocks show (a slow
 * path hit by 30% of processes), and a claim of "no overhead" must not rest on what was left out.
 */
export function pairedTest(d: readonly number[], low: number, high: number, alpha: number): PairedTest {
  const t = blockMean(d)
  const none = { low: NaN, high: NaN }
  if (t === null || !(t.se > 0) || !Number.isFinite(t.se))
    return {
      defined: false,
      n: d.length,
      leftOut: t?.leftOut ?? 0,
      estimate: t?.estimate ?? NaN,
      mean: t?.mean ?? NaN,
      se: t?.se ?? NaN,
      df: t?.df ?? 0,
      ci: t === null ? none : { low: t.estimate, high: t.estimate },
      p: 1,
      pLower: 1,
      pUpper: 1,
      pEquivalent: 1,
      pAbove: 1,
      pBelow: 1
    }
  const q = tInv(1 - alpha / 2, t.df)
  const pLower = low === -Infinity ? 0 : tCdf(-(t.estimate - low) / t.se, t.df)
  const pUpper = high === Infinity ? 0 : tCdf((t.estimate - high) / t.se, t.df)
  const inside = t.mean > low && t.mean < high
  return {
    defined: true,
    ...t,
    ci: { low: t.estimate - q * t.se, high: t.estimate + q * t.se },
    p: twoSidedT(t.estimate / t.se, t.df),
    pLower,
    pUpper,
    pEquivalent: inside ? Math.max(pLower, pUpper) : 1,
    pAbove: high === Infinity ? 1 : tCdf(-(t.estimate - high) / t.se, t.df),
    pBelow: low === -Infinity ? 1 : tCdf((t.estimate - low) / t.se, t.df)
  }
}

/**
 * Blocks at which a paired test at one-sided level `level` (evaluated per n) would clear `distance` given the
 * spread `sdW` of the kept blocks of the differences: what an undecided metric would need. null when none up to `max`.
 */
export function pairsToClear(
  distance: number,
  sdW: number,
  levelAt: (n: number) => number,
  from: number,
  max: number
): number | null {
  if (!(distance > 0)) return null
  for (let n = Math.max(2, from); n <= max; n = n < 64 ? n + 1 : Math.ceil(n * 1.1)) {
    const se = sdW / Math.sqrt(n)
    const level = levelAt(n)
    if (!(level > 0)) continue
    if (se === 0 || distance / se >= tInv(1 - level, n - 1)) return n
  }
  return null
}

/** The spread of the kept blocks (what pairsToClear and pairsToDetect project forward). */
export function winsorizedSd(xs: readonly number[]): number {
  if (xs.length < 2) return NaN
  return Math.sqrt(variance(keptBlocks(xs)))
}

/**
 * Smallest number of blocks at which the paired test (two-sided `alpha`, power 0.8) detects `target`
 * on the log-ratio scale, given the spread `sdW` of the kept blocks of the differences; null beyond `max`.
 */
export function pairsToDetect(sdW: number, target: number, alpha: number, max = 100_000): number | null {
  if (!(target > 0) || !Number.isFinite(sdW)) return null
  if (sdW === 0) return 2
  const mde = (n: number): number => (tInv(1 - alpha / 2, n - 1) + tInv(0.8, n - 1)) * (sdW / Math.sqrt(n))
  if (mde(max) > target) return null
  return smallestDetecting(mde, target, max)
}
