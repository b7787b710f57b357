/**
 * Executes the plan: one fresh process per planned run, events turned into sample records and written
 * the moment they arrive, start-up split out, progress with ETA. A failing workload stops that workload
 * (the rest of the check continues); a cancel stops everything. Nothing measured is ever dropped.
 */
import type { RunRecord, SampleRecord, StackRecord, Workload } from '../types/index.js'
import {
  endsBlock,
  nextCandidates,
  PRESTART_DEPTH,
  planExecution,
  planSteps,
  runsPerBlock,
  type Layout,
  type PlannedRun,
  type Step,
  type StepPlan
} from '../plan/index.js'
import type { Lane } from '../types/index.js'
import type { ProcessResult } from './process-types.js'
import { PlanEta } from './progress.js'
import { launchOnLane, type Launched } from './launch.js'
import { HeldFreeze } from './held-freeze.js'
import { thawNextWhenMeasured } from './prestart-thaw.js'
import { processLabel, stepLabel } from './step-labels.js'
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
  /** What weakened the runs without failing them (a held container that ran other processes, held-freeze.ts). */
  warnings?: string[]
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
  /** Which workloads take turns (config takesTurns). Absent: none. */
  turns?: (workload: Workload) => boolean
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000)
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`
}

/** A schedule planned here into steps (`opts`), then executed: for a caller that has no steps of its own. */
export function executePlan(
  plan: readonly PlannedRun[],
  ctx: ExecuteContext & StepsOptions
): Promise<ExecuteResult> {
  return executeSteps(planExecution(plan, ctx.lanes, ctx.layout, ctx.turns), ctx)
}

/** Executes the finished steps of a plan (plan/steps.ts planExecution), step by step. */
export async function executeSteps(planned: StepPlan, ctx: ExecuteContext): Promise<ExecuteResult> {
  return new StepRunner(planned, ctx).run()
}

/** How a block's turns ended: why the runner stopped them, and the process that broke them (or -1). */
interface TurnsEnd {
  stop: TurnStop | null
  culprit: number
}

/** One execution of a plan's steps: what it measured, the workloads that failed or stopped, the held processes. */
class StepRunner {
  private readonly samples: SampleRecord[] = []
  private readonly runs: RunRecord[] = []
  private readonly stacks: StackRecord[] = []
  private readonly failedWorkloads = new Map<Workload, string>()
  private readonly stoppedWorkloads = new Set<Workload>()
  private cancelled = false
  private writeStop: string | null = null
  private readonly t0 = Date.now()
  private done = 0
  private readonly eta = new PlanEta()
  private blockStart = this.t0
  private readonly prefix: string
  // Prestart (one lane): the next slots' processes (PRESTART_DEPTH), started and held while this one measures.
  // Where a block ends that the sequential rule may stop on, the next workload's first process is held too
  // (imports only, CPU), so a stop does not leave the next workload to start cold; unused ones are dropped.
  private readonly prestart: boolean
  private pending: Launched[][] = []
  private readonly heldFreeze = new HeldFreeze()
  private readonly abandoned: Promise<ProcessResult>[] = []
  // The slots whose processes take turns: a held one must be started that way already.
  private readonly inTurns: Set<PlannedRun>

  constructor(
    private readonly planned: StepPlan,
    private readonly ctx: ExecuteContext
  ) {
    this.prefix = ctx.powerCapW === undefined ? '' : `${ctx.powerCapW} W `
    this.prestart = ctx.prestart === true && planned.lanes.length === 1
    this.inTurns = new Set(planned.steps.filter(s => s.turns).flatMap(s => s.slots))
  }

  async run(): Promise<ExecuteResult> {
    for (const step of this.planned.steps) {
      if (this.ctx.signal?.aborted) {
        this.cancelled = true
        break
      }
      if (!step.slots.some(this.runnable)) continue
      if ((await this.runStep(step)) === 'stop') break
    }
    for (const ls of this.pending) this.abandon(ls)
    await Promise.all(this.abandoned)
    const reasons = [...this.failedWorkloads.values()]
    if (this.writeStop) reasons.unshift(this.writeStop)
    if (this.cancelled) reasons.unshift('the check was cancelled')
    return {
      samples: this.samples,
      runs: this.runs,
      stacks: this.stacks,
      complete: reasons.length === 0,
      incompleteReason: reasons.length ? reasons.join('; ') : null,
      warnings: this.heldFreeze.warnings()
    }
  }

  // A slot still to run: its workload neither failed nor was stopped by the sequential rule.
  private readonly runnable = (p: PlannedRun): boolean =>
    !this.failedWorkloads.has(p.workload) && !this.stoppedWorkloads.has(p.workload)

  /** `during`: the step measuring while this process starts (held ahead of it), null: none. */
  private start(
    sp: { planned: PlannedRun; lane: Lane | null; run: number },
    during: string | null = null
  ): Launched {
    const { ctx } = this
    return launchOnLane(
      sp.planned,
      sp.lane,
      sp.run,
      ctx,
      this.samples,
      this.stacks,
      this.prestart,
      this.inTurns.has(sp.planned),
      { freeze: this.heldFreeze, during }
    )
  }

  private abandon(ls: Launched[]): void {
    for (const l of ls) {
      l.abandon()
      this.abandoned.push(l.handle.done)
    }
  }

  /** Runs one step (its processes at once) and records it: 'stop' ends the check. */
  private async runStep(step: Step): Promise<'stop' | 'go'> {
    // A step is one slot (lockstep) or one whole block (duet); either way one workload.
    const planned = step.slots[0]
    const last = step.slots[step.slots.length - 1]
    if (planned === undefined || last === undefined) return 'go' // never: a runnable step has a slot
    const slotStart = Date.now()
    const previous = this.planned.runs[planned.order - 1]
    if (
      previous === undefined ||
      previous.workload !== planned.workload ||
      previous.run !== planned.run ||
      previous.warmup
    )
      this.blockStart = slotStart
    // Each slot's processes: held since an earlier slot (prestart, one lane: one process a slot), else
    // started now; in the step's order, which names them in the progress line.
    const held = step.slots.map(slot =>
      this.prestart ? this.pending.find(ls => ls[0]?.planned === slot) : undefined
    )
    const launched = step.processes.map(sp => held[step.slots.indexOf(sp.planned)]?.[0] ?? this.start(sp))
    // Every process of the step at once: both arms meet the same neighbours on a shared host.
    await Promise.all(launched.map(l => l.release()))
    this.holdAhead(held, last.order, stepLabel(step))
    if (this.prestart) thawNextWhenMeasured(this.planned.steps, step, launched, this.pending, this.runnable)
    const turns = step.turns ? await takeStepTurns(step, launched) : { stop: null, culprit: -1 }
    // The process that broke the turns fails, whatever its exit code says (an image that exits 0 mid-turn).
    const culprit = turns.stop !== null && turns.culprit < 0 ? 0 : turns.culprit
    const outcomes = await Promise.all(
      launched.map((l, k) => l.finish(k === culprit ? (turns.stop?.reason ?? null) : null))
    )
    for (const o of outcomes) this.runs.push(o.run)
    return this.afterStep(step, outcomes, culprit, slotStart)
  }

  /** Prestart: keeps the held slots still wanted after `index`, drops the rest, starts what is missing. */
  private holdAhead(held: (Launched[] | undefined)[], index: number, during: string): void {
    if (!this.prestart) {
      this.pending = []
      return
    }
    const { runs: plan, lanes } = this.planned
    const wanted = nextCandidates(
      plan,
      index,
      this.runnable,
      this.ctx.afterBlock !== undefined,
      PRESTART_DEPTH,
      p => this.planned.steps.find(s => s.slots.includes(p))?.slots ?? [p]
    )
    const used = (ls: Launched[]): boolean => held.includes(ls)
    const kept = (p: PlannedRun): Launched[] | undefined =>
      this.pending.find(ls => !used(ls) && ls[0]?.planned === p)
    // A slot held for prestart (one lane): its processes and run labels as its own lockstep step.
    const launch = (p: PlannedRun): Launched[] =>
      planSteps([p], lanes, 'lockstep')[0]?.processes.map(sp => this.start(sp, during)) ?? []
    for (const ls of this.pending) {
      const first = ls[0]
      if (!used(ls) && !(first && wanted.includes(first.planned))) this.abandon(ls)
    }
    this.pending = wanted.map(p => kept(p) ?? launch(p))
  }

  /** Logs the step's progress, then ends the check, the workload or its block where it must. */
  private afterStep(step: Step, outcomes: LaneOutcome[], culprit: number, slotStart: number): 'stop' | 'go' {
    const { ctx } = this
    const what = this.logProgress(step, outcomes, slotStart)
    if (outcomes.some(o => o.proc.cancelled)) {
      this.cancelled = true
      return 'stop'
    }
    // A results folder that stopped taking writes (full disk) ends the check: measuring on without
    // keeping the samples would only burn time. What was written before stays.
    if (ctx.writer.writeError) {
      this.writeStop = `${ctx.writer.writeError} after ${this.done} of ${this.planned.runs.length} processes; the samples before it are kept in ${ctx.writer.paths.results}`
      ctx.logger.warn(`stopping the check: ${this.writeStop}`)
      return 'stop'
    }
    const bad = culprit >= 0 ? culprit : outcomes.findIndex(o => !o.ok)
    const workload = step.slots[0]?.workload
    if (workload === undefined) return 'go'
    if (bad >= 0) {
      const where = outcomes.length === 1 ? '' : ` on ${processLabel(step, bad, ctx.device)}`
      const error = outcomes[bad]?.run.error ?? 'unknown'
      this.failedWorkloads.set(workload, `${this.prefix}${what}${where} failed: ${error}`)
      ctx.logger.warn(`${workload}: ${what}${where} failed (${error}); skipping the rest of ${workload}`)
      return 'go'
    }
    this.endBlock(step)
    return 'go'
  }

  /** One progress line for the step (with the ETA of what is left); returns what the step ran. */
  private logProgress(step: Step, outcomes: LaneOutcome[], slotStart: number): string {
    const index = step.slots[step.slots.length - 1]?.order ?? 0
    this.done += step.slots.length
    for (const slot of step.slots) this.eta.record(slot, (Date.now() - slotStart) / step.slots.length)
    const left = this.planned.runs.slice(index + 1).filter(this.runnable)
    const what = stepLabel(step)
    // From its release: a prestarted process's wait for the GPU is not its run.
    const secs = (o: LaneOutcome): string => ((o.proc.endEpochMs - o.proc.releaseEpochMs) / 1000).toFixed(1)
    const only = outcomes.length === 1 ? outcomes[0] : undefined
    const how = only
      ? `${only.run.status} in ${secs(only)} s${only.samples ? `, ${only.samples} samples` : ''}`
      : outcomes
          .map((o, k) => `${processLabel(step, k, this.ctx.device)} ${o.run.status} ${secs(o)} s`)
          .join(', ')
    const bound = this.ctx.afterBlock ? '≤' : ''
    this.ctx.logger.info(
      `${this.prefix}[${this.done}/${this.done + left.length}] ${what}: ${how} — ETA ${bound}${formatDuration(this.eta.remainingMs(left))}`
    )
    return what
  }

  /** Where the step ends a block, asks the sequential rule (afterBlock) whether its workload may stop. */
  private endBlock(step: Step): void {
    const { ctx } = this
    const planned = step.slots[0]
    const index = step.slots[step.slots.length - 1]?.order
    if (!ctx.afterBlock || planned === undefined || index === undefined) return
    if (!endsBlock(this.planned.runs, index)) return
    const { workload } = planned
    const perBlock = runsPerBlock(this.planned.layout, this.planned.lanes.length, step.turns === true)
    const now = Date.now()
    const stop = ctx.afterBlock({
      workload,
      run: planned.run * perBlock,
      samples: this.samples,
      elapsedMs: now - this.t0,
      blockMs: now - this.blockStart
    })
    if (stop !== null) {
      this.stoppedWorkloads.add(workload)
      ctx.logger.info(
        `${this.prefix}${workload}: stopping after ${planned.run * perBlock} run(s) per arm (${stop})` +
          // runs (--runs) is where gated metrics first look: say why a workload without any ran fewer (issue 55).
          (stop === 'nothing-gated' ? ': no metric of it gates, so runs does not apply to it' : '')
      )
    }
  }
}

/**
 * A step in turns: each GPU's processes take turns among themselves, every GPU at once; run-timeout bounds
 * each lane's turns too. The first lane that stopped names the block's culprit (an index into `launched`).
 */
async function takeStepTurns(step: Step, launched: Launched[]): Promise<TurnsEnd> {
  const byLane = new Map<Lane | null, Launched[]>()
  step.processes.forEach((sp, k) => {
    const l = launched[k]
    byLane.set(sp.lane, [...(byLane.get(sp.lane) ?? []), ...(l ? [l] : [])])
  })
  const stops = await Promise.all(
    [...byLane.values()].map(async group => {
      const gates = group.flatMap(l => (l.turns ? [l.turns] : []))
      for (const g of gates)
        g.partners = () =>
          group.flatMap(l => (l.turns === g ? [] : [l.ownPid()])).filter((p): p is number => p !== null)
      const stop = await takeTurns(gates, maxOf(group.map(l => l.timeoutMs)))
      const at = stop?.gate
      const culprit = at === null || at === undefined ? undefined : group.find(l => l.turns === gates[at])
      return { stop, culprit: culprit === undefined ? -1 : launched.indexOf(culprit) }
    })
  )
  const first = stops.find(s => s.stop !== null)
  return { stop: first?.stop ?? null, culprit: first && first.culprit >= 0 ? first.culprit : -1 }
}
