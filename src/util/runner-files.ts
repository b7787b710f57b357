/**
 * The Actions runner's command files (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY). Outputs, state and
 * the job summary go through @actions/core — its random-delimiter key=value blocks (refused when a value
 * holds the delimiter), and what tools that stand in for the runner (@github/local-action) read back. Before
 * the first write, checkRunnerFiles appends nothing to each file through util/safe-fs: a path that is a
 * link, folder, FIFO or device gives one named error instead of core's EISDIR stack trace.
 */
import * as core from '@actions/core'
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
  return true
}

/** Runs one @actions/core write to `variable`'s file; a failure of the file itself is a RunnerFileError. */
function throughCore<T>(variable: RunnerFile, write: () => T): T {
  try {
    return write()
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
