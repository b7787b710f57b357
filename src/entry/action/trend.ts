/**
 * `mode: trend`: change points over the accepted checks kept in the baseline file (no workload runs).
 * Writes OUT/trend.md and OUT/trend.json, the job summary and the outputs (verdict, report-path), opens/closes the
 * tracking issues when `trend-issues` is on, and fails the step on an open change point
 * (fail-on-regression) — or when the issues asked for could not be written: the issue is the
 * notification, so losing it silently is worse than a red nightly.
 */
import { existsSync } from 'node:fs'
import type { TrendConfig } from '../../config/index.js'
import { trendCommand, writeTrendFiles, type TrendCommandResult } from '../../commands/trend.js'
import { redact, repository, syncTrendIssues, writeJobSummary } from '../../report/index.js'
import { createGitHubApi, describeApiError, type GitHubApi } from '../../tools/github.js'
import { Outputs } from '../../types/inputs.js'
import { CheckFailedError, EnvironmentError } from '../../util/errors.js'
import { discardTreeBaseline, fetchBaseline, storePath } from '../../analyze/index.js'
import { setOutput } from '../../util/runner-files.js'
import { actionsLogger } from '../../util/log.js'

/** Runs whose checked-out tree is the repository's own history (their baseline file may be used as is). */
const WRITING_RUN = new Set(['push', 'schedule', 'workflow_dispatch'])

export interface TrendActionDeps {
  /** The GitHub client (tests pass one pointed at a local fake API). */
  api?: (token: string) => GitHubApi
  env?: NodeJS.ProcessEnv
}

function runUrl(env: NodeJS.ProcessEnv): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env
  return server && repo && run ? `${server}/${repo}/actions/runs/${run}` : null
}

/**
 * The history a check step of this job left in the workspace is the newest; without one (a separate
 * job), fetch the file from the baseline branch when there is a token to read it with.
 */
async function fetchWhenMissing(cfg: TrendConfig, api: GitHubApi | null, workspace: string): Promise<void> {
  const repo = repository()
  if (!cfg.baselineBranch) return
  // A check step of this job on a writing run left the newest history; anything else in the tree may be
  // a pull request's own file, never the stored history (fail closed).
  const ownHistory = existsSync(cfg.baselinePath) && WRITING_RUN.has(process.env.GITHUB_EVENT_NAME ?? '')
  if (ownHistory) return
  if (api === null || repo === null) return discardTreeBaseline(cfg.baselinePath)
  const store = { api, ...repo, branch: cfg.baselineBranch, file: storePath(cfg.baselinePath, workspace) }
  try {
    const found = await fetchBaseline(store, cfg.baselinePath, workspace)
    actionsLogger.info(
      found
        ? `baseline fetched from branch ${store.branch} (${store.file})`
        : `no baseline on branch ${store.branch} (${store.file})`
    )
  } catch (error) {
    actionsLogger.warn(`baseline not fetched from branch ${store.branch}: ${describeApiError(error)}`)
  }
}

/** Opens an issue per new change point and closes those reverted; a failure fails the step (the issue is the notice). */
async function syncIssues(
  api: GitHubApi | null,
  env: NodeJS.ProcessEnv,
  result: TrendCommandResult
): Promise<void> {
  const repo = repository(env.GITHUB_REPOSITORY)
  if (repo === null)
    throw new EnvironmentError('trend-issues: GITHUB_REPOSITORY is not owner/name; run inside GitHub Actions')
  // parseTrend refuses trend-issues without a token, so there is always a client here.
  if (api === null) throw new EnvironmentError('trend-issues: no github-token to write issues with')
  try {
    const synced = await syncTrendIssues(api, repo, result.report, { runUrl: runUrl(env) })
    for (const o of synced.opened)
      actionsLogger.info(`trend issue opened: #${o.number} ${o.url} (${o.change})`)
    for (const c of synced.closed) actionsLogger.info(`trend issue closed (reverted): #${c.number} ${c.url}`)
    actionsLogger.info(
      `trend issues: ${synced.opened.length} opened, ${synced.closed.length} closed, ${synced.tracked} already tracked`
    )
  } catch (error) {
    throw new EnvironmentError(
      `trend-issues: ${describeApiError(error)} (give the workflow \`permissions: issues: write\`)`
    )
  }
}

export async function runTrendAction(
  cfg: TrendConfig,
  workspace: string,
  deps: TrendActionDeps = {}
): Promise<void> {
  const env = deps.env ?? process.env
  const api = cfg.token
    ? (deps.api ?? (token => createGitHubApi({ token, log: m => actionsLogger.info(m), env })))(cfg.token)
    : null
  await fetchWhenMissing(cfg, api, workspace)
  const result = await trendCommand({
    baseline: cfg.baselinePath,
    metrics: cfg.metrics,
    format: 'md',
    minChangePct: cfg.minChangePct
  })
  const reportPath = writeTrendFiles({ out: cfg.out, result, root: workspace })
  setOutput(Outputs.Verdict, result.exitCode === 0 ? 'pass' : 'regression')
  setOutput(Outputs.ReportPath, reportPath)
  const notWritten = await writeJobSummary(redact(result.text, cfg.token ? [cfg.token] : []))
  if (notWritten) actionsLogger.warn(notWritten)
  actionsLogger.info(result.reason)
  if (cfg.issues) await syncIssues(api, env, result)
  if (result.exitCode !== 0 && cfg.failOnRegression) throw new CheckFailedError(result.reason)
}
