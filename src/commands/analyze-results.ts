/**
 * `mode: analyze`: gate on result files earlier steps of the job wrote, with the same statistics as
 * `gpu-overhead analyze`, recorded like a check that ran here: a summary (gate/ assembles it) and the
 * results artifact's files (report.md, summary.json in `out`). Publishing is the action's (entry/action).
 */
import { toJson } from '../util/json-intervals.js'
import { existsSync } from 'node:fs'
import * as path from 'node:path'
import type { AnalyzeConfig } from '../config/index.js'
import { assembleResultFilesSummary } from '../gate/index.js'
import { buildReport } from '../report/index.js'
import { resultPaths } from '../results/index.js'
import { Inputs } from '../types/inputs.js'
import type { CheckSummary } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { newCheckId } from '../util/cancel.js'
import type { Logger } from '../util/log.js'
import { safeReplace } from '../util/safe-fs.js'
import { redactDeep } from '../util/secrets.js'
import { analyzeCommand } from './analyze.js'

export interface AnalyzeResultsOptions {
  cfg: AnalyzeConfig
  /** The trusted root: no link is followed on the way to the files written. */
  workspace: string
  logger: Logger
}

export interface AnalyzeResults {
  summary: CheckSummary
  /** The files written (report.md, summary.json): what the artifact carries. */
  written: string[]
}

export async function analyzeResultFiles({
  cfg,
  workspace,
  logger
}: AnalyzeResultsOptions): Promise<AnalyzeResults> {
  const started = new Date()
  const files = cfg.format === 'csv' ? 1 : cfg.results.length
  logger.info(`analyze: ${files} ${cfg.format} file(s)`)
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
    paths,
    gateMetrics: cfg.gateMetrics
  })
  const secrets = cfg.githubToken ? [cfg.githubToken] : []
  const written: string[] = []
  for (const [file, text] of [
    [paths.report, buildReport(summary, { maxChars: Infinity, secrets })],
    [paths.summary, toJson(redactDeep(summary))]
  ] as const) {
    try {
      safeReplace(file, text, { root: workspace })
      written.push(file)
    } catch (error) {
      logger.warn(
        `${path.basename(file)} not written to ${cfg.out}: ${error instanceof Error ? error.message : String(error)}`
      )
    }
  }
  return { summary, written }
}
