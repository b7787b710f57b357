/**
 * `mode: analyze`: the analyze command on result files earlier steps of the job wrote (commands/
 * analyze-results.ts), published like a check that ran here (report/github.ts `publish`): the job summary,
 * the outputs, the PR comment, the Check run and the results artifact; the same gate fails the step (a
 * regression unless fail-on-regression is false, an error always, an undecided result under on-inconclusive
 * `fail`). Runs no workload; the trust rules (fork pull requests, the token) are the check's, applied by main.ts.
 */
import type { AnalyzeConfig } from '../../config/index.js'
import { analyzeResultFiles } from '../../commands/analyze-results.js'
import { checkGate } from '../../gate/index.js'
import { buildReport, publish } from '../../report/index.js'
import { CheckFailedError } from '../../util/errors.js'
import { actionsLogger } from '../../util/log.js'

export async function runAnalyzeAction(cfg: AnalyzeConfig, workspace: string): Promise<void> {
  const { summary, written } = await analyzeResultFiles({ cfg, workspace, logger: actionsLogger })
  const secrets = cfg.githubToken ? [cfg.githubToken] : []
  const result = await publish(summary, buildReport(summary, { secrets }), {
    token: cfg.githubToken,
    comment: cfg.comment,
    checkRun: cfg.checkRun,
    failOnRegression: cfg.failOnRegression,
    files: written,
    rootDir: cfg.out
  })
  for (const w of result.warnings) actionsLogger.warn(w)
  const gate = checkGate(summary, cfg.failOnRegression)
  if (gate.failure) throw new CheckFailedError(`analyze: ${gate.failure}`)
}
