/** One process of a planned run on one lane: started (held for prestart), its events turned into records. */
import type { CotenantList, SampleRecord, StackEvent, StackRecord, WorkloadEvent } from '../types/index.js'
import { runLabel, type PlannedRun } from '../plan/index.js'
import type { Lane } from '../types/index.js'
import { peersList, unavailable } from './cotenants.js'
import { memoryRecords } from './memory.js'
import { sampleMetricName, sampleScope } from './metrics.js'
import { startProcess } from './process.js'
import type { ProcessHandle } from './process-types.js'
import { recordRun, type LaneOutcome } from './run-record.js'
import type { ExecuteContext, RunSpec } from './context.js'
import { sampleOf, type RunBase } from './command-results.js'
import { stackDigest } from './stack/digest.js'
import { TurnGate } from './turns.js'
import { appendAll } from '../util/arrays.js'
import type { HeldFreeze } from './held-freeze.js'

// Events of one read share its time: the last one's text is kept (150k samples came in a few hundred reads).
let lastTime = { ms: Number.NaN, text: '' }
const time = (epochMs: number): string =>
  epochMs === lastTime.ms
    ? lastTime.text
    : (lastTime = { ms: epochMs, text: new Date(epochMs).toISOString() }).text

/** The window of the `peers` event a held container sends at its hold (workloads/_peers.py HELD_WINDOW). */
const HELD_WINDOW = 'prestart'
/** Lists kept per process: one per measured region (a workload marks a few) plus the GPU's. */
const MAX_COTENANT_LISTS = 64

export interface Launched {
  planned: PlannedRun
  handle: ProcessHandle
  /** Its side of the block's turns (execute/turns.ts); null when it measures on its own. */
  turns: TurnGate | null
  /** Its run-timeout (ProcessSpec.timeoutMs): a block's turns end by the longest of its processes'. */
  timeoutMs: number
  /** The PID the workload reported for itself (`env` event), once it has. */
  ownPid(): number | null
  /** Releases a held process (its container thawed first); a process that was not held is released at once. */
  release(): Promise<void>
  /**
   * Thaws a held container ahead of its release (it still waits for "go"): the runner does it once the
   * processes before it have measured, so the engine's unpause is not paid while the GPU is free.
   */
  thaw(): Promise<void>
  /** Settles once the process has measured (its `summary` event) or ended. */
  readonly measured: Promise<void>
  /** Drops a held process that is no longer needed (thawed first, so it can read the end of its input). */
  abandon(): void
  /** Waits for it and records the run; `turnFailure`: it broke its block's turns (recorded as failed). */
  finish(turnFailure?: string | null): Promise<LaneOutcome>
}

/**
 * Starts one process of a planned run on one lane (held when `hold`, taking turns with its block's other
 * processes when `turns`); its samples are written the moment they arrive. `finish` waits for it and records
 * the run.
 */
export function launchOnLane(
  planned: PlannedRun,
  lane: Lane | null,
  run: number,
  ctx: ExecuteContext,
  samples: SampleRecord[],
  stacks: StackRecord[],
  hold: boolean,
  turns = false,
  held: HeldStart | null = null
): Launched {
  return new LaneProcess({ planned, lane, run, ctx, samples, stacks, hold, turns, held })
}

/** Prestart: the check's choice of when a held container freezes, and what measured while it was started. */
export interface HeldStart {
  freeze: HeldFreeze
  /** The step that measured while it started and imported (runner.ts stepLabel); null: none did. */
  during: string | null
}

interface LaneStart {
  planned: PlannedRun
  lane: Lane | null
  run: number
  ctx: ExecuteContext
  /** The check's samples and stacks: a finished process's are added to them. */
  samples: SampleRecord[]
  stacks: StackRecord[]
  hold: boolean
  turns: boolean
  /** When a held container freezes (held-freeze.ts), and beside what; null: from its first event. */
  held: HeldStart | null
}

