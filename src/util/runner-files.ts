/**
 * The Actions runner's command files (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY), written through
 * util/safe-fs like every other write: appended without following a link, and a path that is a folder,
 * FIFO or device gives one named error instead of an EISDIR stack trace. Outside Actions (variable unset)
 * outputs and state fall back to the workflow-command form on stdout, as @actions/core does.
 */
import * as core from '@actions/core'
import { randomUUID } from 'node:crypto'
import * as os from 'node:os'
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

/** `name<<delimiter` block, the runner's multi-line key=value form (as @actions/core writes it). */
function keyValue(name: string, value: string): string {
  const delimiter = `ghadelimiter_${randomUUID()}`
  return `${name}<<${delimiter}${os.EOL}${value}${os.EOL}${delimiter}${os.EOL}`
}

export function setOutput(name: string, value: string): void {
  if (!appendRunnerFile('GITHUB_OUTPUT', keyValue(name, value))) core.setOutput(name, value)
}

export function saveState(name: string, value: string): void {
  if (!appendRunnerFile('GITHUB_STATE', keyValue(name, value))) core.saveState(name, value)
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
  if (!file) return { ok: false, why: 'unset' }
  try {
    const parsed = parseJsonQuiet(readUntrusted(file, { maxBytes: READ_LIMITS.event }))
    return parsed.ok ? parsed : { ok: false, why: 'unreadable' }
  } catch {
    return { ok: false, why: 'unreadable' }
  }
}
