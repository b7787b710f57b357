/**
 * Executes the plan: one fresh process per planned run, events turned into sample records and written
 * the moment they arrive, start-up split out, progress with ETA. A failing workload stops that workload
 * (the rest of the check continues); a cancel stops everything. Nothing measured is ever dropped.
 */
import type { RunRecord, SampleRecord, StackRecord, Workload } from '../types/index.js'
import {
  endsBlock,
  laneLabel,
  nextCandidates,
  planExecution,
  planSteps,
  runsPerBlock,
  type Lane,
  type Layout,
  type PlannedRun,
  type StepPlan
} from '../plan/index.js'
import type { ProcessResult } from './process.js'
import { PlanEta } from './progress.js'
import { launchOnLane, type Launched } from './launch.js'
import { takeTurns, type TurnStop } from './turns.js'
import { maxOf } from '../util/arrays.js'
import type { LaneOutcome } from './run-record.js'
import type { ExecuteContext } from './context.js'

export interface ExecuteResult {
  samples: SampleRecord[]
  runs: RunRecord[]
  /** The stack each measured process recorded (`stack` event), in run order. */
  stacks?: StackRecord[]
  complete: boolean
  incompleteReason: string | null
}

/** How a bare schedule is laid out when executePlan plans its steps itself (plan/steps.ts planExecution). */
export interface StepsOptions {
  /**
   * GPUs a planned run starts on at once, one process each (default: one unpinned process). With L lanes,
   * the r-th repetition on lane k is run (r − 1)·L + k + 1: every process stays its own run, in time order.
   */
  lanes?: readonly (Lane | null)[]
  /** How the arms use the lanes (plan/steps.ts); default lockstep. Duet needs two arms on an even lane count. */
  layout?: Layout
  /** Which workloads take turns (plan/turns.ts takesTurns). Absent: none. */
  turns?: (workload: Workload) => boolean
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000)
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`
}

export { startupRecords } from './run-record.js'

/** A schedule planned here into steps (`opts`), then executed: for a caller that has no steps of its own. */
export function executePlan(
  plan: readonly PlannedRun[],
  ctx: ExecuteContext & StepsOptions
): Promise<ExecuteResult> {
  return executeSteps(planExecution(plan, ctx.lanes, ctx.layout, ctx.turns), ctx)
}

/** Executes the finished steps of a plan (plan/steps.ts planExecution), step by step. */
export async function executeSteps(planned: StepPlan, ctx: ExecuteContext): Promise<ExecuteResult> {
  const { runs: plan, lanes, layout, steps } = planned
  const samples: SampleRecord[] = []
  const runs: RunRecord[] = []
  const stacks: StackRecord[] = []
  const failedWorkloads = new Map<Workload, string>()
  let cancelled = false
  let writeStop: string | null = null
  const stoppedWorkloads = new Set<Workload>()
  const t0 = Date.now()
  let done = 0
  const prefix = ctx.powerCapW === undefined ? '' : `${ctx.powerCapW} W `
  const eta = new PlanEta()
  let blockStart = t0
  // Prestart (one lane): the next slots' processes (PRESTART_DEPTH), started and held while this one measures.
  // Where a block ends that the sequential rule may stop on, the next workload's first process is held too
  // (imports only, CPU), so a stop does not leave the next workload to start cold; unused ones are dropped.
  const prestart = ctx.prestart === true && lanes.length === 1
  let pending: Launched[][] = []
  const abandoned: Promise<ProcessResult>[] = []
  const abandon = (ls: Launched[]): void => {
    for (const l of ls) {
      l.abandon()
      abandoned.push(l.handle.done)
    }
  }

  // A slot still to run: its workload neither failed nor was stopped by the sequential rule.
  const runnable = (p: PlannedRun): boolean =>
    !failedWorkloads.has(p.workload) && !stoppedWorkloads.has(p.workload)
  // The slots whose processes take turns: a held one must be started that way already.
  const inTurns = new Set(steps.filter(s => s.turns).flatMap(s => s.slots))
  const start = (sp: { planned: PlannedRun; lane: Lane | null; run: number }): Launched =>
    launchOnLane(sp.planned, sp.lane, sp.run, ctx, samples, stacks, prestart, inTurns.has(sp.planned))

  for (const step of steps) {
    if (ctx.signal?.aborted) {
      cancelled = true
      break
    }
    if (!step.slots.some(runnable)) continue
    // A step is one slot (lockstep) or one whole block (duet); either way one workload.
    const planned = step.slots[0]!
    const last = step.slots[step.slots.length - 1]!
    const index = last.order
    const { workload } = planned
    const slotStart = Date.now()
    const previous = plan[planned.order - 1]
    if (
      previous === undefined ||
      previous.workload !== workload ||
      previous.run !== planned.run ||
      previous.warmup
    )
      blockStart = slotStart
    // A slot held for prestart (one lane): its processes and run labels as its own lockstep step.
    const launch = (p: PlannedRun): Launched[] => planSteps([p], lanes, 'lockstep')[0]!.processes.map(start)
    // Each slot's processes: held since an earlier slot (prestart, one lane: one process a slot), else
    // started now; in the step's order, which names them in the progress line.
    const held = step.slots.map(slot => (prestart ? pending.find(ls => ls[0]!.planned === slot) : undefined))
    const launched = step.processes.map(sp => held[step.slots.indexOf(sp.planned)]?.[0] ?? start(sp))
    // Every process of the step at once: both arms meet the same neighbours on a shared host.
    await Promise.all(launched.map(l => l.release()))
    if (prestart) {
      // Keep what is still wanted (held slots ahead), drop the rest, start what is missing.
      const wanted = nextCandidates(plan, index, runnable, ctx.afterBlock !== undefined)
      const used = (ls: Launched[]): boolean => held.includes(ls)
      const kept = (p: PlannedRun): Launched[] | undefined =>
        pending.find(ls => !used(ls) && ls[0]!.planned === p)
      for (const ls of pending) if (!used(ls) && !wanted.includes(ls[0]!.planned)) abandon(ls)
      pending = wanted.map(p => kept(p) ?? launch(p))
    } else pending = []
    // Why the runner stopped this block's turns (a container it could not freeze): the block's failure reason.
    let turnsStopped: TurnStop | null = null
    // The process whose turns broke the block (an index into launched), or -1.
    let culprit = -1
    if (step.turns) {
      // Each GPU's processes take turns among themselves, every GPU at once; run-timeout bounds each lane's
      // turns too. The first lane that stopped names the block's culprit.
      const byLane = new Map<Lane | null, Launched[]>()
      step.processes.forEach((sp, k) => byLane.set(sp.lane, [...(byLane.get(sp.lane) ?? []), launched[k]!]))
      const stops = await Promise.all(
        [...byLane.values()].map(async group => {
          const gates = group.flatMap(l => (l.turns ? [l.turns] : []))
          for (const g of gates)
            g.partners = () =>
              group.flatMap(l => (l.turns === g ? [] : [l.ownPid()])).filter((p): p is number => p !== null)
          const stop = await takeTurns(gates, maxOf(group.map(l => l.timeoutMs)))
          const at = stop?.gate
          return {
            stop,
            culprit:
              at === null || at === undefined ? -1 : launched.indexOf(group.find(l => l.turns === gates[at])!)
          }
        })
      )
      const first = stops.find(s => s.stop !== null)
      turnsStopped = first?.stop ?? null
      if (first && first.culprit >= 0) culprit = first.culprit
    }
    // The process that broke the turns fails, whatever its exit code says (an image that exits 0 mid-turn).
    if (turnsStopped !== null && culprit < 0) culprit = 0
    const outcomes = await Promise.all(
      launched.map((l, k) => l.finish(k === culprit ? (turnsStopped?.reason ?? null) : null))
    )
    for (const o of outcomes) runs.push(o.run)

    done += step.slots.length
    for (const slot of step.slots) eta.record(slot, (Date.now() - slotStart) / step.slots.length)
    const left = plan.slice(index + 1).filter(runnable)
    const armsText = step.slots.map(p => p.arm.label).join(' + ')
    const what = `${workload} ${armsText} ${planned.warmup ? 'warm-up' : `run ${planned.run}`}${step.turns ? ' (in turns)' : ''}`
    // From its release: a prestarted process's wait for the GPU is not its run.
    const secs = (o: LaneOutcome): string => ((o.proc.endEpochMs - o.proc.releaseEpochMs) / 1000).toFixed(1)
    const who = (k: number): string => {
      const sp = step.processes[k]
      const where = laneLabel(sp?.lane ?? null)
      return step.slots.length > 1 ? `${where} ${sp?.planned.arm.label ?? ''}` : where
    }
    const how =
      outcomes.length === 1
        ? `${outcomes[0]!.run.status} in ${secs(outcomes[0]!)} s${outcomes[0]!.samples ? `, ${outcomes[0]!.samples} samples` : ''}`
        : outcomes.map((o, k) => `${who(k)} ${o.run.status} ${secs(o)} s`).join(', ')
    const bound = ctx.afterBlock ? '≤' : ''
    ctx.logger.info(
      `${prefix}[${done}/${done + left.length}] ${what}: ${how} — ETA ${bound}${formatDuration(eta.remainingMs(left))}`
    )
    if (outcomes.some(o => o.proc.cancelled)) {
      cancelled = true
      break
    }
    // A results folder that stopped taking writes (full disk) ends the check: measuring on without
    // keeping the samples would only burn time. What was written before stays.
    if (ctx.writer.writeError) {
      writeStop = `${ctx.writer.writeError} after ${done} of ${plan.length} processes; the samples before it are kept in ${ctx.writer.paths.results}`
      ctx.logger.warn(`stopping the check: ${writeStop}`)
      break
    }
    const bad = culprit >= 0 ? culprit : outcomes.findIndex(o => !o.ok)
    if (bad >= 0) {
      const where = outcomes.length === 1 ? '' : ` on ${who(bad)}`
      const error = outcomes[bad]!.run.error ?? 'unknown'
      failedWorkloads.set(workload, `${prefix}${what}${where} failed: ${error}`)
      ctx.logger.warn(`${workload}: ${what}${where} failed (${error}); skipping the rest of ${workload}`)
      continue
    }
    if (ctx.afterBlock && endsBlock(plan, index)) {
      const perBlock = runsPerBlock(layout, lanes.length, step.turns === true)
      const now = Date.now()
      const stop = ctx.afterBlock({
        workload,
        run: planned.run * perBlock,
        samples,
        elapsedMs: now - t0,
        blockMs: now - blockStart
      })
      if (stop !== null) {
        stoppedWorkloads.add(workload)
        ctx.logger.info(
          `${prefix}${workload}: stopping after ${planned.run * perBlock} run(s) per arm (${stop})`
        )
      }
    }
  }
  for (const ls of pending) abandon(ls)
  await Promise.all(abandoned)
  const reasons = [...failedWorkloads.values()]
  if (writeStop) reasons.unshift(writeStop)
  if (cancelled) reasons.unshift('the check was cancelled')
  return {
    samples,
    runs,
    stacks,
    complete: reasons.length === 0,
    incompleteReason: reasons.length ? reasons.join('; ') : null
  }
}
