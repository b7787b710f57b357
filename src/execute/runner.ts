/**
 * Executes the plan: one fresh process per planned run, events turned into sample records and written
 * the moment they arrive, start-up split out, progress with ETA. A failing workload stops that workload
 * (the rest of the check continues); a cancel stops everything. Nothing measured is ever dropped.
 */
import type {
  Arm,
  Fingerprint,
  RecordSink,
  RunRecord,
  SampleRecord,
  StackRecord,
  StartEvent,
  Workload,
  WorkloadEvent
} from '../types/index.js'
import type { Logger } from '../util/log.js'
import { laneLabel, type Lane } from '../plan/index.js'
import { memoryRecords } from './memory.js'
import { sampleMetricName, sampleScope } from './metrics.js'
import { regionWindows } from './region.js'
import { stackDigest } from './stack/digest.js'
import type { PlannedRun } from '../plan/index.js'
import { runProcess, type ProcessResult, type ProcessSpec } from './process.js'

export interface ExecuteContext {
  checkId: string
  /**
   * GPUs a planned run starts on at once, one process each (default: one unpinned process). With L lanes,
   * the r-th repetition on lane k is run (r − 1)·L + k + 1: every process stays its own run, in time order.
   */
  lanes?: readonly (Lane | null)[]
  /** Builds the process for a planned run (native or container) on a lane. */
  specFor(run: PlannedRun, lane: Lane | null): ProcessSpec
  fingerprintFor(arm: Arm, lane: Lane | null): Fingerprint
  paramsFor(workload: Workload): Record<string, unknown>
  writer: RecordSink
  logger: Logger
  signal?: AbortSignal
  /** Prefix of progress lines, e.g. `cap 500 W`. */
  label?: string
  /** GPU memory metrics gate (scope steady) instead of being informational. */
  gateMemory?: boolean
}

export interface ExecuteResult {
  samples: SampleRecord[]
  runs: RunRecord[]
  /** The stack each measured process recorded (`stack` event), in run order. */
  stacks?: StackRecord[]
  complete: boolean
  incompleteReason: string | null
}

const PHASE_UNIT = 's'

