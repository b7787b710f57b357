/**
 * Blocks of the interleaved schedule: run r of every arm is block r (A B | B A …, adjacent in time; with
 * several lanes, the same GPU's r-th slot; in a duet, the two processes measuring at once on a GPU pair), so
 * the same run label in both arms names one block. A host-wide state shared by both processes of a block (a
 * neighbour's load, a clock state) multiplies both, so the overhead is estimated within blocks: the ratio of
 * the arms' request means over the blocks (stats/ratio-of-means.ts), from each block's worse-way numerator w_r
 * and denominator b_r — the per-process request means (candidate over baseline for lower-is-better, baseline
 * over candidate for higher-is-better). A run missing in either arm (a failed process) leaves its block out.
 *
 * Where both processes of a block took turns request by request (ArmSeries.turns), iteration k of both ran
 * about half a second apart, so the two means cover the same stretch of time: a state that flips in the middle
 * of the block moves both means alike (by one request's share at most), which the per-process medians did not
 * (each fell in a different mix of the two levels). Means, not medians: a slowdown that only some requests pay
 * is part of the overhead (issue 39, S5).
 *
 * In a duet the two processes of a block run on two GPUs: the block's stratum names them, and the GPUs'
 * offsets are paid for with a degree of freedom each (issue 38).
 */
import type { Direction } from '../../types/index.js'
import type { ArmSeries } from '../../results/index.js'

/**
 * Fewest blocks the paired analysis runs on: with 2, its variance has one degree of freedom and two blocks
 * that happen to agree would "prove" anything; below this the arms are compared as two samples.
 */
export const MIN_BLOCKS = 3

export interface BlockRatios {
  /** Run labels of the complete blocks, in the baseline's run order. */
  runs: string[]
  /** Within-block log-ratios log(w_r / b_r), positive = the candidate is worse (shown per block, screened). */
  d: number[]
  /** Worse-way numerator per block (the candidate's mean for lower-is-better). */
  w: number[]
  /** Worse-way denominator per block. */
  b: number[]
  /** The block's stratum: '' when both processes ran on one GPU (or none is known), else `native>candidate` GPUs. */
  strata: string[]
}

type Arm = Pick<ArmSeries, 'runs' | 'values' | 'gpus'>

/** The stratum of a block whose processes ran on GPUs `gb` and `gc`. */
function stratumOf(gb: number | null | undefined, gc: number | null | undefined): string {
  if (gb === undefined || gc === undefined || gb === null || gc === null || gb === gc) return ''
  return `${gb}>${gc}`
}

/** Within-block values of two arms' per-run means; blocks with a non-positive value are left out. */
export function blockRatios(base: Arm, cand: Arm, direction: Direction): BlockRatios {
  const byRun = new Map<string, number>()
  cand.runs.forEach((r, j) => byRun.set(r, j))
  const out: BlockRatios = { runs: [], d: [], w: [], b: [], strata: [] }
  base.runs.forEach((r, i) => {
    const j = byRun.get(r)
    if (j === undefined) return
    const vb = base.values[i]
    const vc = cand.values[j]
    if (vb === undefined || vc === undefined) return
    if (!(vb > 0 && vc > 0) || !Number.isFinite(vb) || !Number.isFinite(vc)) return
    const [w, b] = direction === 'lower' ? [vc, vb] : [vb, vc]
    out.runs.push(r)
    out.w.push(w)
    out.b.push(b)
    out.d.push(Math.log(w / b))
    out.strata.push(stratumOf(base.gpus?.[i], cand.gpus?.[j]))
  })
  // A stratum of one block has no spread of its own: its GPUs' offset and its noise cannot be told apart, and,
  // the strata weighted alike, that one block weighs as much as a whole stratum while the pooled spread never
  // sees its noise (replayed on recorded 2- and 4-GPU duets, scripts/replay-layouts.ts: coverage 88.8–91.3% at 3
  // and 6 blocks). Until every stratum holds two blocks, the blocks are one stratum.
  const sizes = new Map<string, number>()
  for (const s of out.strata) sizes.set(s, (sizes.get(s) ?? 0) + 1)
  if ([...sizes.values()].some(n => n < 2)) out.strata = out.strata.map(() => '')
  return out
}

/** The equivalence region ±m of the overhead, on the log-ratio scale: (log(1 − m), log(1 + m)). */
export function logBounds(marginPct: number): { low: number; high: number } {
  const m = marginPct / 100
  return { low: m >= 1 ? -Infinity : Math.log(1 - m), high: Math.log(1 + m) }
}

/** The equivalence region ±m of the overhead on the ratio scale: (1 − m, 1 + m). */
export function ratioBounds(marginPct: number): { low: number; high: number } {
  const m = marginPct / 100
  return { low: Math.max(0, 1 - m), high: 1 + m }
}

/** A log-ratio as an overhead in percent. */
export const logToPct = (x: number): number => (Math.exp(x) - 1) * 100

/** A ratio as an overhead in percent. */
export const ratioToPct = (r: number): number => (r - 1) * 100

/**
 * A ratio interval (worse-way, within [0, +∞]) as an overhead interval in percent, every finite end above
 * −100%: a low end of 0 (or one so small that −100% is all a double can say of it) is not a bound the data give,
 * so it reads −∞ ("not bounded below"), and a high end of +∞ stays +∞ ("not bounded above").
 */
export function ratioIntervalToPct(r: { low: number; high: number }): { low: number; high: number } {
  const low = ratioToPct(r.low)
  const high = ratioToPct(r.high)
  return {
    low: r.low > 1e-6 ? low : -Infinity,
    high: Number.isFinite(high) ? high : Infinity
  }
}
