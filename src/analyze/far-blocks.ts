/**
 * Blocks far off the others. On 4 x H100 hosts shared with other jobs, the LLM's per-token level changed every
 * few processes (2.85 vs 3.17 ms); a block whose two processes fell in different levels gave a ratio of ±8–12%
 * where the other blocks sat within ±1.5% (docs/evidence/2026-11-27-h100x4-alone.md), and such blocks are what
 * left those checks undecided. A real overhead moves every block alike, and quiet blocks vary by well under 1%,
 * so a block farther than FAR_FROM_MEDIAN × max-overhead from the blocks' median is named. What put it there
 * the blocks alone cannot tell: a host state, or a slow path that only some of one arm's processes take.
 */
import { median } from 'simple-statistics'
import { signedPct } from '../util/text.js'

export const FAR_FROM_MEDIAN = 2.5
/** Fewer blocks have no median to be far from. */
const MIN_BLOCKS = 3

export interface FarBlocks {
  /** The far blocks' overheads, %, in run order. */
  far: number[]
  blocks: number
  medianPct: number
}

/** The blocks (per-block overheads, %) far off the others' median, or null when there are none. */
export function farBlocks(blockPcts: readonly number[], maxOverheadPct: number): FarBlocks | null {
  if (blockPcts.length < MIN_BLOCKS || !(maxOverheadPct > 0) || blockPcts.some(b => !Number.isFinite(b)))
    return null
  const med = median([...blockPcts])
  const far = blockPcts.filter(b => Math.abs(b - med) > FAR_FROM_MEDIAN * maxOverheadPct)
  return far.length > 0 ? { far, blocks: blockPcts.length, medianPct: med } : null
}

/** The report's note: which blocks, the two causes that fit, and what removes the first. */
export function describeFarBlocks(what: string, f: FarBlocks): string {
  return (
    `${what}: ${f.far.length} of ${f.blocks} blocks lie far off the others (${f.far.map(signedPct).join(', ')}; the ` +
    `blocks' median is ${signedPct(f.medianPct)}). Either the host changed state between a block's two processes (a ` +
    `neighbour's job, a clock or power state: on shared 4-GPU hosts the LLM's level changed every few ` +
    `processes), or some of one arm's processes take a slow path; the notes on levels and modes say which where ` +
    `they can. Such blocks widen the interval, and more runs rarely help. A host state hits processes that ` +
    `measure at the same time alike (9 times in 9 on a 4 x H100 host): on a multi-GPU runner give the check two ` +
    `GPUs (gpus: 0,1), and the arms measure side by side (duet; docs/evidence/2026-11-27-h100x4-alone.md).`
  )
}
