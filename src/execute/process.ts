/**
 * Runs one workload process (native, or the container runtime's client) and streams its JSON-lines
 * events as they arrive: from its own channel file when the spec names one (protocol version 2; stdout and
 * stderr are then only the run's log), else from stdout. Argument arrays only; the child gets its own process
 * group so a timeout or a cancel can kill the whole tree. Everything read from the process is bounded.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import type { WorkloadEvent } from '../types/index.js'
import { scrubbedEnv } from '../util/child-env.js'
import { KILL_GRACE_MS } from '../util/exec.js'
import { LineSplitter, MAX_LINE_CHARS, type LineSink } from '../util/lines.js'
import { ProcessTree } from '../util/process-tree.js'
import { EVENT_FRAME } from '../launchers/index.js'
import { EventChannel, MAX_CHANNEL_BYTES } from './event-channel.js'
import { parseEventLine } from './event-line.js'
import type { ProcessHandle, ProcessResult, ProcessSpec } from './process-types.js'
import { RunLog } from './run-log.js'

const STDERR_TAIL = 4000
const MAX_BAD_LINES = 50
/** Events one run may send (a default llm run sends ~200; a matmul run with 10,000 iterations ~10,000). */
export const MAX_EVENTS_PER_RUN = 200_000
const GO = 'go\n'
const TURN = 'turn\n'
/** How often a process taking turns has its channel read: each turn waits for the last one's end event. */
export const TURNS_POLL_MS = 2
const ABANDON_GRACE_MS = 5000
/** After the process exits, how long its pipes may still deliver before what holds them is killed. */
const EXIT_DRAIN_MS = 1000

type KillReason = 'timeout' | 'cancel' | 'channel' | 'stop'
type OnEvent = (event: WorkloadEvent, epochMs: number) => void

export async function runProcess(
  spec: ProcessSpec,
  onEvent: OnEvent,
  signal?: AbortSignal
): Promise<ProcessResult> {
  const handle = startProcess(spec, onEvent, signal)
  handle.release()
  return handle.done
}

export function startProcess(spec: ProcessSpec, onEvent: OnEvent, signal?: AbortSignal): ProcessHandle {
  const proc = new WorkloadProcess(spec, onEvent, signal)
  // Plain functions: a caller may pass them around unbound.
  return {
    release: () => proc.release(),
    abandon: () => proc.abandon(),
    turn: () => proc.turn(),
    endTurns: () => proc.endTurns(),
    stop: () => proc.stop(),
    done: proc.done
  }
}

