/**
 * Two views of the same blocks (issue 39, S2): the estimate every verdict rests on — the ratio of the arms'
 * request means over every block, as the README defines the overhead — and a screened view that leaves out
 * blocks far off the others (stats/paired.ts, the MAD–median rule: more than 5 scaled MADs from the blocks'
 * median). Both claims, regression and equivalence, rest on the first alone, so neither can come from what
 * screening dropped; where the screened view lies outside the interval of the first, they disagree and the
 * report says why (analyze.ts: a few blocks carry a difference the rest do not show — a host state that changed
 * between a block's two processes, or a slow path some processes of one arm take).
 */
import { mean } from 'simple-statistics'
import { keptBlocks } from '../stats/index.js'
import { must } from '../../util/must.js'
import { signedPct } from '../../util/text.js'
import { logToPct } from './pairs.js'

export interface ScreenedView {
  /** Blocks the screen leaves out. */
  leftOut: number
  /** The screened estimate, % (the mean of the kept blocks' log-ratios, as an overhead). */
  pct: number
  /** Blocks were left out and the screened estimate lies outside the interval of the estimate. */
  disagrees: boolean
}

export function screenedView(d: readonly number[], ci: { low: number; high: number }): ScreenedView {
  const kept = keptBlocks(d)
  const pct = logToPct(mean(kept))
  const leftOut = d.length - kept.length
  return { leftOut, pct, disagrees: leftOut > 0 && !(pct >= ci.low && pct <= ci.high) }
}

/** The report's note where the views disagree. */
export function describeDisagreement(
  what: string,
  c: { overhead_pct: number; paired?: { blocks: number; left_out: number; screened_pct: number } },
  gpu: boolean
): string {
  const p = must(c.paired, 'views disagree only for a paired comparison')
  return (
    `${what}: the overhead over every block is ${signedPct(c.overhead_pct)}, but leaving out the ${p.left_out} of ` +
    `${p.blocks} blocks that lie far off the others gives ${signedPct(p.screened_pct)}, outside its interval. The ` +
    `verdict rests on every block (the overhead is the ratio of the arms' request means), so it is neither a ` +
    `regression nor an equivalence that the screened blocks alone would show. Either a host state changed ` +
    `between those blocks' two processes (${gpu ? 'more runs, or a duet on two GPUs, dilute it' : 'more runs dilute it'}) or some processes of one ` +
    `arm take a slow path, which is part of what that arm costs.`
  )
}
