/**
 * The one place that turns an outcome into an exit code and a failure reason, for every command: the
 * check (the action and `run` alike), `analyze`, `aggregate`, the driver gate, io-check and the trend.
 * 0 pass (warnings and incomparable allowed; inconclusive unless on-inconclusive is `fail`) · 1 check failed
 * (a regression, a failed gate or I/O rule, an undecided check under on-inconclusive `fail`) · 2 nothing to
 * vouch for (an error without a failed gate: broken environment, nothing measured). An error always fails;
 * fail-on-regression only lets a regression through.
 */
import { decideFailure, failedPreflight } from '../report/index.js'
import type { CheckSummary, OnInconclusive } from '../types/index.js'
import { ExitCode } from '../util/errors.js'

export type Outcome =
  'pass' | 'skip' | 'warn' | 'equivalent' | 'inconclusive' | 'incomparable' | 'regression' | 'fail' | 'error'

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

export interface GateOptions {
  /** false: a regression is reported but exits 0 (default true). */
  failOnRegression?: boolean
  /** `fail`: an undecided check fails the step (exit 1); `pass` and `neutral` (default) exit 0. */
  onInconclusive?: OnInconclusive
  /** A preflight gate (driver gate, I/O rule) failed: an `error` is then a failed check (1), not 2. */
  failedGate?: boolean
}

export function exitCodeFor(outcome: Outcome, options: GateOptions = {}): ExitCodeValue {
  switch (outcome) {
    case 'pass':
    case 'skip':
    case 'warn':
    case 'equivalent':
    case 'incomparable':
      return ExitCode.Pass
    case 'inconclusive':
      return options.onInconclusive === 'fail' ? ExitCode.CheckFailed : ExitCode.Pass
    case 'regression':
      return options.failOnRegression === false ? ExitCode.Pass : ExitCode.CheckFailed
    case 'fail':
      return ExitCode.CheckFailed
    case 'error':
      return options.failedGate ? ExitCode.CheckFailed : ExitCode.UsageOrEnvironment
  }
}

export interface GateOutcome {
  exitCode: ExitCodeValue
  /** One line saying why the step fails; null when it passes. */
  failure: string | null
}

/** Why a check that measured nothing usable ends in `error`, as one line. */
function errorReason(summary: CheckSummary): string {
  const why = summary.incomplete_reason ?? summary.warnings[0] ?? 'the check produced nothing to vouch for'
  return `no verdict (error): ${why.split('\n')[0] ?? why}`
}

/**
 * The check's gate, for the action and the CLI alike. on-inconclusive is the summary's own (the config's),
 * so the exit code, the Check run and the report's first line read the same setting.
 */
export function checkGate(summary: CheckSummary, failOnRegression: boolean): GateOutcome {
  const failedGate = failedPreflight(summary).length > 0
  const onInconclusive = summary.config.on_inconclusive ?? 'neutral'
  const exitCode = exitCodeFor(summary.verdict, { failOnRegression, onInconclusive, failedGate })
  if (exitCode === ExitCode.Pass) return { exitCode, failure: null }
  return { exitCode, failure: decideFailure(summary, true) ?? errorReason(summary) }
}
