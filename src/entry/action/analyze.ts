/**
 * `mode: analyze`: gate on result files earlier steps of the job wrote (any `results-format`), with the same
 * statistics as `gpu-overhead analyze` and the same record, report and publishing as a check that ran here
 * (report/github.ts `publish`): the job summary, the outputs, the PR comment, the Check run and the results
 * artifact (report.md, summary.json in `out`); the same gate fails the step (a regression unless
 * fail-on-regression is false, an error always, an undecided result under on-inconclusive `fail`). Runs no
 * workload; the trust rules (fork pull requests, the token) are the check's, applied by main.ts.
 */
import { existsSync } from 'node:fs'
import * as path from 'node:path'
import type { AnalyzeConfig } from '../../config/index.js'
import { assembleResultFilesSummary, checkGate } from '../../gate/index.js'
import { buildReport, publish } from '../../report/index.js'
import { resultPaths } from '../../results/index.js'
import { Inputs } from '../../types/inputs.js'
import { CheckFailedError, InputError } from '../../util/errors.js'
import { newCheckId } from '../../util/cancel.js'
import { actionsLogger } from '../../util/log.js'
import { safeReplace } from '../../util/safe-fs.js'
import { analyzeCommand } from '../cli/analyze.js'
import { redactDeep } from '../../util/secrets.js'

export async function runAnalyzeAction(cfg: AnalyzeConfig, workspace: string): Promise<void> {
  const started = new Date()
  const files = cfg.format === 'csv' ? 1 : cfg.results.length
  actionsLogger.info(`analyze: ${files} ${cfg.format} file(s)`)
  const { analysis, results } = await analyzeCommand({
    input: cfg.results,
    formatIn: cfg.format,
    format: 'md',
    maxOverheadPct: cfg.maxOverheadPct,
    alpha: cfg.alpha,
    onInconclusive: cfg.onInconclusive,
    gateMetrics: cfg.gateMetrics
  })
  const paths = resultPaths(cfg.out)
  // A check step's results folder keeps its own report: never overwritten by this one.
  if (existsSync(paths.results))
    throw new InputError(
      Inputs.Out,
      cfg.out,
      `a folder without a check's results (it holds ${path.basename(paths.results)}): give mode analyze its own out`
    )
  const summary = assembleResultFilesSummary({
    checkId: newCheckId(),
    started,
    analysis,
    results,
    format: cfg.format,
    files,
    onInconclusive: cfg.onInconclusive,
    paths
  })
  const secrets = cfg.githubToken ? [cfg.githubToken] : []
  // The files the artifact carries; the workspace is the trusted root (no link followed on the way).
  const written: string[] = []
  for (const [file, text] of [
    [paths.report, buildReport(summary, { maxChars: Infinity, secrets })],
    [paths.summary, `${JSON.stringify(redactDeep(summary), null, 2)}\n`]
  ] as const) {
    try {
      safeReplace(file, text, { root: workspace })
      written.push(file)
    } catch (error) {
      actionsLogger.warn(
        `${path.basename(file)} not written to ${cfg.out}: ${error instanceof Error ? error.message : String(error)}`
      )
    }
  }
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
