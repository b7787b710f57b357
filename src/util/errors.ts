/** Exit codes everywhere: 0 pass, 1 check failed, 2 bad input or environment error. */
export const ExitCode = { Pass: 0, CheckFailed: 1, UsageOrEnvironment: 2 } as const

/** Longest bad value echoed in a message: a 1 MB value is named by its length, not printed. */
const MAX_SHOWN_CHARS = 200

function shownValue(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    // A circular structure (a YAML anchor that refers to itself) has no JSON form.
    return '(a self-referencing value)'
  }
  return text.length > MAX_SHOWN_CHARS
    ? `${text.slice(0, MAX_SHOWN_CHARS)}… (${text.length} characters)`
    : text
}

/** Bad input: names the input, the bad value and what is allowed. Exit 2. */
export class InputError extends Error {
  readonly exitCode = ExitCode.UsageOrEnvironment
  constructor(
    readonly input: string,
    readonly value: unknown,
    readonly allowed: string
  ) {
    // A missing value is said so, not shown as "got undefined".
    super(
      value === undefined
        ? `input '${input}': none given; allowed: ${allowed}`
        : `input '${input}': got ${shownValue(value)}; allowed: ${allowed}`
    )
    this.name = 'InputError'
  }
}

/** The environment cannot run the check (no docker, no GPU, image missing...). Exit 2. */
export class EnvironmentError extends Error {
  readonly exitCode = ExitCode.UsageOrEnvironment
  constructor(message: string) {
    super(message)
    this.name = 'EnvironmentError'
  }
}

/** A check ran and failed (regression, driver gate, I/O rule). Exit 1. */
export class CheckFailedError extends Error {
  readonly exitCode = ExitCode.CheckFailed
  constructor(message: string) {
    super(message)
    this.name = 'CheckFailedError'
  }
}

export function getErrorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof InputError || error instanceof EnvironmentError || error instanceof CheckFailedError)
    return error.exitCode
  return ExitCode.UsageOrEnvironment
}
