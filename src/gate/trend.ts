/**
 * The trend's verdict and exit code: an open change point (a regression, or a change of undeclared
 * direction, that no later change point undid) fails; improvements and reverted changes pass.
 */
import type { TrendReport } from '../analyze/index.js'
import { exitCodeFor } from './outcome.js'

export interface TrendVerdict {
  verdict: 'pass' | 'regression'
  exitCode: number
  /** One line for logs and the step's failure message. */
  reason: string
}

export function trendVerdict(report: TrendReport): TrendVerdict {
  const n = report.open.length
  if (n === 0)
    return { verdict: 'pass', exitCode: exitCodeFor('pass'), reason: 'trend: no open change point' }
  return {
    verdict: 'regression',
    exitCode: exitCodeFor('regression'),
    reason: `trend: ${n} open change point${n === 1 ? '' : 's'} (a regression or an undeclared-direction change that no later change undid)`
  }
}
