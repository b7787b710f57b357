/** Blocks of the schedule: which slots end a run block, and which slots prestart should hold next. */
import type { PlannedRun } from './schedule.js'

/** The block ends at `i` when the next slot belongs to another workload, block or kind. */
export function endsBlock(plan: readonly PlannedRun[], i: number): boolean {
  const p = plan[i]!
  const next = plan[i + 1]
  return (
    p.warmup === false &&
    (next === undefined || next.workload !== p.workload || next.run !== p.run || next.warmup)
  )
}

/**
 * What to hold for prestart after slot `i`: the next runnable slot, and — where slot `i` ends a block the
 * sequential rule may stop its workload on — the next runnable slot of another workload as well.
 */
export function nextCandidates(
  plan: readonly PlannedRun[],
  i: number,
  runnable: (p: PlannedRun) => boolean,
  mayStop: boolean
): PlannedRun[] {
  const rest = plan.slice(i + 1).filter(runnable)
  const next = rest[0]
  if (next === undefined) return []
  const current = plan[i]!
  if (!mayStop || !endsBlock(plan, i) || next.workload !== current.workload) return [next]
  const other = rest.find(p => p.workload !== current.workload)
  return other === undefined ? [next] : [next, other]
}