/** The base of every record of one process: its check, workload, arm, run, GPU, params and fingerprint. */
function recordBase({ planned, lane, run, ctx, turns }: LaneStart): RunBase {
  const { arm, workload } = planned
  // Iteration k of every arm's process of the block ran back to back: the analysis pairs them, and a
  // baseline without turns is not matched (the tag is in the params too).
  const interleave = turns ? { interleave: 'turns' as const } : {}
  // The cap is part of the configuration: each cap is its own series, baseline entry and comparison.
  const cap = ctx.powerCapW === undefined ? {} : { power_cap_w: ctx.powerCapW }
  const params = { ...ctx.paramsFor(workload), ...interleave, ...cap }
  const gpu = lane === null ? {} : { gpu: lane.index }
  return {
    check_id: ctx.checkId,
    workload,
    environment: arm.label,
    run,
    ...gpu,
    params,
    ...interleave,
    fingerprint: ctx.fingerprintFor(arm, lane)
  }
}

/** One started process of a planned run: its events turned into records as they arrive, then its run. */
class LaneProcess implements Launched {
  readonly planned: PlannedRun
  readonly handle: ProcessHandle
  readonly turns: TurnGate | null
  readonly timeoutMs: number
  private readonly spec: RunSpec
  private readonly base: RunBase
  private readonly live: SampleRecord[] = []
  private stack: StackRecord | null = null
  // Filled as the process runs (peers events, the GPU probe); the stack record shares the array.
  private readonly cotenants: CotenantList[] = []
  private pid: number | null = null
  private gpuProbe: Promise<void> | null = null
  // Prestart in a container: frozen once its imports are done (from its first event where the check has seen an
  // image run something beside the workload, held-freeze.ts) until its release, so what its image runs beside
  // the workload does not run while another process measures. Before that: the container's start, the
  // interpreter's and, by default, the imports (CPU only).
  private heldFreeze: Promise<boolean> | null = null
  private releasing = false
  private thawing: Promise<void> | null = null
  readonly measured: Promise<void>
  private markMeasured: () => void = () => undefined

  constructor(private readonly start: LaneStart) {
    const { planned, lane, ctx, hold, turns } = start
    this.planned = planned
    this.base = recordBase(start)
    this.spec = ctx.specFor(planned, lane, hold, turns)
    const { spec } = this
    this.timeoutMs = spec.timeoutMs
    this.measured = new Promise<void>(resolve => (this.markMeasured = resolve))
    this.handle = startProcess(spec, (event, epochMs) => this.onEvent(event, epochMs), ctx.signal)
    this.turns = turns ? new TurnGate(this.handle, spec.freeze, planned.arm.label) : null
    void this.handle.done.then(done => {
      // A process that ended without its summary has measured all it will.
      this.markMeasured()
      // A held process that is never needed is not finished: the check's folder removal takes its folders.
      if (done.abandoned) spec.cleanup?.()
    })
  }

  /** The PID the workload reported for itself (`env` event), once it has. */
  ownPid(): number | null {
    return this.pid
  }

  async release(): Promise<void> {
    await this.thawHeld()
    this.handle.release()
  }

  abandon(): void {
    void this.thawHeld().then(() => this.handle.abandon())
  }

  async finish(turnFailure: string | null = null): Promise<LaneOutcome> {
    const { planned, ctx, samples } = this.start
    const done = await this.handle.done
    await this.gpuProbe
    try {
      return recordRun(planned, done, this.base, this.live, ctx, samples, this.spec, turnFailure)
    } finally {
      this.spec.cleanup?.()
    }
  }

  private freezeHeld(): void {
    const { freeze } = this.spec
    if (!this.start.hold || this.releasing || this.heldFreeze !== null || !freeze) return
    this.heldFreeze = freeze(true).then(failed => failed === null)
  }

  thaw(): Promise<void> {
    return this.thawHeld()
  }

