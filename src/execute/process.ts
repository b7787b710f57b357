/**
 * Runs one workload process (native, or the container runtime's client) and streams its JSON-lines
 * events as they arrive: from its own channel file when the spec names one (protocol version 2; stdout and
 * stderr are then only the run's log), else from stdout. Argument arrays only; the child gets its own process
 * group so a timeout or a cancel can kill the whole tree. Everything read from the process is bounded.
 */
import { spawn } from 'node:child_process'
import type { WorkloadEvent } from '../types/index.js'
import { scrubbedEnv } from '../util/child-env.js'
import { KILL_GRACE_MS } from '../util/exec.js'
import { LineSplitter, MAX_LINE_CHARS } from '../util/lines.js'
import { ProcessTree } from '../util/process-tree.js'
import { EventChannel } from './event-channel.js'
import { RunLog } from './run-log.js'

export interface ProcessSpec {
  command: string
  args: string[]
  env?: NodeJS.ProcessEnv
  cwd?: string
  timeoutMs: number
  /** Called (best effort) after a timeout or cancel, e.g. `docker kill <name>`. */
  onKill?: () => Promise<void>
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
   * Turns in a container: freezes (true) or thaws (false) every process of its container, so what the image
   * runs beside the workload runs only in the container's own turns. Resolves to null, or why it failed.
   */
  freeze?: (frozen: boolean) => Promise<string | null>
  /**
   * The run's events file (created empty by the runner, in the run's own folder): events are read from it,
   * stdout/stderr are the run's log only. Absent: events on stdout (a workload run by hand, version 1).
   */
  eventsPath?: string
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

const KNOWN_EVENTS = new Set([
  'start',
  'env',
  'phase',
  'sample',
  'summary',
  'error',
  'stack',
  'memory',
  'region',
  'peers',
  'turn'
])
const STDERR_TAIL = 4000
const MAX_BAD_LINES = 50
/** Events one run may send (a default llm run sends ~200; a matmul run with 10,000 iterations ~10,000). */
export const MAX_EVENTS_PER_RUN = 200_000
/** Deepest nesting an event may have (the stack event is 4 deep): deeper ones are refused, never walked. */
export const MAX_EVENT_DEPTH = 16

/** Nesting depth of a parsed JSON value, without recursion (a 100,000-deep value must not blow the stack). */
export function jsonDepth(value: unknown, limit = MAX_EVENT_DEPTH): number {
  let deepest = 0
  const todo: [unknown, number][] = [[value, 1]]
  while (todo.length) {
    const [v, d] = todo.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (d > deepest) deepest = d
    if (deepest > limit) return deepest
    for (const child of Object.values(v)) todo.push([child, d + 1])
  }
  return deepest
}

export function parseEventLine(line: string): WorkloadEvent | null {
  if (!line.startsWith('{')) return null
  try {
    const obj = JSON.parse(line) as unknown
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null
    if (jsonDepth(obj) > MAX_EVENT_DEPTH) return null
    const ev = (obj as { event?: unknown }).event
    if (typeof ev !== 'string' || !KNOWN_EVENTS.has(ev)) return null
    if (ev === 'sample') {
      // A sample must declare its direction: the analysis never guesses it from the metric's name.
      const s = obj as { metric?: unknown; value?: unknown; better?: unknown }
      if (typeof s.metric !== 'string' || typeof s.value !== 'number' || !Number.isFinite(s.value))
        return null
      if (s.better !== 'lower' && s.better !== 'higher') return null
    }
    return obj as WorkloadEvent
  } catch {
    return null
  }
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

const GO = 'go\n'
const TURN = 'turn\n'
/** How often a process taking turns has its channel read: each turn waits for the last one's end event. */
export const TURNS_POLL_MS = 2
const ABANDON_GRACE_MS = 5000
/** After the process exits, how long its pipes may still deliver before what holds them is killed. */
const EXIT_DRAIN_MS = 1000

export async function runProcess(
  spec: ProcessSpec,
  onEvent: (event: WorkloadEvent, epochMs: number) => void,
  signal?: AbortSignal
): Promise<ProcessResult> {
  const handle = startProcess(spec, onEvent, signal)
  handle.release()
  return handle.done
}

export function startProcess(
  spec: ProcessSpec,
  onEvent: (event: WorkloadEvent, epochMs: number) => void,
  signal?: AbortSignal
): ProcessHandle {
  const result: ProcessResult = {
    exitCode: null,
    signal: null,
    spawnEpochMs: Date.now(),
    releaseEpochMs: 0,
    abandoned: false,
    endEpochMs: 0,
    events: [],
    badLines: [],
    stderrTail: '',
    log: new RunLog(),
    channelError: null,
    timedOut: false,
    cancelled: false,
    spawnError: null
  }
  let release: () => void = () => undefined
  let abandon: () => void = () => undefined
  let turn: () => void = () => undefined
  let endTurns: () => void = () => undefined
  let stop: () => void = () => undefined
  const done = new Promise<ProcessResult>(resolve => {
    result.spawnEpochMs = Date.now()
    const tree = new ProcessTree()
    const child = spawn(spec.command, spec.args, {
      env: { ...(spec.env ?? scrubbedEnv(process.env)), ...tree.envEntry },
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false
    })
    tree.watch(child.pid)
    // A workload that died while held makes the write fail (EPIPE): its exit code tells the story.
    child.stdin.on('error', () => undefined)
    // Neither held nor taking turns: stdin is at its end from the start, as /dev/null would be.
    if (!spec.hold && !spec.turns) child.stdin.end()
    let killed = false
    const kill = (why: 'timeout' | 'cancel' | 'channel' | 'stop'): void => {
      if (killed) return
      killed = true
      if (why === 'timeout') result.timedOut = true
      else if (why === 'cancel') result.cancelled = true
      // The group, every descendant seen, and setsid escapees carrying the tree's marker.
      tree.kill('SIGTERM')
      void spec.onKill?.().catch(() => undefined)
      setTimeout(() => tree.kill('SIGKILL'), KILL_GRACE_MS).unref()
    }
    let timer: NodeJS.Timeout | null = null
    const startClock = (ms: number): void => {
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => kill('timeout'), ms)
      timer.unref()
    }
    let released = false
    release = () => {
      if (released) return
      released = true
      result.releaseEpochMs = Date.now()
      startClock(spec.timeoutMs)
      if (spec.hold && spec.turns) child.stdin.write(GO)
      else if (spec.hold) child.stdin.end(GO)
    }
    // Once its input has ended (endTurns, abandon), no turn is given.
    turn = () => {
      if (spec.turns && !child.stdin.writableEnded) child.stdin.write(TURN)
    }
    endTurns = () => {
      if (spec.turns && !child.stdin.writableEnded) child.stdin.end()
    }
    stop = () => kill('stop')
    abandon = () => {
      if (released) return
      released = true
      result.abandoned = true
      child.stdin.end()
      startClock(ABANDON_GRACE_MS)
    }
    if (spec.hold) startClock(spec.holdTimeoutMs ?? spec.timeoutMs)
    const onAbort = (): void => kill('cancel')
    if (signal?.aborted) onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })

    const failChannel = (why: string): void => {
      if (result.channelError !== null) return
      result.channelError = why
      kill('channel')
    }
    const handleLine = (line: string): void => {
      const trimmed = line.trim()
      if (trimmed === '' || result.channelError !== null) return
      const event = parseEventLine(trimmed)
      if (!event) {
        if (result.badLines.length < MAX_BAD_LINES) result.badLines.push(trimmed.slice(0, 300))
        return
      }
      acceptEvent(event)
    }
    const acceptEvent = (event: WorkloadEvent): void => {
      if (result.events.length >= MAX_EVENTS_PER_RUN)
        return failChannel(`more than ${MAX_EVENTS_PER_RUN} protocol events in one run`)
      if (event.event === 'start' && spec.runId !== undefined && event.run_id !== spec.runId)
        return failChannel(`the events are of another run (run_id ${String(event.run_id).slice(0, 40)})`)
      result.events.push(event)
      onEvent(event, Date.now())
    }
    // stdout beside a channel (stdoutEvents): protocol events are read, anything else is the log. A start
    // event there needs no run id (a printing script does not know it), but one naming another run is refused.
    const handleStdoutLine = (line: string): void => {
      const trimmed = line.trim()
      if (trimmed === '' || result.channelError !== null) return
      const event = parseEventLine(trimmed)
      if (!event) return
      acceptEvent(
        event.event === 'start' && event.run_id === undefined ? { ...event, run_id: spec.runId } : event
      )
    }
    // Linear in the output, with a cap per line: a 50 MB line without a newline is dropped as it grows.
    const sink = {
      line: handleLine,
      tooLong: (chars: number) => {
        if (result.badLines.length < MAX_BAD_LINES)
          result.badLines.push(
            `(a line of ${chars} characters, longer than the ${MAX_LINE_CHARS} allowed; dropped)`
          )
      }
    }
    let channel: EventChannel | null = null
    if (spec.eventsPath !== undefined) {
      try {
        channel = new EventChannel(spec.eventsPath, {
          ...sink,
          overflow: bytes => failChannel(`the event channel passed its bound (${bytes} bytes in one run)`)
        })
        channel.start(spec.turns ? TURNS_POLL_MS : undefined)
      } catch (error) {
        failChannel(`cannot read the event channel ${spec.eventsPath}: ${String(error)}`)
      }
    }
    const lines = new LineSplitter(
      channel !== null && spec.stdoutEvents === true
        ? { line: handleStdoutLine, tooLong: () => undefined }
        : sink
    )
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      result.log.push(chunk)
      // With a channel, stdout is the image's and the libraries' (a banner, notices): the log only, unless a
      // user command reads its protocol lines there too.
      if (channel === null || spec.stdoutEvents === true) lines.push(chunk)
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      result.log.push(chunk)
      result.stderrTail = (result.stderrTail + chunk).slice(-STDERR_TAIL)
    })
    child.on('error', error => {
      result.spawnError = error.message
    })
    // The command itself is over: a child it left behind holding stdout or stderr (a server started with
    // setsid) must not keep the run going until run-timeout. After a short drain of what is in the pipes, the
    // tree (its group, descendants, setsid escapees by the marker) is killed and the pipes closed.
    child.on('exit', () => {
      const drain = setTimeout(() => {
        tree.kill('SIGKILL')
        child.stdout.destroy()
        child.stderr.destroy()
      }, EXIT_DRAIN_MS)
      drain.unref()
      child.once('close', () => clearTimeout(drain))
    })
    child.on('close', (code, sig) => {
      if (timer) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      lines.flush()
      channel?.close()
      // Whatever the workload left running (a daemon it started) ends with it.
      tree.kill('SIGKILL')
      tree.release()
      result.exitCode = code
      result.signal = sig
      result.endEpochMs = Date.now()
      if (result.releaseEpochMs === 0) result.releaseEpochMs = result.spawnEpochMs
      resolve(result)
    })
  })
  return {
    release: () => release(),
    abandon: () => abandon(),
    turn: () => turn(),
    endTurns: () => endTurns(),
    stop: () => stop(),
    done
  }
}
