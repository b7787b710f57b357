/**
 * `mode: analyze`: gate on result files earlier steps of the job wrote (any `results-format`), with the
 * same statistics and report as `gpu-overhead analyze`: the report goes to the job summary, the verdict
 * to the outputs, and a regression fails the step (fail-on-regression). Runs no workload. No PR comment
 * or Check run yet: the report is the job summary.
 */
import { actionsLogger } from '../../util/log.js'
import type { AnalyzeConfig } from '../../config/index.js'
import { headlineOf } from '../../gate/index.js'
import { numberOutput, redact, writeJobSummary } from '../../report/index.js'
import { Outputs } from '../../types/inputs.js'
import { CheckFailedError, EnvironmentError, ExitCode } from '../../util/errors.js'
import { setOutput } from '../../util/runner-files.js'
import { analyzeCommand } from '../cli/analyze.js'

export async function runAnalyzeAction(cfg: AnalyzeConfig): Promise<void> {
  actionsLogger.info(`analyze: ${cfg.results.length} ${cfg.format} file(s)`)
  const { analysis, text, exitCode } = await analyzeCommand({
    input: cfg.results,
    formatIn: cfg.format,
    format: 'md',
    maxOverheadPct: cfg.maxOverheadPct,
    alpha: cfg.alpha
  })
  const worst = headlineOf([...analysis.comparisons, ...(analysis.baseline?.comparisons ?? [])])
  const verdict =
    exitCode === ExitCode.Pass ? 'pass' : exitCode === ExitCode.CheckFailed ? 'regression' : 'error'
  setOutput(Outputs.Verdict, verdict)
  setOutput(Outputs.OverheadPct, numberOutput(worst.overhead_pct))
  setOutput(Outputs.PValue, numberOutput(worst.p_value))
  const notWritten = await writeJobSummary(redact(text))
  if (notWritten) actionsLogger.warn(notWritten)
  const headline = text.split('\n').find(l => l.trim() !== '') ?? verdict
  actionsLogger.info(headline)
  if (exitCode === ExitCode.CheckFailed && cfg.failOnRegression)
    throw new CheckFailedError(`analyze: ${headline}`)
  if (exitCode === ExitCode.UsageOrEnvironment)
    throw new EnvironmentError(`analyze: ${analysis.error ?? headline}`)
}
