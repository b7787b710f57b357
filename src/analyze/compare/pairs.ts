/**
 * Blocks of the interleaved schedule: run r of every arm is block r (A B | B A …, adjacent in time; with
 * several lanes, the same GPU's r-th slot), so the same run label in both arms names one block. A host-wide
 * state shared by both processes of a block (a neighbour's load, a clock state) cancels in their ratio, so
 * the overhead is estimated within blocks: d_r = log of the worse-way ratio (candidate/baseline for
 * lower-is-better, baseline/candidate for higher-is-better), positive when the candidate is worse.
 * A run missing in either arm (a failed process) leaves its block out.
 */
import type { Direction } from '../../types/index.js'
import type { ArmSeries } from '../run-values/index.js'

/**
 * Fewest blocks the paired analysis runs on: with 2, its variance has one degree of freedom and two blocks
 * that happen to agree would "prove" anything; below this the arms are compared as two samples.
 */
export const MIN_BLOCKS = 3

export interface BlockRatios {
  /** Run labels of the complete blocks, in the baseline's run order. */
  runs: string[]
  /** Within-block log-ratios, positive = the candidate is worse. */
  d: number[]
}

/** Within-block log-ratios of two arms' per-run values; blocks with a non-positive value are left out. */
export function blockRatios(
  base: Pick<ArmSeries, 'runs' | 'values'>,
  cand: Pick<ArmSeries, 'runs' | 'values'>,
  direction: Direction
): BlockRatios {
  const byRun = new Map<string, number>()
  cand.runs.forEach((r, i) => byRun.set(r, cand.values[i]!))
  const out: BlockRatios = { runs: [], d: [] }
  base.runs.forEach((r, i) => {
    const b = base.values[i]!
    const c = byRun.get(r)
    if (c === undefined || !(b > 0) || !(c > 0)) return
    out.runs.push(r)
    out.d.push(direction === 'lower' ? Math.log(c / b) : Math.log(b / c))
  })
  return out
}

/** The equivalence region ±m of the overhead, on the log-ratio scale: (log(1 − m), log(1 + m)). */
export function logBounds(marginPct: number): { low: number; high: number } {
  const m = marginPct / 100
  return { low: m >= 1 ? -Infinity : Math.log(1 - m), high: Math.log(1 + m) }
}

/** A log-ratio as an overhead in percent. */
export const logToPct = (x: number): number => (Math.exp(x) - 1) * 100
