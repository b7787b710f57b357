/**
 * The Actions runner's command files (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY). Outputs, state and
 * the job summary go through @actions/core — its random-delimiter key=value blocks (refused when a value
 * holds the delimiter), and what tools that stand in for the runner (@github/local-action) read back. Before
 * the first write, checkRunnerFiles appends nothing to each file through util/safe-fs: a path that is a
 * link, folder, FIFO or device gives one named error instead of core's EISDIR stack trace.
 */
import * as core from '@actions/core'
import * as fs from 'node:fs'
import { refusedEventPath } from './event-path-guard.js'
import { READ_LIMITS, UnsafePathError, parseJsonQuiet, readUntrusted, safeAppend } from './safe-fs.js'

export const RUNNER_FILES = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const
export type RunnerFile = (typeof RUNNER_FILES)[number]

export class RunnerFileError extends Error {
  constructor(
    readonly variable: RunnerFile,
    readonly file: string,
    why: string
  ) {
    super(`${variable} (${file}) cannot be written: ${why}; it must be a regular file the runner created`)
    this.name = 'RunnerFileError'
  }
}

function describe(error: unknown): string {
  if (error instanceof UnsafePathError) return error.reason
  const e = error as NodeJS.ErrnoException
  if (e?.code === 'EISDIR') return 'it is a folder'
  return e?.code ?? (error instanceof Error ? error.message : String(error))
}

/** Appends to the runner file named by `variable`; false when the variable is unset. Throws RunnerFileError. */
export function appendRunnerFile(
  variable: RunnerFile,
  text: string,
  env: NodeJS.ProcessEnv = process.env
): boolean {
  const file = env[variable]
  if (!file) return false
  try {
    safeAppend(file, text)
  } catch (error) {
    throw new RunnerFileError(variable, file, describe(error))
  }
  remember(variable, env)
  return true
}

/** Runs one @actions/core write to `variable`'s file; a failure of the file itself is a RunnerFileError. */
function throughCore<T>(variable: RunnerFile, write: () => T): T {
  try {
    const r = write()
    remember(variable)
    return r
  } catch (error) {
    const file = process.env[variable]
    const code = (error as NodeJS.ErrnoException)?.code
    if (file && typeof code === 'string') throw new RunnerFileError(variable, file, describe(error))
    throw error
  }
}

export function setOutput(name: string, value: string): void {
  throughCore('GITHUB_OUTPUT', () => core.setOutput(name, value))
}

export function saveState(name: string, value: string): void {
  throughCore('GITHUB_STATE', () => core.saveState(name, value))
}

/** Appends markdown to the job summary through core.summary; throws when there is none (outside Actions). */
export async function appendJobSummary(markdown: string): Promise<void> {
  // core caches the summary path on first use: checked here, so outside Actions says so plainly.
  if (!process.env.GITHUB_STEP_SUMMARY)
    throw new Error('GITHUB_STEP_SUMMARY is not set (not running in GitHub Actions)')
  appendRunnerFile('GITHUB_STEP_SUMMARY', '')
  await core.summary.emptyBuffer().addRaw(markdown, !markdown.endsWith('\n')).write()
  remember('GITHUB_STEP_SUMMARY')
}

/**
 * Every file command of the step. A native command runs as the runner's user and can find them (listing the
 * runner's _temp/_runner_file_commands) and append to them: `NODE_OPTIONS=--require …` in GITHUB_ENV runs its
 * code in every later step of the job, a line in GITHUB_OUTPUT forges this step's verdict, one in GITHUB_STATE
 * reaches the post step. The action writes none but through this module, so each file's content after the
 * action's own last write is known; anything else found at the end is put back and fails the step.
 */
export const WATCHED_FILES = ['GITHUB_ENV', 'GITHUB_PATH', ...RUNNER_FILES] as const
type WatchedFile = (typeof WATCHED_FILES)[number]
/** Larger than any the action writes (the job summary is capped at 1 MiB); a larger one cannot be kept. */
const MAX_WATCHED_BYTES = 16 * 1024 * 1024
/** The content of each watched file as the action last left it; null: it could not be read as a regular file. */
const known = new Map<WatchedFile, Buffer | null>()

/** The whole file, without following a link or waiting on a FIFO; null when it is not a bounded regular file. */
function readWatched(file: string): Buffer | null {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile() || st.size > MAX_WATCHED_BYTES) return null
    const buf = Buffer.alloc(st.size)
    let at = 0
    while (at < st.size) {
      const n = fs.readSync(fd, buf, at, st.size - at, at)
      if (n === 0) break
      at += n
    }
    return buf.subarray(0, at)
  } finally {
    fs.closeSync(fd)
  }
}

function remember(variable: string, env: NodeJS.ProcessEnv = process.env): void {
  const v = variable as WatchedFile
  const file = env[v]
  if (known.has(v) && file) known.set(v, readWatched(file))
}

/** Records each file command's content now; restoreRunnerFiles compares against it (and the action's writes). */
export function watchRunnerFiles(env: NodeJS.ProcessEnv = process.env): void {
  known.clear()
  for (const v of WATCHED_FILES) {
    const file = env[v]
    if (file) known.set(v, readWatched(file))
  }
}

/**
 * The watched files something else changed since the action's last write, each put back as the action left
 * it (truncated and rewritten through a descriptor opened without following links). Returns their messages.
 */
export function restoreRunnerFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const changed: string[] = []
  for (const [v, before] of known) {
    const file = env[v]
    if (!file || before === null) continue
    const now = readWatched(file)
    if (now !== null && now.equals(before)) continue
    let how = 'put back as the action left it'
    try {
      const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
      try {
        if (!fs.fstatSync(fd).isFile()) throw new Error('not a regular file')
        fs.ftruncateSync(fd, 0)
        fs.writeSync(fd, before, 0, before.length, 0)
      } finally {
        fs.closeSync(fd)
      }
    } catch (error) {
      how = `could not be put back (${describe(error)})`
    }
    changed.push(
      `${v} (${file}) was changed by something other than the action while it ran — a command of the pull request can find it in the runner's _temp folder — and was ${how}; see docs/security.md, "What a native command can reach"`
    )
  }
  known.clear()
  return changed
}

/** Checks every runner file up front, so a bad one fails the step before anything runs. */
export function checkRunnerFiles(env: NodeJS.ProcessEnv = process.env): void {
  for (const v of RUNNER_FILES) appendRunnerFile(v, '', env)
}

/**
 * The run's event payload (GITHUB_EVENT_PATH): opened non-blocking as a regular file of bounded size
 * (a FIFO or a device is refused at once, never waited on), parsed without quoting it. `unset` outside
 * Actions; `unreadable` for anything else that is not a JSON file.
 */
export function readEventPayload(
  env: NodeJS.ProcessEnv = process.env
): { ok: true; value: unknown } | { ok: false; why: 'unset' | 'unreadable' } {
  const file = env.GITHUB_EVENT_PATH
  // Taken out at start-up because it was a FIFO, a device or too large (util/event-path-guard.ts).
  if (!file)
    return { ok: false, why: env === process.env && refusedEventPath() !== null ? 'unreadable' : 'unset' }
  try {
    const parsed = parseJsonQuiet(readUntrusted(file, { maxBytes: READ_LIMITS.event }))
    return parsed.ok ? parsed : { ok: false, why: 'unreadable' }
  } catch {
    return { ok: false, why: 'unreadable' }
  }
}