function emptyResult(): ProcessResult {
  return {
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
}

/**
 * One spawned workload process: its child, its tree, its clocks and what it has sent so far. Spawned in the
 * constructor; `done` resolves once the child has closed. Until a child exists (a spawn that threw) the
 * handle's methods do nothing.
 */
class WorkloadProcess {
  readonly result = emptyResult()
  readonly done: Promise<ProcessResult>
  private readonly tree = new ProcessTree()
  private child: ChildProcessWithoutNullStreams | null = null
  private channel: EventChannel | null = null
  private timer: NodeJS.Timeout | null = null
  private killed = false
  /** Characters of framed event lines read so far (framedEvents): bounded like a channel file. */
  private framedChars = 0
  private released = false
  private readonly onAbort = (): void => this.kill('cancel')

  constructor(
    private readonly spec: ProcessSpec,
    private readonly onEvent: OnEvent,
    private readonly signal?: AbortSignal
  ) {
    this.done = new Promise<ProcessResult>(resolve => this.spawn(resolve))
  }

  release(): void {
    const stdin = this.child?.stdin
    // A held process that ended before its release (one that ignored the hold) keeps its spawn as its start:
    // a release after its end made start_ms later than end_ms and its duration negative.
    if (!stdin || this.released || this.result.endEpochMs !== 0) return
    this.released = true
    this.result.releaseEpochMs = Date.now()
    this.startClock(this.spec.timeoutMs)
    if (this.spec.hold && this.spec.turns) stdin.write(GO)
    else if (this.spec.hold) stdin.end(GO)
  }

  abandon(): void {
    const stdin = this.child?.stdin
    if (!stdin || this.released) return
    this.released = true
    this.result.abandoned = true
    stdin.end()
    this.startClock(ABANDON_GRACE_MS)
  }

  // Once its input has ended (endTurns, abandon), no turn is given.
  turn(): void {
    const stdin = this.child?.stdin
    if (this.spec.turns && stdin && !stdin.writableEnded) stdin.write(TURN)
  }

  endTurns(): void {
    const stdin = this.child?.stdin
    if (this.spec.turns && stdin && !stdin.writableEnded) stdin.end()
  }

  stop(): void {
    if (this.child) this.kill('stop')
  }

  private spawn(resolve: (result: ProcessResult) => void): void {
    const { spec, signal } = this
    this.result.spawnEpochMs = Date.now()
    const child = spawn(spec.command, spec.args, {
      env: { ...(spec.env ?? scrubbedEnv(process.env)), ...this.tree.envEntry },
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false
    })
    this.tree.watch(child.pid)
    // A workload that died while held makes the write fail (EPIPE): its exit code tells the story.
    child.stdin.on('error', () => undefined)
    // Neither held nor taking turns: stdin is at its end from the start, as /dev/null would be.
    if (!spec.hold && !spec.turns) child.stdin.end()
    this.child = child
    if (spec.hold) this.startClock(spec.holdTimeoutMs ?? spec.timeoutMs)
    if (signal?.aborted) this.onAbort()
    signal?.addEventListener('abort', this.onAbort, { once: true })
    const lines = this.openChannel()
    this.readOutput(child, lines)
    this.watchEnd(child, lines, resolve)
  }

  private kill(why: KillReason): void {
    if (this.killed) return
    this.killed = true
    if (why === 'timeout') this.result.timedOut = true
    else if (why === 'cancel') this.result.cancelled = true
    // The group, every descendant seen, and setsid escapees carrying the tree's marker.
    this.tree.kill('SIGTERM')
    void this.spec.onKill?.().catch(() => undefined)
    setTimeout(() => this.tree.kill('SIGKILL'), KILL_GRACE_MS).unref()
  }

  private startClock(ms: number): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.kill('timeout'), ms)
    this.timer.unref()
  }

  private failChannel(why: string): void {
    if (this.result.channelError !== null) return
    this.result.channelError = why
    this.kill('channel')
  }

  /** A line of the event channel (or of stdout, without one): an event, or a bad line kept (bounded). */
  private handleLine(line: string): void {
    const trimmed = line.trim()
    if (trimmed === '' || this.result.channelError !== null) return
    const event = parseEventLine(trimmed)
    if (!event) {
      if (this.result.badLines.length < MAX_BAD_LINES) this.result.badLines.push(trimmed.slice(0, 300))
      return
    }
    this.acceptEvent(event)
  }

  // stdout beside a channel (stdoutEvents): protocol events are read, anything else is the log. A start
  // event there needs no run id (a printing script does not know it), but one naming another run is refused.
  private handleStdoutLine(line: string): void {
    const trimmed = line.trim()
    if (trimmed === '' || this.result.channelError !== null) return
    const event = parseEventLine(trimmed)
    if (!event) return
    this.acceptEvent(
      event.event === 'start' && event.run_id === undefined ? { ...event, run_id: this.spec.runId } : event
    )
  }

  // Framed on stdout (a launcher without a shared folder): a framed line is an event line, held to the
  // channel's rules (a bad one is kept, another run's start fails the run); every other line is the log.
  private handleFramedLine(line: string): void {
    if (!line.startsWith(EVENT_FRAME)) return this.spec.stdoutEvents ? this.handleStdoutLine(line) : undefined
    this.framedChars += line.length + 1
    if (this.framedChars > MAX_CHANNEL_BYTES)
      return this.failChannel(
        `the framed events passed their bound (${this.framedChars} characters in one run)`
      )
    this.handleLine(line.slice(EVENT_FRAME.length))
  }

  private acceptEvent(event: WorkloadEvent): void {
    const { result, spec } = this
    if (result.events.length >= MAX_EVENTS_PER_RUN)
      return this.failChannel(`more than ${MAX_EVENTS_PER_RUN} protocol events in one run`)
    if (event.event === 'start' && spec.runId !== undefined && event.run_id !== spec.runId)
      return this.failChannel(`the events are of another run (run_id ${String(event.run_id).slice(0, 40)})`)
    result.events.push(event)
    this.onEvent(event, Date.now())
  }

  private noteTooLong(chars: number): void {
    if (this.result.badLines.length < MAX_BAD_LINES)
      this.result.badLines.push(
        `(a line of ${chars} characters, longer than the ${MAX_LINE_CHARS} allowed; dropped)`
      )
  }

  /** Opens the spec's event channel, if it names one; returns the splitter stdout's lines go through. */
  private openChannel(): LineSplitter {
    const { spec } = this
    // Linear in the output, with a cap per line: a 50 MB line without a newline is dropped as it grows.
    const sink: LineSink = {
      line: line => this.handleLine(line),
      tooLong: chars => this.noteTooLong(chars)
    }
    if (spec.eventsPath !== undefined) {
      try {
        this.channel = new EventChannel(spec.eventsPath, {
          ...sink,
          overflow: bytes =>
            this.failChannel(`the event channel passed its bound (${bytes} bytes in one run)`)
        })
        this.channel.start(spec.turns ? TURNS_POLL_MS : undefined)
      } catch (error) {
        this.failChannel(`cannot read the event channel ${spec.eventsPath}: ${String(error)}`)
      }
    }
    if (spec.framedEvents === true)
      return new LineSplitter({
        line: line => this.handleFramedLine(line),
        tooLong: chars => this.noteTooLong(chars)
      })
    return new LineSplitter(
      this.channel !== null && spec.stdoutEvents === true
        ? { line: line => this.handleStdoutLine(line), tooLong: () => undefined }
        : sink
    )
  }

  private readOutput(child: ChildProcessWithoutNullStreams, lines: LineSplitter): void {
    const { result } = this
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      result.log.push(chunk)
      // With a channel, stdout is the image's and the libraries' (a banner, notices): the log only, unless a
      // user command reads its protocol lines there too.
      if (this.channel === null || this.spec.stdoutEvents === true) lines.push(chunk)
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      result.log.push(chunk)
      result.stderrTail = (result.stderrTail + chunk).slice(-STDERR_TAIL)
    })
    child.on('error', error => {
      result.spawnError = error.message
    })
  }

  private watchEnd(
    child: ChildProcessWithoutNullStreams,
    lines: LineSplitter,
    resolve: (result: ProcessResult) => void
  ): void {
    // The command itself is over: a child it left behind holding stdout or stderr (a server started with
    // setsid) must not keep the run going until run-timeout. After a short drain of what is in the pipes, the
    // tree (its group, descendants, setsid escapees by the marker) is killed and the pipes closed.
    child.on('exit', () => {
      const drain = setTimeout(() => {
        this.tree.kill('SIGKILL')
        child.stdout.destroy()
        child.stderr.destroy()
      }, EXIT_DRAIN_MS)
      drain.unref()
      child.once('close', () => clearTimeout(drain))
    })
    child.on('close', (code, sig) => {
      if (this.timer) clearTimeout(this.timer)
      this.signal?.removeEventListener('abort', this.onAbort)
      lines.flush()
      this.channel?.close()
      // Whatever the workload left running (a daemon it started) ends with it.
      this.tree.kill('SIGKILL')
      this.tree.release()
      const { result } = this
      result.exitCode = code
      result.signal = sig
      result.endEpochMs = Date.now()
      if (result.releaseEpochMs === 0) result.releaseEpochMs = result.spawnEpochMs
      resolve(result)
    })
  }
}
