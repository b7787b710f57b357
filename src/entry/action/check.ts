/** The action's side of a check: run it, then publish (job summary, outputs, PR comment, artifacts). */
import * as core from '@actions/core'
import * as fs from 'node:fs'
import type { Config } from '../../config/config.js'
import { CheckFailedError } from '../../util/errors.js'
import { runCheck } from '../../check.js'
import { publish } from '../../report/github.js'
import type { Logger } from '../../util/log.js'

/** Action: run, then publish (summary, outputs, comment, artifacts); fail the step when asked. */
export async function runCheckAction(config: Config, logger: Logger): Promise<void> {
  const { summary, markdown } = await runCheck(config, logger)
  const files = [
    summary.paths.results,
    summary.paths.samples,
    summary.paths.report,
    summary.paths.summary,
    summary.paths.telemetry
  ].filter(f => fs.existsSync(f))
  const result = await publish(summary, markdown, {
    token: config.githubToken,
    comment: config.comment,
    failOnRegression: config.failOnRegression,
    files,
    rootDir: config.out
  })
  for (const w of result.warnings) core.warning(w)
  if (result.failure) throw new CheckFailedError(result.failure)
}
