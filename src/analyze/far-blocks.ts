/**
 * Blocks far off the others. On 4 x H100 hosts shared with other jobs, the LLM's per-token level changed every
 * few processes (2.85 vs 3.17 ms); a block whose two processes fell in different levels gave a ratio of ±8–12%
 * where the other blocks sat within ±1.5% (docs/evidence/2026-11-27-h100x4-alone.md), and such blocks are what
 * left those checks undecided. What put a block there the blocks alone cannot tell: a host state, or a slow path
 * that only some of one arm's processes take.
 *
 * The rule, on the blocks as log-ratios: a block is far when its distance from the blocks' median exceeds
 * FAR_FROM_MEDIAN × max-overhead (as a ratio, ln(1 + 2.5 × 2%)), and the far blocks are at most half of them. As
 * ratios, a steady large effect is judged by its relative spread, never in percentage points: blocks at ×6.9–7.1
 * (+590% … +610%, each within 1.5% of the others) are one level, where the rule in points named 4 of 5. More than
 * half "far" is no pair of levels, only blocks that spread wider than the limit (the interval and the runs needed
 * say that). Simulated (10,000 sets of Gaussian log-ratios each): blocks of 1% spread, any effect: never named
 * (in points: 93–100% of sets at ×7); one block in three 10% off: named in 100%.
 */
import { median } from 'simple-statistics'
import { signedPct } from '../util/text.js'
import { stateAdvice } from './state-advice.js'

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
  if (
    blockPcts.length < MIN_BLOCKS ||
    !(maxOverheadPct > 0) ||
    blockPcts.some(b => !Number.isFinite(b) || b <= -100)
  )
    return null
  const logOf = (b: number): number => Math.log1p(b / 100)
  const mid = median(blockPcts.map(logOf))
  const limit = Math.log1p((FAR_FROM_MEDIAN * maxOverheadPct) / 100)
  const far = blockPcts.filter(b => Math.abs(logOf(b) - mid) > limit)
  if (far.length === 0 || 2 * far.length > blockPcts.length) return null
  return { far, blocks: blockPcts.length, medianPct: median([...blockPcts]) }
}

/** One metric's far blocks, as the note lists them. */
export function describeFarMetric(what: string, f: FarBlocks): string {
  return (
    `${what}: ${f.far.length} of ${f.blocks} blocks lie far off the others (${f.far.map(signedPct).join(', ')}; the ` +
    `blocks' median is ${signedPct(f.medianPct)})`
  )
}

/** The report's one note for every metric with far blocks: which blocks, the two causes that fit, what removes the first. */
export function describeFarBlocks(
  items: ReadonlyArray<{ what: string; far: FarBlocks; turns: boolean }>,
  gpu: boolean
): string {
  // Advice per layout the metrics were measured in: turns and no turns have different remedies.
  const advice = [true, false]
    .map(t => ({ t, names: items.filter(i => i.turns === t).map(i => i.what) }))
    .filter(g => g.names.length > 0)
    .map((g, _, all) =>
      all.length > 1 ? `${g.names.join(', ')}: ${stateAdvice(g.t, gpu)}` : stateAdvice(g.t, gpu)
    )
  const states = gpu
    ? "another process's kernels on the GPU, a neighbour's job, a clock or power state"
    : "a neighbour's job, a clock or power state"
  return (
    `${items.map(i => describeFarMetric(i.what, i.far)).join('; ')}. Either the host changed state between a ` +
    `block's two processes (${states}), ` +
    `or some of one arm's processes take a slow path; the notes on levels and modes say which where they can. ` +
    `Such blocks widen the interval, and more runs rarely help. ${advice.join(' ')}`
  )
}