/** Start-up records of one process: launch (spawn → process exists), the workload's phases, and totals. */
export function startupRecords(
  proc: Pick<ProcessResult, 'spawnEpochMs' | 'endEpochMs' | 'events'>,
  base: Omit<SampleRecord, 'metric' | 'value' | 'unit' | 'scope' | 'iteration' | 'time'>,
  time: string
): SampleRecord[] {
  const out: SampleRecord[] = []
  const rec = (metric: string, value: number): void => {
    if (Number.isFinite(value) && value >= 0)
      out.push({ ...base, metric, value, unit: PHASE_UNIT, scope: 'startup', iteration: 0, time })
  }
  const spawnS = proc.spawnEpochMs / 1000
  const start = proc.events.find((e): e is StartEvent => e.event === 'start')
  // proc_start_epoch_s comes from /proc/self/stat (10 ms ticks); in a container it is when the runtime
  // exec'd the entrypoint, so launch_s is the container start-up (create, namespaces, mounts). Natively it
  // is a fork+exec, which can read a tick *before* our spawn timestamp: clamp that tick's jitter to 0.
  if (start?.proc_start_epoch_s) {
    const launch = start.proc_start_epoch_s - spawnS
    rec('launch_s', launch < 0 && launch > -0.02 ? 0 : launch)
  }
  let lastEnd: number | null = null
  for (const e of proc.events) {
    if (e.event !== 'phase') continue
    rec(`${e.name}_s`, e.duration_s)
    lastEnd = e.end_epoch_s
  }
  if (lastEnd !== null) rec('total_startup_s', lastEnd - spawnS)
  if (proc.endEpochMs > 0) rec('process_wall_s', (proc.endEpochMs - proc.spawnEpochMs) / 1000)
  return out
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000)
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`
}

function describeFailure(proc: ProcessResult): string {
  if (proc.spawnError) return `could not start: ${proc.spawnError}`
  if (proc.timedOut) return 'timed out (killed with its process tree/container)'
  if (proc.cancelled) return 'cancelled'
  const err = proc.events.find(e => e.event === 'error')
  if (err && err.event === 'error') return `${err.type}: ${err.message}`
  const exit = proc.signal ? `killed by ${proc.signal}` : `exit code ${proc.exitCode}`
  if (proc.exitCode === 137) return `${exit} (out of memory or killed)`
  const tail = proc.stderrTail.trim().split('\n').slice(-3).join(' | ')
  const bad = proc.badLines.length > 0 ? `; non-protocol output: ${proc.badLines[0]}` : ''
  return `${exit}${tail ? `: ${tail}` : ''}${bad}`
}

interface LaneOutcome {
  proc: ProcessResult
  run: RunRecord
  ok: boolean
  samples: number
}

/** One process of a planned run on one lane; its samples are written the moment they arrive. */
async function runOnLane(
  planned: PlannedRun,
  lane: Lane | null,
  run: number,
  ctx: ExecuteContext,
  samples: SampleRecord[],
  stacks: StackRecord[]
): Promise<LaneOutcome> {
  const { arm, workload } = planned
  const params = ctx.paramsFor(workload)
  const gpu = lane === null ? {} : { gpu: lane.index }
  const base = {
    check_id: ctx.checkId,
    workload,
    environment: arm.label,
    run,
    ...gpu,
    params,
    fingerprint: ctx.fingerprintFor(arm, lane)
  }
  const live: SampleRecord[] = []
  let stack: StackRecord | null = null
  const onEvent = (event: WorkloadEvent, epochMs: number): void => {
    if (event.event === 'stack' && stack === null) {
      const { event: _kind, ...facts } = event
      stack = { environment: arm.label, workload, run, facts }
      // Every record after this carries the stack it was measured on.
      base.fingerprint = { ...base.fingerprint, stack: stackDigest(facts) }
      return
    }
    if (planned.warmup) return
    if (event.event === 'memory') {
      const records = memoryRecords(event, base, new Date(epochMs).toISOString(), ctx.gateMemory === true)
      live.push(...records)
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
      scope: sampleScope(event.metric),
      time: new Date(epochMs).toISOString()
    }
    live.push(record)
    ctx.writer.appendSamples([record])
  }
  const proc = await runProcess(ctx.specFor(planned, lane), onEvent, ctx.signal)
  const ok =
    proc.exitCode === 0 &&
    !proc.timedOut &&
    !proc.cancelled &&
    proc.spawnError === null &&
    proc.badLines.length === 0
  const summary = proc.events.find(e => e.event === 'summary')
  const energy = summary && typeof summary.energy_j === 'number' ? summary.energy_j : null
  const record: RunRecord = {
    workload,
    environment: arm.label,
    run,
    warmup: planned.warmup,
    start_ms: proc.spawnEpochMs,
    end_ms: proc.endEpochMs,
    exit_code: proc.exitCode,
    status: ok ? 'ok' : proc.cancelled ? 'cancelled' : proc.timedOut ? 'timeout' : 'failed',
    error: ok ? null : describeFailure(proc),
    energy_j: energy,
    energy_source: energy === null ? null : 'nvml',
    measured_s: summary && typeof summary.measured_s === 'number' ? summary.measured_s : null,
    mean_util_pct: null,
    mean_sm_clock_mhz: null,
    mean_power_w: null,
    throttled_samples: 0,
    telemetry_samples: 0,
    ...gpu,
    params,
    regions: regionWindows(proc.events),
    stack: base.fingerprint.stack ?? null
  }
  if (!planned.warmup && stack) stacks.push(stack)
  if (!planned.warmup) {
    const startup = startupRecords(proc, base, new Date(proc.endEpochMs).toISOString())
    ctx.writer.appendSamples(startup)
    samples.push(...live, ...startup)
  }
  ctx.writer.appendRun(record)
  return { proc, run: record, ok, samples: live.length }
}

export async function executePlan(plan: PlannedRun[], ctx: ExecuteContext): Promise<ExecuteResult> {
  const samples: SampleRecord[] = []
  const runs: RunRecord[] = []
  const stacks: StackRecord[] = []
  const lanes = ctx.lanes?.length ? ctx.lanes : [null]
  const failedWorkloads = new Map<Workload, string>()
  let cancelled = false
  let writeStop: string | null = null
  const t0 = Date.now()
  let done = 0
  const prefix = ctx.label ? `${ctx.label} ` : ''

  for (const planned of plan) {
    if (ctx.signal?.aborted) {
      cancelled = true
      break
    }
    if (failedWorkloads.has(planned.workload)) continue
    const { arm, workload } = planned
    const L = lanes.length
    // Every lane at once: both arms meet the same neighbours on a shared host.
    const outcomes = await Promise.all(
      lanes.map((lane, k) => runOnLane(planned, lane, (planned.run - 1) * L + k + 1, ctx, samples, stacks))
    )
    for (const o of outcomes) runs.push(o.run)

    done++
    const eta = ((Date.now() - t0) / done) * (plan.length - done)
    const what = `${workload} ${arm.label} ${planned.warmup ? 'warm-up' : `run ${planned.run}`}`
    const secs = (o: LaneOutcome): string => ((o.proc.endEpochMs - o.proc.spawnEpochMs) / 1000).toFixed(1)
    const how =
      L === 1
        ? `${outcomes[0]!.run.status} in ${secs(outcomes[0]!)} s${outcomes[0]!.samples ? `, ${outcomes[0]!.samples} samples` : ''}`
        : outcomes.map((o, k) => `${laneLabel(lanes[k]!)} ${o.run.status} ${secs(o)} s`).join(', ')
    ctx.logger.info(`${prefix}[${done}/${plan.length}] ${what}: ${how} — ETA ${formatDuration(eta)}`)
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
    const bad = outcomes.findIndex(o => !o.ok)
    if (bad >= 0) {
      const where = L === 1 ? '' : ` on ${laneLabel(lanes[bad]!)}`
      const error = outcomes[bad]!.run.error ?? 'unknown'
      failedWorkloads.set(workload, `${prefix}${what}${where} failed: ${error}`)
      ctx.logger.warn(`${workload}: ${what}${where} failed (${error}); skipping the rest of ${workload}`)
    }
  }
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