  // Once: the thaw ahead of the release (thaw) and the release itself share it.
  private thawHeld(): Promise<void> {
    this.releasing = true
    this.thawing ??= (async () => {
      if (this.heldFreeze !== null && (await this.heldFreeze)) await this.spec.freeze?.(false)
    })()
    return this.thawing
  }

  // The GPU's other processes, read once when measuring starts. Taking turns, the block's other processes hold
  // the GPU too: the probe waits for this process's first turn, when all of them have reported their PIDs.
  private probeGpu(): void {
    const { gpuCotenants } = this.start.ctx
    if (this.gpuProbe !== null || !gpuCotenants) return
    const { cotenants } = this
    this.gpuProbe = gpuCotenants(this.base.fingerprint, this.pid, this.turns?.partners() ?? []).then(
      l => void cotenants.push(l),
      (error: unknown) => void cotenants.push(unavailable('gpu', `GPU probe failed: ${String(error)}`))
    )
  }

  private onEvent(event: WorkloadEvent, epochMs: number): void {
    if (event.event === 'summary') this.markMeasured()
    if (event.event === 'start' && (this.start.held?.freeze.fromStart ?? true)) this.freezeHeld()
    if (event.event === 'phase' && event.name === 'imports') this.freezeHeld()
    if (event.event === 'peers' && event['window'] === HELD_WINDOW) {
      const said = this.start.hold
        ? this.start.held?.freeze.observe(
            peersList(event),
            runLabel(this.planned, this.start.run),
            this.start.held.during
          )
        : null
      if (said) this.start.ctx.logger.warn(said)
      return
    }
    if (event.event === 'stack' && this.stack === null) return this.onStack(event)
    if (event.event === 'env' && typeof event['pid'] === 'number') this.pid = event['pid']
    if (event.event === 'turn') {
      this.turns?.deliver(event.edge === 'done' ? 'done' : 'wait')
      return
    }
    if (!this.start.planned.warmup) this.onMeasured(event, epochMs)
  }

  /** The process's stack: recorded once, and every record after it carries its digest. */
  private onStack(event: StackEvent): void {
    const { planned, run, stacks } = this.start
    const { event: _kind, ...recorded } = event
    const inside = recorded['launch']
    const facts = {
      ...recorded,
      launch: {
        ...(typeof inside === 'object' && inside !== null ? inside : {}),
        ...(this.spec.launchFacts?.() ?? {})
      }
    }
    this.stack = {
      environment: planned.arm.label,
      workload: planned.workload,
      run,
      facts,
      cotenants: this.cotenants
    }
    // Every record after this carries the stack it was measured on.
    this.base.fingerprint = { ...this.base.fingerprint, stack: stackDigest(facts) }
    if (!planned.warmup) stacks.push(this.stack)
  }

  /** A measured process's events: co-tenants, the measured region's start, memory and samples. */
  private onMeasured(event: WorkloadEvent, epochMs: number): void {
    const { ctx } = this.start
    const { base } = this
    if (event.event === 'peers') {
      if (this.cotenants.length < MAX_COTENANT_LISTS) this.cotenants.push(peersList(event))
      return
    }
    if (event.event === 'region' && event.edge === 'start') {
      if (this.turns === null) this.probeGpu()
      else this.turns.onFirstTurn ??= () => this.probeGpu()
      return
    }
    if (event.event === 'memory') {
      const records = memoryRecords(event, base, time(epochMs), ctx.scoring?.gateMemory === true)
      appendAll(this.live, records)
      ctx.writer.appendSamples(records)
      return
    }
    if (event.event !== 'sample') return
    const record = sampleOf(base, {
      iteration: event.iteration,
      metric: sampleMetricName(event),
      value: event.value,
      unit: event.unit,
      better: event.better,
      scope: sampleScope(event, ctx.scoring?.gateIoThroughput, base.workload, ctx.scoring?.gateMetrics),
      time: time(epochMs)
    })
    this.live.push(record)
    ctx.writer.appendSamples([record])
  }
}
