/**
 * `mode: aggregate`: the fleet job of a matrix. Merges the result folders the measuring legs uploaded
 * (never pooling different fingerprints), writes the report to the job summary, sets the outputs, uploads
 * aggregate.md/json, and fails the step on a regression (fail-on-regression) or when nothing could be vouched for.
 */
import type { AggregateConfig } from '../../config/index.js'
import { Outputs } from '../../types/inputs.js'
import { CheckFailedError, EnvironmentError, ExitCode } from '../../util/errors.js'
import { uploadArtifact, redact, numberOutput, writeJobSummary } from '../../report/index.js'
import { headlineOf } from '../../gate/index.js'
import { aggregateCommand, aggregateExitCode } from '../../commands/aggregate.js'
import { setOutput } from '../../util/runner-files.js'
import { actionsLogger } from '../../util/log.js'

export async function runAggregateAction(cfg: AggregateConfig): Promise<void> {
  for (const d of cfg.skipped)
    actionsLogger.warn(`aggregate: ${d} holds no summary.json (a leg that stopped early?); left out`)
  actionsLogger.info(`aggregate: ${cfg.dirs.length} result folder(s): ${cfg.dirs.join(', ')}`)
  const result = aggregateCommand({
    dirs: cfg.dirs,
    out: cfg.out,
    format: 'md',
    maxOverheadPct: cfg.maxOverheadPct,
    alpha: cfg.alpha,
    seed: cfg.seed
  })
  const worst = headlineOf(result.report.groups.flatMap(g => g.analysis?.comparisons ?? []))
  setOutput(Outputs.Verdict, result.report.verdict)
  setOutput(Outputs.OverheadPct, numberOutput(worst.overhead_pct))
  setOutput(Outputs.PValue, numberOutput(worst.p_value))
  setOutput(Outputs.ReportPath, result.paths.markdown)
  setOutput(Outputs.ResultsPath, cfg.out)
  const notWritten = await writeJobSummary(redact(result.markdown))
  if (notWritten) actionsLogger.warn(notWritten)
  const name = `gpu-overhead-aggregate-${process.env.GITHUB_RUN_ID ?? 'local'}`
  const upload = await uploadArtifact(name, [result.paths.markdown, result.paths.json], cfg.out)
  if (upload.error)
    actionsLogger.warn(`artifact upload failed (the report stays in ${cfg.out}): ${upload.error}`)
  else actionsLogger.info(`artifact ${name} uploaded`)

  const headline = result.markdown.split('\n').find(l => l.trim() !== '') ?? result.report.verdict
  actionsLogger.info(headline)
  const exitCode = aggregateExitCode(result.report, cfg.failOnRegression, cfg.onInconclusive)
  if (exitCode === ExitCode.CheckFailed) throw new CheckFailedError(`fleet: ${headline}`)
  if (exitCode === ExitCode.UsageOrEnvironment) throw new EnvironmentError(`fleet: ${headline}`)
}
