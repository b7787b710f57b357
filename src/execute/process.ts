/**
 * Runs one workload process (native, or the container runtime's client) and streams its JSON-lines
 * events as they arrive. Argument arrays only; the child gets its own process group so a timeout or a
 * cancel can kill the whole tree.
 */
import { spawn } from 'node:child_process'
import type { WorkloadEvent } from '../types/index.js'

export interface ProcessSpec {
  command: string
  args: string[]
  env?: NodeJS.ProcessEnv
  cwd?: string
  timeoutMs: number
  /** Called (best effort) after a timeout or cancel, e.g. `docker kill <name>`. */
  onKill?: () => Promise<void>
}

export interface ProcessResult {
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Epoch ms just before spawn. */
  spawnEpochMs: number
  endEpochMs: number
  events: WorkloadEvent[]
  /** Lines on stdout that were not protocol events (the protocol forbids them). */
  badLines: string[]
  stderrTail: string
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
  'region'
])
const STDERR_TAIL = 4000

export function parseEventLine(line: string): WorkloadEvent | null {
  if (!line.startsWith('{')) return null
  try {
    const obj = JSON.parse(line) as unknown
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null
    const ev = (obj as { event?: unknown }).event
    if (typeof ev !== 'string' || !KNOWN_EVENTS.has(ev)) return null
    if (ev === 'sample') {
      const s = obj as { metric?: unknown; value?: unknown }
      if (typeof s.metric !== 'string' || typeof s.value !== 'number' || !Number.isFinite(s.value))
        return null
    }
    return obj as WorkloadEvent
  } catch {
    return null
  }
}

export async function runProcess(
  spec: ProcessSpec,
  onEvent: (event: WorkloadEvent, epochMs: number) => void,
  signal?: AbortSignal
): Promise<ProcessResult> {
  const result: ProcessResult = {
    exitCode: null,
    signal: null,
    spawnEpochMs: Date.now(),
    endEpochMs: 0,
    events: [],
    badLines: [],
    stderrTail: '',
    timedOut: false,
    cancelled: false,
    spawnError: null
  }
  return new Promise<ProcessResult>(resolve => {
    result.spawnEpochMs = Date.now()
    const child = spawn(spec.command, spec.args, {
      env: spec.env ?? process.env,
      cwd: spec.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false
    })
    let buffer = ''
    let killed = false
    const kill = (why: 'timeout' | 'cancel'): void => {
      if (killed) return
      killed = true
      if (why === 'timeout') result.timedOut = true
      else result.cancelled = true
      const pid = child.pid
      const killGroup = (sig: NodeJS.Signals): void => {
        try {
          if (pid !== undefined) process.kill(-pid, sig)
        } catch {
          /* already gone */
        }
      }
      killGroup('SIGTERM')
      void spec.onKill?.().catch(() => undefined)
      setTimeout(() => killGroup('SIGKILL'), 3000).unref()
    }
    const timer = setTimeout(() => kill('timeout'), spec.timeoutMs)
    timer.unref()
    const onAbort = (): void => kill('cancel')
    if (signal?.aborted) onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })

    const handleLine = (line: string): void => {
      const trimmed = line.trim()
      if (trimmed === '') return
      const event = parseEventLine(trimmed)
      if (event) {
        result.events.push(event)
        onEvent(event, Date.now())
      } else if (result.badLines.length < 50) result.badLines.push(trimmed.slice(0, 300))
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        handleLine(buffer.slice(0, nl))
        buffer = buffer.slice(nl + 1)
      }
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      result.stderrTail = (result.stderrTail + chunk).slice(-STDERR_TAIL)
    })
    child.on('error', error => {
      result.spawnError = error.message
    })
    child.on('close', (code, sig) => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      if (buffer.trim() !== '') handleLine(buffer)
      result.exitCode = code
      result.signal = sig
      result.endEpochMs = Date.now()
      resolve(result)
    })
  })
}
