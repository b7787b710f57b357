/**
 * `mode: trend`: change points over the accepted checks kept in the baseline file (no workload runs).
 * Writes the report to the job summary and OUT-less outputs (verdict, report-path), opens/closes the
 * tracking issues when `trend-issues` is on, and fails the step on an open change point
 * (fail-on-regression) — or when the issues asked for could not be written: the issue is the
 * notification, so losing it silently is worse than a red nightly.
 */
import * as core from '@actions/core'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { TrendConfig } from '../../config/config.js'
import { repository } from '../../report/index.js'
import { redact } from '../../report/index.js'
import { writeJobSummary } from '../../report/index.js'
import { syncTrendIssues } from '../../report/index.js'
import { createGitHubApi, describeApiError, type GitHubApi } from '../../tools/github.js'
import { Outputs } from '../../types/inputs.js'
import { CheckFailedError, EnvironmentError } from '../../util/errors.js'
import { trendCommand } from '../cli/trend.js'

export interface TrendActionDeps {
  /** The GitHub client (tests pass one pointed at a local fake API). */
  api?: (token: string) => GitHubApi
  env?: NodeJS.ProcessEnv
}

function runUrl(env: NodeJS.ProcessEnv): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env
  return server && repo && run ? `${server}/${repo}/actions/runs/${run}` : null
}

export async function runTrendAction(cfg: TrendConfig, deps: TrendActionDeps = {}): Promise<void> {
  const env = deps.env ?? process.env
  const result = await trendCommand({
    baseline: cfg.baselinePath,
    metrics: cfg.metrics,
    format: 'md',
    minChangePct: cfg.minChangePct
  })
  const reportPath = path.join(path.dirname(cfg.baselinePath), 'trend.md')
  mkdirSync(path.dirname(reportPath), { recursive: true })
  writeFileSync(reportPath, result.text)
  core.setOutput(Outputs.Verdict, result.exitCode === 0 ? 'pass' : 'regression')
  core.setOutput(Outputs.ReportPath, reportPath)
  const notWritten = await writeJobSummary(redact(result.text, cfg.token ? [cfg.token] : []))
  if (notWritten) core.warning(notWritten)
  core.info(result.reason)
  if (cfg.issues) {
    const repo = repository(env.GITHUB_REPOSITORY)
    if (repo === null)
      throw new EnvironmentError(
        'trend-issues: GITHUB_REPOSITORY is not owner/name; run inside GitHub Actions'
      )
    const api = (deps.api ?? (token => createGitHubApi({ token, log: core.info, env })))(cfg.token!)
    try {
      const synced = await syncTrendIssues(api, repo, result.report, { runUrl: runUrl(env) })
      for (const o of synced.opened) core.info(`trend issue opened: #${o.number} ${o.url} (${o.change})`)
      for (const c of synced.closed) core.info(`trend issue closed (reverted): #${c.number} ${c.url}`)
      core.info(
        `trend issues: ${synced.opened.length} opened, ${synced.closed.length} closed, ${synced.tracked} already tracked`
      )
    } catch (error) {
      throw new EnvironmentError(
        `trend-issues: ${describeApiError(error)} (give the workflow \`permissions: issues: write\`)`
      )
    }
  }
  if (result.exitCode !== 0 && cfg.failOnRegression) throw new CheckFailedError(result.reason)
}
