/** One process of a planned run on one lane: started (held for prestart), its events turned into records. */
import type { CotenantList, SampleRecord, StackRecord, WorkloadEvent } from '../types/index.js'
import type { Lane, PlannedRun } from '../plan/index.js'
import { peersList, unavailable } from './cotenants.js'
import { memoryRecords } from './memory.js'
import { sampleMetricName, sampleScope } from './metrics.js'
import { startProcess, type ProcessHandle } from './process.js'
import { recordRun, type LaneOutcome } from './run-record.js'
import type { ExecuteContext } from './context.js'
import { stackDigest } from './stack/digest.js'
import { TurnGate } from './turns.js'
import { appendAll } from '../util/arrays.js'

const time = (epochMs: number): string => new Date(epochMs).toISOString()

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
  turns = false
): Launched {
  const { arm, workload } = planned
  // Iteration k of every arm's process of the block ran back to back: the analysis pairs them, and a
  // baseline without turns is not matched (the tag is in the params too).
  const interleave = turns ? { interleave: 'turns' as const } : {}
  // The cap is part of the configuration: each cap is its own series, baseline entry and comparison.
  const cap = ctx.powerCapW === undefined ? {} : { power_cap_w: ctx.powerCapW }
  const params = { ...ctx.paramsFor(workload), ...interleave, ...cap }
  const gpu = lane === null ? {} : { gpu: lane.index }
  const base = {
    check_id: ctx.checkId,
    workload,
    environment: arm.label,
    run,
    ...gpu,
    params,
    ...interleave,
    fingerprint: ctx.fingerprintFor(arm, lane)
  }
  const live: SampleRecord[] = []
  let stack: StackRecord | null = null
  // Filled as the process runs (peers events, the GPU probe); the stack record shares the array.
  const cotenants: CotenantList[] = []
  let ownPid: number | null = null
  let gpuProbe: Promise<void> | null = null
  let gate: TurnGate | null = null
  // The GPU's other processes, read once when measuring starts. Taking turns, the block's other processes hold
  // the GPU too: the probe waits for this process's first turn, when all of them have reported their PIDs.
  const probeGpu = (): void => {
    if (gpuProbe !== null || !ctx.gpuCotenants) return
    gpuProbe = ctx.gpuCotenants(base.fingerprint, ownPid, gate?.partners() ?? []).then(
      l => void cotenants.push(l),
      (error: unknown) => void cotenants.push(unavailable('gpu', `GPU probe failed: ${String(error)}`))
    )
  }
  // Prestart in a container: frozen from its first event until its release, so what its image runs beside
  // the workload (a co-tenant its entrypoint starts) does not run while another process measures. The
  // window before the first event is the container's start and the interpreter's (well under a second).
  let heldFreeze: Promise<boolean> | null = null
  let releasing = false
  const freezeHeld = (): void => {
    if (!hold || releasing || heldFreeze !== null || !spec.freeze) return
    heldFreeze = spec.freeze(true).then(failed => failed === null)
  }
  const thawHeld = async (): Promise<void> => {
    releasing = true
    if (heldFreeze !== null && (await heldFreeze)) await spec.freeze?.(false)
  }
  const onEvent = (event: WorkloadEvent, epochMs: number): void => {
    if (event.event === 'start') freezeHeld()
    if (event.event === 'stack' && stack === null) {
      const { event: _kind, ...recorded } = event
      const inside = recorded['launch']
      const facts = {
        ...recorded,
        launch: {
          ...(typeof inside === 'object' && inside !== null ? inside : {}),
          ...(spec.launchFacts?.() ?? {})
        }
      }
      stack = { environment: arm.label, workload, run, facts, cotenants }
      // Every record after this carries the stack it was measured on.
      base.fingerprint = { ...base.fingerprint, stack: stackDigest(facts) }
      if (!planned.warmup) stacks.push(stack)
      return
    }
    if (event.event === 'env' && typeof event['pid'] === 'number') ownPid = event['pid']
    if (event.event === 'turn') {
      gate?.deliver(event.edge === 'done' ? 'done' : 'wait')
      return
    }
    if (planned.warmup) return
    if (event.event === 'peers') {
      if (cotenants.length < MAX_COTENANT_LISTS) cotenants.push(peersList(event))
      return
    }
    if (event.event === 'region' && event.edge === 'start') {
      if (gate === null) probeGpu()
      else gate.onFirstTurn ??= probeGpu
      return
    }
    if (event.event === 'memory') {
      const records = memoryRecords(event, base, time(epochMs), ctx.scoring?.gateMemory === true)
      appendAll(live, records)
      ctx.writer.appendSamples(records)
      return
    }
    if (event.event !== 'sample') return
    const record: SampleRecord = {
      ...base,
      iteration: event.iteration,
      metric: sampleMetricName(event),
      value: event.value,
      unit: event.unit,
      better: event.better,
      scope: sampleScope(event, ctx.scoring?.gateIoThroughput, base.workload, ctx.scoring?.gateMetrics),
      time: time(epochMs)
    }
    live.push(record)
    ctx.writer.appendSamples([record])
  }
  const spec = ctx.specFor(planned, lane, hold, turns)
  const handle = startProcess(spec, onEvent, ctx.signal)
  if (turns) gate = new TurnGate(handle, spec.freeze, arm.label)
  // A held process that is never needed is not finished: the check's folder removal takes its folders.
  void handle.done.then(done => {
    if (done.abandoned) spec.cleanup?.()
  })
  const finish = async (turnFailure: string | null = null): Promise<LaneOutcome> => {
    const done = await handle.done
    await gpuProbe
    try {
      return recordRun(planned, done, base, live, ctx, samples, spec, turnFailure)
    } finally {
      spec.cleanup?.()
    }
  }
  return {
    planned,
    handle,
    turns: gate,
    ownPid: () => ownPid,
    finish,
    timeoutMs: spec.timeoutMs,
    release: async () => {
      await thawHeld()
      handle.release()
    },
    abandon: () => void thawHeld().then(() => handle.abandon())
  }
}
