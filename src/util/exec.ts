/**
 * The one runner for short external calls (docker, podman, nvidia-smi): argument arrays only, never a
 * shell; every call has a time limit, after which the whole process tree is killed (process group,
 * setsid-escaped descendants, marked processes: util/process-tree); output is capped so a chatty or
 * hostile program cannot fill memory. Long-running workloads use execute/process, on the same tree killer.
 */
import { spawn } from 'node:child_process'
import { runtimeClientEnv } from './child-env.js'
import { ProcessTree } from './process-tree.js'

export interface ExecResult {
  exitCode: number
  stdout: string
  stderr: string
  /** True when the time limit ended the call (exitCode is then EXIT_TIMED_OUT). */
  timedOut?: boolean
}

export interface ExecOptions {
  input?: string
  env?: Record<string, string>
  cwd?: string
  /** Kept for callers of the former @actions/exec wrapper; output is never echoed. */
  silent?: boolean
  /** Default DEFAULT_EXEC_TIMEOUT_MS. */
  timeoutMs?: number
  /** Ends the call early (cancel); counts as a timeout. */
  signal?: AbortSignal
}

/** Time limit of a call that names none: long enough for a slow `docker info`, short enough to never block a runner. */
export const DEFAULT_EXEC_TIMEOUT_MS = 120_000
/** Exit status reported for a call that ran past its limit (as coreutils `timeout` does). */
export const EXIT_TIMED_OUT = 124
/** Exit status reported when the program could not be started (as a shell does). */
export const EXIT_NOT_FOUND = 127
/** Per stream: enough for `docker inspect`/`nvidia-smi -q`, bounded against a flood. */
export const MAX_CAPTURE_CHARS = 8 * 1024 * 1024
/** Between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000

function capped(prev: string, chunk: string): string {
  return prev.length >= MAX_CAPTURE_CHARS ? prev : (prev + chunk).slice(0, MAX_CAPTURE_CHARS)
}

/**
 * Run a program with an argument array and capture its output. A missing program resolves with exit code
 * 127, a call past its limit with 124 and `timedOut` (its tree killed): callers never hang and never throw.
 */
export function execCapture(
  tool: string,
  args: readonly string[],
  options: ExecOptions = {}
): Promise<ExecResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS
  const tree = new ProcessTree()
  return new Promise<ExecResult>(resolve => {
    let stdout = ''
    let stderr = ''
    let timedOut = false
    let settled = false
    const child = spawn(tool, [...args], {
      // Never the runner's whole environment (tokens, INPUT_*, secrets in `env:`): the allow-list.
      env: { ...(options.env ?? runtimeClientEnv(process.env)), ...tree.envEntry },
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false
    })
    tree.watch(child.pid)
    const finish = (r: ExecResult): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onLimit)
      // Whatever the program left behind (a setsid'd daemon) goes with it.
      tree.kill('SIGKILL')
      tree.release()
      resolve(r)
    }
    const onLimit = (): void => {
      if (timedOut || settled) return
      timedOut = true
      tree.kill('SIGTERM')
      const hard = setTimeout(() => {
        tree.kill('SIGKILL')
        // A process stuck in the kernel (D state) may never close its pipes: stop waiting for it.
        setTimeout(() => finish(timedOutResult()), KILL_GRACE_MS).unref()
      }, KILL_GRACE_MS)
      hard.unref()
    }
    const timedOutResult = (): ExecResult => ({
      exitCode: EXIT_TIMED_OUT,
      stdout,
      stderr: `${stderr}${stderr && !stderr.endsWith('\n') ? '\n' : ''}${tool} timed out after ${Math.round(timeoutMs / 1000)} s and was killed`,
      timedOut: true
    })
    const timer = setTimeout(onLimit, timeoutMs)
    timer.unref()
    if (options.signal?.aborted) onLimit()
    options.signal?.addEventListener('abort', onLimit, { once: true })
    child.stdout?.setEncoding('utf8')
    child.stderr?.setEncoding('utf8')
    child.stdout?.on('data', (d: string) => (stdout = capped(stdout, d)))
    child.stderr?.on('data', (d: string) => (stderr = capped(stderr, d)))
    if (options.input !== undefined) {
      child.stdin?.on('error', () => undefined)
      child.stdin?.end(options.input)
    }
    child.on('error', error => {
      finish({ exitCode: EXIT_NOT_FOUND, stdout, stderr: `${stderr}${String(error)}` })
    })
    child.on('close', (code, sig) => {
      if (timedOut) return finish(timedOutResult())
      finish({ exitCode: code ?? (sig ? 128 : 1), stdout, stderr })
    })
  })
}
