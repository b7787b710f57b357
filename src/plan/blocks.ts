/** Blocks of the schedule: which slots end a run block, and which slots prestart should hold next. */
import type { PlannedRun } from './schedule.js'
import { at } from '../util/must.js'

/** The block ends at `i` when the next slot belongs to another workload, block or kind. */
export function endsBlock(plan: readonly PlannedRun[], i: number): boolean {
  const p = at(plan, i)
  const next = plan[i + 1]
  return (
    p.warmup === false &&
    (next === undefined || next.workload !== p.workload || next.run !== p.run || next.warmup)
  )
}

/**
 * Slots held ahead by prestart. A process's imports took 3.3–4.8 s on the H100 hosts and a matmul slot ~3 s,
 * so with one slot ahead the next matmul process was often not ready when the GPU came free (1–2 s lost in
 * 4 of 8 slots, docs/evidence/2026-11-27-h100x4-alone.md); two slots ahead give it two slots' time. The CPU
 * work is the same, only earlier: in steady state one process still imports while another measures.
 */
export const PRESTART_DEPTH = 2

/**
 * What to hold for prestart after slot `i`: the next `depth` runnable slots, and — where slot `i` or a held
 * slot before the last ends a block the sequential rule may stop its workload on — the next runnable slot of
 * another workload as well (the stop would leave it to start cold), with every slot that starts together with it
 * (`startsWith`: its step's slots, which for a turns block is the whole block: it starts when its last process
 * is ready, so one held process beside a cold one saved nothing; the llm's first block took 9.4 s against
 * ~5.7 s for the others on an H100, docs/evidence/2026-12-06-h100-short.md).
 */
export function nextCandidates(
  plan: readonly PlannedRun[],
  i: number,
  runnable: (p: PlannedRun) => boolean,
  mayStop: boolean,
  depth: number = PRESTART_DEPTH,
  startsWith: (p: PlannedRun) => readonly PlannedRun[] = p => [p]
): PlannedRun[] {
  const rest = plan.slice(i + 1).filter(runnable)
  const ahead = rest.slice(0, Math.max(1, depth))
  if (!mayStop) return ahead
  const held = [...ahead]
  for (const slot of [at(plan, i), ...ahead.slice(0, -1)]) {
    if (!endsBlock(plan, slot.order)) continue
    const other = rest.find(p => p.order > slot.order && p.workload !== slot.workload)
    if (other === undefined) continue
    for (const p of startsWith(other).filter(runnable)) if (!held.includes(p)) held.push(p)
  }
  return held
}
