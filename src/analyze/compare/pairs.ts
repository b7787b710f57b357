/**
 * Blocks of the interleaved schedule: run r of every arm is block r (A B | B A …, adjacent in time; with
 * several lanes, the same GPU's r-th slot), so the same run label in both arms names one block. A host-wide
 * state shared by both processes of a block (a neighbour's load, a clock state) cancels in their ratio, so
 * the overhead is estimated within blocks: d_r = log of the worse-way ratio (candidate/baseline for
 * lower-is-better, baseline/candidate for higher-is-better), positive when the candidate is worse.
 * A run missing in either arm (a failed process) leaves its block out.
 *
 * Where both processes of a block took turns request by request (ArmSeries.turns), iteration k of both ran
 * about half a second apart, and d_r is the median over k of the pairs' log-ratios instead of the log-ratio
 * of the two per-process medians. A state that flips in the middle of the block straddles one pair, which
 * the median ignores; the per-process medians would each fall in a different mix of the two levels, off by
 * up to half the step between them.
 */
import { median } from 'simple-statistics'
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

type Arm = Pick<ArmSeries, 'runs' | 'values' | 'turns'>

/**
 * Within-block log-ratios of two arms' per-run values; blocks with a non-positive value are left out. A block
 * whose two runs took turns with the same number of iterations (≥ 2) gives the median of its pairs' log-ratios
 * (a pair with a non-positive value skipped; fewer than 2 left, the per-run values instead).
 */
export function blockRatios(base: Arm, cand: Arm, direction: Direction): BlockRatios {
  const logRatio = (b: number, c: number): number =>
    direction === 'lower' ? Math.log(c / b) : Math.log(b / c)
  const byRun = new Map<string, number>()
  cand.runs.forEach((r, j) => byRun.set(r, j))
  const out: BlockRatios = { runs: [], d: [] }
  base.runs.forEach((r, i) => {
    const j = byRun.get(r)
    if (j === undefined) return
    const b = base.values[i]!
    const c = cand.values[j]!
    const d =
      pairedTurns(base.turns?.[i], cand.turns?.[j], logRatio) ?? (b > 0 && c > 0 ? logRatio(b, c) : null)
    if (d === null) return
    out.runs.push(r)
    out.d.push(d)
  })
  return out
}

/** The median log-ratio of a block's iteration pairs; null unless both runs took turns alike. */
function pairedTurns(
  b: readonly number[] | null | undefined,
  c: readonly number[] | null | undefined,
  logRatio: (b: number, c: number) => number
): number | null {
  if (!b || !c || b.length !== c.length || b.length < 2) return null
  const d = b.flatMap((x, k) => (x > 0 && c[k]! > 0 ? [logRatio(x, c[k]!)] : []))
  return d.length >= 2 ? median(d) : null
}

/** The equivalence region ±m of the overhead, on the log-ratio scale: (log(1 − m), log(1 + m)). */
export function logBounds(marginPct: number): { low: number; high: number } {
  const m = marginPct / 100
  return { low: m >= 1 ? -Infinity : Math.log(1 - m), high: Math.log(1 + m) }
}

/** A log-ratio as an overhead in percent. */
export const logToPct = (x: number): number => (Math.exp(x) - 1) * 100
