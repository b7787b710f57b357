/**
 * What one finished workload process leaves behind: its run record (status, failure reason, energy,
 * measured region) and its start-up records (launch, phases, totals — a prestart hold taken out).
 */
import type { RunRecord, SampleRecord, StartEvent } from '../types/index.js'
import { runLabel, type PlannedRun } from '../plan/index.js'
import type { ExecuteContext, RunSpec } from './context.js'
import type { ProcessResult } from './process-types.js'
import { regionWindows } from './region.js'
import { appendAll } from '../util/arrays.js'
import { readResultFile } from '../results/index.js'
import { readCommandResults, wallTimeSample, type RunBase } from './command-results.js'

const PHASE_UNIT = 's'
const HELD_PHASE = 'held'

/** Start-up records of one process: launch (spawn → process exists), the workload's phases, and totals. */
export function startupRecords(
  proc: Pick<ProcessResult, 'spawnEpochMs' | 'endEpochMs' | 'events'>,
  base: RunBase,
  time: string
): SampleRecord[] {
  const out: SampleRecord[] = []
  const rec = (metric: string, value: number): void => {
    if (Number.isFinite(value) && value >= 0)
      out.push({
        ...base,
        metric,
        value,
        unit: PHASE_UNIT,
        better: 'lower',
        scope: 'startup',
        iteration: 0,
        time
      })
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
  // A prestarted process waited for the GPU after its imports (the `held` phase): that wait is neither
  // start-up nor work, so it is left out of the phases and taken out of the totals — the same columns
  // mean the same thing with and without prestart.
  let held = 0
  for (const e of proc.events) {
    if (e.event !== 'phase') continue
    if (e.name === HELD_PHASE) held += e.duration_s
    else rec(`${e.name}_s`, e.duration_s)
    lastEnd = e.end_epoch_s
  }
  if (lastEnd !== null) rec('total_startup_s', lastEnd - spawnS - held)
  if (proc.endEpochMs > 0) rec('process_wall_s', (proc.endEpochMs - proc.spawnEpochMs) / 1000 - held)
  return out
}

/** A process that ended without a single protocol event (an entrypoint that never ran its command). */
function silent(proc: ProcessResult): boolean {
  return proc.events.length === 0 && proc.badLines.length === 0
}

/** The last `n` non-empty lines the process wrote on stderr. */
function lastErrLines(proc: ProcessResult, n: number): string[] {
  return proc.stderrTail
    .split(/\r?\n/)
    .map(l => l.trim())
    .filter(Boolean)
    .slice(-n)
}

/** Why a run failed, in one line; `resultError`: why its command's results could not be read. */
export function describeFailure(proc: ProcessResult, resultError: string | null = null): string {
  if (proc.spawnError) return `could not start: ${proc.spawnError}`
  if (proc.channelError) return `event channel: ${proc.channelError}`
  if (proc.timedOut) return 'timed out (killed with its process tree/container)'
  if (proc.cancelled) return 'cancelled'
  const err = proc.events.find(e => e.event === 'error')
  if (err && err.event === 'error') {
    // The interpreter's last line on stderr is the real error where the event's message is only its wrapper (a
    // workload that reports str(exception) of a DataLoader worker's re-raise: the cause is its last line).
    const last = lastErrLines(proc, 1)[0]
    const more = last !== undefined && !err.message.includes(last) ? ` | ${last.slice(-300)}` : ''
    return `${err.type}: ${err.message}${more}`
  }
  const exit = proc.signal ? `killed by ${proc.signal}` : `exit code ${proc.exitCode}`
  if (proc.exitCode === 137) return `${exit} (out of memory or killed)`
  // An entrypoint's or interpreter's last words: stderr's where it has any. stdout and stderr are two pipes, so
  // in the merged log a banner printed on stdout before `exec` can land after the error written on stderr.
  const errLines = lastErrLines(proc, 3)
  const tail = (errLines.length > 0 ? errLines : proc.log.lastLines(3)).join(' | ').slice(-600)
  const first = proc.badLines[0]
  const bad =
    first !== undefined ? `; not a protocol event: ${first}` : resultError !== null ? `; ${resultError}` : ''
  const none =
    proc.exitCode === 0 && silent(proc) && resultError === null
      ? '; no protocol events arrived (did the entrypoint exec "$@"?)'
      : ''
  return `${exit}${none}${tail ? `: ${tail}` : ''}${bad}`
}

export interface LaneOutcome {
  proc: ProcessResult
  run: RunRecord
  ok: boolean
  samples: number
  /** Why a command's results could not be read (no result file, no samples under format protocol). */
  resultError: string | null
}

export function recordRun(
  planned: PlannedRun,
  proc: ProcessResult,
  base: RunBase,
  live: SampleRecord[],
  ctx: ExecuteContext,
  samples: SampleRecord[],
  spec: Pick<RunSpec, 'resultFormat' | 'runDir'> = {},
  turnFailure: string | null = null
): LaneOutcome {
  const { run } = base
  // A user command: its result file, or its wall time (src/execute/command-results.ts).
  const results = readCommandResults(
    spec.resultFormat ?? null,
    proc,
    spec.runDir ?? null,
    base,
    readResultFile,
    planned.warmup
  )
  if (results.samples.length) {
    appendAll(live, results.samples)
    ctx.writer.appendSamples(results.samples)
  }
  // turnFailure: this process broke its block's turns (execute/turns.ts), whatever its exit code says.
  const ok = turnFailure === null && ranOk(proc, results)
  if (ok && results.byWallTime && !planned.warmup) {
    const wall = wallTimeSample(base, proc)
    live.push(wall)
    ctx.writer.appendSamples([wall])
  }
  const error = ok ? null : (turnFailure ?? describeFailure(proc, results.error))
  const record = runRecordOf(planned, proc, base, ok, error)
  if (!planned.warmup) {
    // A failed process's start-up is not a start-up to compare: one that died on a missing file ends in a
    // fraction of a working one's time, and its "faster" start-up would read as a container gain.
    const startup = ok ? startupRecords(proc, base, new Date(proc.endEpochMs).toISOString()) : []
    ctx.writer.appendSamples(startup)
    appendAll(appendAll(samples, live), startup)
  }
  ctx.writer.appendRun(record)
  // The log of every failed process, and of each arm's first process (what its entrypoint printed).
  if (!ok || planned.warmup || run === 1)
    ctx.writer.appendLog?.(
      `${runLabel(planned, run)}${base.gpu === undefined ? '' : ` on GPU ${base.gpu}`}: ${record.status}`,
      proc.log.text()
    )
  return { proc, run: record, ok, samples: live.length, resultError: results.error }
}

/** Whether a process ran as it should: exit 0, in time, a clean channel, and results it read or sent. */
function ranOk(proc: ProcessResult, results: ReturnType<typeof readCommandResults>): boolean {
  return (
    proc.exitCode === 0 &&
    !proc.timedOut &&
    !proc.cancelled &&
    proc.spawnError === null &&
    proc.channelError === null &&
    proc.badLines.length === 0 &&
    results.error === null &&
    (results.byWallTime || results.fromFile || !silent(proc))
  )
}

/** The run record of a finished process; `error`: why it failed (null when ok). */
function runRecordOf(
  planned: PlannedRun,
  proc: ProcessResult,
  base: RunBase,
  ok: boolean,
  error: string | null
): RunRecord {
  const { arm, workload } = planned
  const { run, params } = base
  const gpu = base.gpu === undefined ? {} : { gpu: base.gpu }
  const summary = proc.events.find(e => e.event === 'summary')
  const energy = summary && typeof summary.energy_j === 'number' ? summary.energy_j : null
  return {
    workload,
    environment: arm.label,
    run,
    warmup: planned.warmup,
    // From the release: a held process did no work before it (and telemetry windows must not overlap).
    start_ms: proc.releaseEpochMs,
    end_ms: proc.endEpochMs,
    exit_code: proc.exitCode,
    status: ok ? 'ok' : proc.cancelled ? 'cancelled' : proc.timedOut ? 'timeout' : 'failed',
    error,
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
}
