/** What a workload process is started with (ProcessSpec), what it leaves (ProcessResult), and its handle. */
import type { LaunchSpec } from '../launchers/index.js'
import type { WorkloadEvent } from '../types/index.js'
import type { RunLog } from './run-log.js'

/** What the arm's launcher built (argv, env, freeze, kill), plus how the runner drives and reads it. */
export interface ProcessSpec extends LaunchSpec {
  /**
   * Prestart: the process gets a stdin pipe (and GPU_OVERHEAD_HOLD=stdin from the spec's env), imports, and
   * waits for `release()`; timeoutMs counts from the release. `holdTimeoutMs` bounds the wait itself.
   */
  hold?: boolean
  holdTimeoutMs?: number
  /**
   * Turns (execute/turns.ts): stdin stays open after the release (and GPU_OVERHEAD_TURNS=stdin is in the
   * spec's env): the workload waits for `turn()` before each measured iteration. Its channel is read every
   * TURNS_POLL_MS, so a turn's end is seen within milliseconds.
   */
  turns?: boolean
  /**
   * The run's events file (created empty by the runner, in the run's own folder): events are read from it,
   * stdout/stderr are the run's log only. Absent: events on stdout (a workload run by hand, version 1).
   */
  eventsPath?: string
  /**
   * Events framed on stdout instead of a channel file (a launcher without a shared folder): lines that start
   * with the frame are events, every other line is the log (docs/protocol.md, "Framed stdout").
   */
  framedEvents?: boolean
  /** Removes the run's private folders; the launcher calls it once the run is recorded (result files read). */
  cleanup?: () => void
  /** The run's private folder on the host (where a command's result file is read from). */
  runDir?: string
  /** The id the workload's start event must echo (GPU_OVERHEAD_RUN_ID): events of another run are refused. */
  runId?: string
  /**
   * A user command's stdout lines that are protocol events count too, beside the channel (a script that prints
   * its samples); every other line stays the log, so a banner breaks nothing. Never for the built-ins.
   */
  stdoutEvents?: boolean
}

export interface ProcessResult {
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Epoch ms just before spawn. */
  spawnEpochMs: number
  /** Epoch ms of the release (a held process), else the spawn time. */
  releaseEpochMs: number
  /** A held process that was never released (its run was no longer needed). */
  abandoned: boolean
  endEpochMs: number
  events: WorkloadEvent[]
  /** Lines on the event channel that were not protocol events (the protocol forbids them). */
  badLines: string[]
  stderrTail: string
  /** stdout and stderr as they arrived, bounded (head and tail): the run's log, shown when it fails. */
  log: RunLog
  /** The channel broke a bound or carried another run's events: the run failed (and was killed) for it. */
  channelError: string | null
  timedOut: boolean
  cancelled: boolean
  /** Set when the program could not be started at all (ENOENT, EACCES). */
  spawnError: string | null
}

/** A started process: release a held one, or abandon it (end of input, then a kill if it lingers). */
export interface ProcessHandle {
  release(): void
  abandon(): void
  /** Turns: give it the GPU for one measured iteration (a line on its stdin). */
  turn(): void
  /** Turns: no more turns (end of its input). */
  endTurns(): void
  /** Kills it now (its tree, its container): a block whose turns broke ends at once. */
  stop?(): void
  done: Promise<ProcessResult>
}
