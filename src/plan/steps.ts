/**
 * Steps: what starts at once. The schedule is a list of slots (workload, arm, run); a step is one or two of
 * them with the processes they start, one per lane.
 * - lockstep: a step is one slot on every lane (every GPU runs the same arm at once); the r-th repetition on
 *   lane k is run (r − 1)·L + k + 1, so one GPU's adjacent A and B processes share a run label (a block).
 * - duet (two arms, an even number of GPUs): a step is a whole block, both arms at once on the GPU pairs
 *   (0,1), (2,3)…; the arms swap GPUs every block (crossover). The two simultaneous processes of pair m in
 *   block r share the run label (r − 1)·P + m + 1 (P pairs), so a state the host goes through hits both
 *   processes of a block alike, and each GPU runs each arm equally often over two blocks.
 * - turns (a workload that takes turns, in any layout and on any number of GPUs): a step is a whole block;
 *   on every GPU both arms' processes start at once and the runner gives them that GPU iteration by iteration
 *   (execute/turns.ts), so iteration k of every arm runs within about a second of the others, on the same GPU.
 *   The r-th block on lane k is run (r − 1)·L + k + 1, as in lockstep: a block's two processes share one GPU,
 *   so its offset cancels inside the block, and the analysis reads all blocks as one stratum (compare/pairs.ts). Why every GPU count takes turns: the decode speed of a process depends on
 *   whether another context is active on its GPU (docs/evidence/2026-11-27-decode-state.md); taking turns
 *   puts every process of every layout in the same state, where a duet left a third of them in the other.
 * Bulej et al., "Duet Benchmarking" (ICPE 2020); Abedi & Brecht, randomized multiple interleaved trials (2017).
 */
import type { GpuLayout } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { Inputs } from '../types/inputs.js'
import { at, must } from '../util/must.js'
import type { Lane } from '../types/index.js'
import type { PlannedRun } from './schedule.js'

export interface StepProcess {
  planned: PlannedRun
  lane: Lane | null
  /** The process's run label (see above). */
  run: number
}

export interface Step {
  /** The schedule's slots this step covers, in schedule order. */
  slots: PlannedRun[]
  processes: StepProcess[]
  /** The block's processes share one GPU and take turns at it (see above). */
  turns?: true
}

export type Layout = 'duet' | 'lockstep'

/**
 * The layout a check uses. `auto` is duet where it applies (exactly two arms, an even number ≥ 2 of pinned
 * GPUs); an explicit `duet` that cannot apply is an input error that says why.
 */
export function resolveLayout(wanted: GpuLayout, arms: number, lanes: readonly (Lane | null)[]): Layout {
  const pinned = lanes.length >= 2 && lanes.every(l => l !== null)
  const fits = arms === 2 && pinned && lanes.length % 2 === 0
  if (wanted === 'lockstep') return 'lockstep'
  if (wanted === 'auto') return fits ? 'duet' : 'lockstep'
  if (fits) return 'duet'
  const why =
    arms !== 2
      ? `exactly two arms (this check has ${arms})`
      : !pinned
        ? 'two or more GPUs it can pin (gpus lists one, or MIG keeps one unpinned process)'
        : `an even number of GPUs (this check has ${lanes.length}; drop one from gpus)`
  throw new InputError(Inputs.GpuLayout, 'duet', `auto or lockstep: duet needs ${why}`)
}

/** Runs per arm that one step of a block adds: lanes (lockstep, turns) or GPU pairs (duet). */
export function runsPerBlock(layout: Layout, lanes: number, turns = false): number {
  return layout === 'duet' && !turns ? lanes / 2 : lanes
}

const sameBlock = (a: PlannedRun, b: PlannedRun): boolean =>
  a.workload === b.workload && a.run === b.run && a.warmup === b.warmup

/** Consecutive slots of one block: [start, end) from `i`. */
function blockEnd(plan: readonly PlannedRun[], i: number): number {
  let j = i + 1
  while (j < plan.length && sameBlock(at(plan, i), at(plan, j))) j++
  return j
}

/** `turns`: which slots' workloads take turns (a block of theirs is one step in every layout, see above). */
export function planSteps(
  plan: readonly PlannedRun[],
  lanes: readonly (Lane | null)[],
  layout: Layout,
  turns: (p: PlannedRun) => boolean = () => false
): Step[] {
  const L = lanes.length
  // A whole block on every lane at once, each lane's processes taking turns at its GPU.
  const turnBlock = (slots: PlannedRun[]): Step => ({
    slots,
    processes: lanes.flatMap((lane, k) =>
      slots.map(q => ({ planned: q, lane, run: (q.run - 1) * L + k + 1 }))
    ),
    ...(slots.length > 1 ? { turns: true as const } : {})
  })
  if (layout === 'lockstep') {
    const steps: Step[] = []
    for (let i = 0; i < plan.length;) {
      const p = at(plan, i)
      if (turns(p)) {
        const j = blockEnd(plan, i)
        steps.push(turnBlock(plan.slice(i, j)))
        i = j
        continue
      }
      steps.push({
        slots: [p],
        processes: lanes.map((lane, k) => ({ planned: p, lane, run: (p.run - 1) * L + k + 1 }))
      })
      i++
    }
    return steps
  }
  const P = L / 2
  // Which GPU of a pair an arm takes depends on the arm and the block's parity, never on the slot order
  // (abba already reverses that every block).
  const armIndex = new Map<string, number>()
  for (const p of plan) if (!armIndex.has(p.arm.label)) armIndex.set(p.arm.label, armIndex.size)
  const steps: Step[] = []
  for (let i = 0; i < plan.length;) {
    const first = at(plan, i)
    const j = blockEnd(plan, i)
    const slots = plan.slice(i, j)
    if (turns(first)) {
      steps.push(turnBlock(slots))
      i = j
      continue
    }
    const swap = (first.run - 1) % 2
    const processes: StepProcess[] = []
    for (let m = 0; m < P; m++)
      for (const p of slots) {
        const side = (must(armIndex.get(p.arm.label), 'armIndex holds every arm of the plan') + swap) % 2
        processes.push({ planned: p, lane: at(lanes, 2 * m + side), run: (p.run - 1) * P + m + 1 })
      }
    steps.push({ slots, processes })
    i = j
  }
  return steps
}

/** The finished steps a check executes: its schedule, the lanes and layout, and what starts at once. */
export interface StepPlan {
  /** The schedule, slot by slot (PlannedRun.order indexes it). */
  runs: readonly PlannedRun[]
  lanes: readonly (Lane | null)[]
  layout: Layout
  steps: Step[]
}

/**
 * Plans the steps of a schedule (no lanes: one unpinned process; default layout lockstep); `turns`: which
 * workloads take turns (plan/turns.ts), whose blocks become one step each.
 */
export function planExecution(
  runs: readonly PlannedRun[],
  lanes: readonly (Lane | null)[] = [],
  layout: Layout = 'lockstep',
  turns: (workload: PlannedRun['workload']) => boolean = () => false
): StepPlan {
  const used = lanes.length ? lanes : [null]
  return { runs, lanes: used, layout, steps: planSteps(runs, used, layout, p => turns(p.workload)) }
}
