/**
 * Everything that talks to GitHub: outputs, job summary, annotations, the PR comment and the artifact.
 * Nothing here throws for a GitHub-side problem: it becomes a warning, and the report still lands in
 * the job summary.
 */
import { toJson } from '../util/json-intervals.js'
import * as core from '@actions/core'
import type { CheckSummary, CommentMode, TelemetrySample } from '../types/index.js'
import { Outputs } from '../types/inputs.js'
import { apiStatus, createGitHubApi, describeApiError } from '../tools/github.js'
import { getErrorMessage } from '../util/errors.js'
import { uploadArtifact, writePaperCsvs } from './artifacts.js'
import { pullRequestNumber, repository, upsertComment } from './comment.js'
import { redact } from './format.js'
import { annotations, checkRunRequest, createCheckRun, headSha, workflowPath } from './check-run.js'
import { buildComment, runLinks, type CommentLinks } from './comment-body.js'
import { buildReport, reportMarker } from './markdown.js'
import { decideFailure, failedPreflight } from './verdict.js'
import { appendAll } from '../util/arrays.js'
import { appendJobSummary, readEventPayload, setOutput } from '../util/runner-files.js'
import { actionsLogger, annotateLog } from '../util/log.js'
import { MAX_TEXT_CHARS, plainText, publishMarkdown } from '../util/text.js'

/** The runner refuses a job summary over 1 MiB. */
const MAX_SUMMARY_CHARS = 1_000_000

/** GitHub rejects comment bodies longer than this. */
const COMMENT_LIMIT = 65536

const CHECKS_HINT = "give the workflow `permissions: checks: write`, or set `check-run: ''` to create none"

const PERMISSION_HINT =
  'give the workflow `permissions: pull-requests: write` (for comments on issues, `issues: write`)'

export interface PublishOptions {
  token: string | null
  comment: CommentMode
  /** Name of the Check run to create; null = none. */
  checkRun?: string | null
  failOnRegression: boolean
  /** Default: gpu-overhead-<job>-<check id>. */
  artifactName?: string
  /** Files for the artifact (results.jsonl, samples.csv, telemetry.csv, report.md, summary.json), relative to rootDir or absolute. */
  files: string[]
  rootDir: string
  /** Told apart matrix jobs that share a job id: added to the comment marker. */
  commentKey?: string
  /** Raw telemetry, to fill gpu_util_pct of the paper CSV for runs the sampler did not summarise. */
  telemetry?: readonly TelemetrySample[]
}

export interface PublishResult {
  commentUrl: string | null
  checkRunUrl: string | null
  /** Not yet logged: the caller emits each with core.warning. */
  warnings: string[]
  /** Why the step should fail (decideFailure), or null when it passes. */
  failure: string | null
}

export function numberOutput(x: number | null): string {
  return x === null || !Number.isFinite(x) ? '' : String(Number(x.toPrecision(6)))
}

/**
 * Every comparison of the check (arms and stored baseline) as compact JSON, for downstream steps. Only gated
 * (steady) metrics carry a verdict: a derived metric's "regression" (TFLOP/s of a passing check) would read
 * as a failed gate, so those, start-up and info metrics say `shown`.
 */
export function comparisonsOutput(summary: CheckSummary): string {
  const all = [...(summary.analysis?.comparisons ?? []), ...(summary.baseline?.comparisons ?? [])]
  return toJson(
    // The names come from the workload (or a result file): the one sanitiser, like every published text.
    all.map(c => ({
      workload: plainText(c.workload),
      metric: plainText(c.metric),
      ...(c.params === undefined ? {} : { params: plainText(c.params, 4 * MAX_TEXT_CHARS) }),
      baseline: plainText(c.baseline_env),
      candidate: plainText(c.candidate_env),
      direction: c.direction,
      scope: c.scope,
      overhead_pct: (c.undefined_stats ?? []).includes('overhead_pct') ? null : c.overhead_pct,
      ci95: c.ci95,
      p_holm: c.scope === 'steady' ? c.p_adjusted : null,
      verdict: c.scope === 'steady' ? c.verdict : 'shown'
    })),
    0
  ).trimEnd()
}

export function setOutputs(summary: CheckSummary): void {
  setOutput(Outputs.Verdict, summary.verdict)
  setOutput(Outputs.OverheadPct, numberOutput(summary.overhead_pct))
  setOutput(Outputs.PValue, numberOutput(summary.p_value))
  setOutput(Outputs.ReportPath, summary.paths.report)
  setOutput(Outputs.ResultsPath, summary.paths.out)
  setOutput(Outputs.Comparisons, comparisonsOutput(summary))
}

/** Appends markdown to the job summary (through @actions/core); a warning sentence when it could not (never throws). */
export async function writeJobSummary(markdown: string): Promise<string | null> {
  try {
    await appendJobSummary(publishMarkdown(markdown, MAX_SUMMARY_CHARS))
    return null
  } catch (error) {
    return `job summary not written: ${getErrorMessage(error)}`
  }
}

/** Error annotations for what fails the check; warnings for what weakens it (the Check run's list). */
export function annotate(summary: CheckSummary): void {
  for (const a of annotations(summary, workflowPath(process.env)))
    annotateLog(a.annotation_level === 'failure' ? 'error' : 'warning', a.message, a.title)
}

function isFailing(summary: CheckSummary): boolean {
  return summary.verdict === 'regression' || failedPreflight(summary).length > 0
}

/** One line: which call failed, what came back, and for permission answers which permission to grant. */
function apiProblem(error: unknown, issue: number): string {
  const what = `could not comment on PR #${issue}: ${describeApiError(error)}`
  const status = apiStatus(error)
  if (status === 401) return `${what}; the token was rejected`
  if (status === 403 || status === 404)
    return `${what}; ${PERMISSION_HINT}. Forked PRs get a read-only token.`
  return what
}

async function comment(
  summary: CheckSummary,
  links: CommentLinks,
  opts: PublishOptions,
  warn: (m: string) => void
): Promise<string | null> {
  if (opts.comment === 'never') return null
  const issue = pullRequestNumber()
  if (issue === null) {
    actionsLogger.info('PR comment skipped: this run is not for a pull request.')
    return null
  }
  const repo = repository()
  if (!repo) {
    warn('PR comment skipped: GITHUB_REPOSITORY is not set to owner/repo.')
    return null
  }
  if (!opts.token) {
    warn(`PR comment skipped: no GitHub token; pass \`github-token\` and ${PERMISSION_HINT}.`)
    return null
  }
  const create = opts.comment === 'always' || isFailing(summary)
  const job = [process.env.GITHUB_JOB ?? 'job', opts.commentKey].filter(Boolean).join('/')
  const marker = reportMarker(process.env.GITHUB_WORKFLOW ?? 'workflow', job)
  // The compact comment; the job summary and the artifact keep the full report.
  let body = `${marker}\n${buildComment(summary, links, [opts.token])}`
  if (body.length > COMMENT_LIMIT)
    body = `${marker}\n${buildReport(summary, { maxChars: COMMENT_LIMIT - marker.length - 1, secrets: [opts.token] })}`
  try {
    const res = await upsertComment(
      createGitHubApi({ token: opts.token, log: m => actionsLogger.info(m) }),
      { ...repo, issue, marker },
      body,
      create
    )
    if (res.action === 'skipped')
      actionsLogger.info('PR comment skipped: comment mode is on-regression and the check passed.')
    else actionsLogger.info(`PR comment ${res.action}: ${res.url}`)
    return res.url
  } catch (error) {
    warn(apiProblem(error, issue))
    return null
  }
}

/** Uploads the results artifact; its id (for the comment's link), or null when it did not upload. */
async function artifact(
  summary: CheckSummary,
  opts: PublishOptions,
  warn: (m: string) => void
): Promise<number | null> {
  const files = [...opts.files]
  try {
    appendAll(files, writePaperCsvs(summary, opts.rootDir, opts.telemetry))
  } catch (error) {
    warn(`paper CSV not written: ${getErrorMessage(error)}`)
  }
  const name = opts.artifactName ?? `gpu-overhead-${process.env.GITHUB_JOB ?? 'results'}-${summary.check_id}`
  const res = await uploadArtifact(name, files, opts.rootDir)
  if (res.missing.length)
    warn(`artifact: ${res.missing.length} file(s) not found, left out: ${res.missing.join(', ')}`)
  if (res.error) warn(`artifact upload failed (results stay in ${opts.rootDir}): ${res.error}`)
  else actionsLogger.info(`artifact ${name} uploaded (${res.uploaded.length} files)`)
  return res.id
}

/** The event payload of this run (for the PR's head commit); null outside Actions or when unreadable. */
function eventPayload(): unknown {
  const read = readEventPayload()
  return read.ok ? read.value : null
}

async function checkRun(
  summary: CheckSummary,
  report: { compact: string; full: string; links: CommentLinks },
  opts: PublishOptions,
  warn: (m: string) => void
): Promise<string | null> {
  if (!opts.checkRun || process.env.GITHUB_ACTIONS !== 'true') return null
  const repo = repository()
  const sha = headSha(eventPayload(), process.env)
  if (!repo || !sha) {
    warn('check run skipped: GITHUB_REPOSITORY or GITHUB_SHA is not set')
    return null
  }
  if (!opts.token) {
    warn(`check run skipped: no GitHub token; pass \`github-token\` and ${CHECKS_HINT}`)
    return null
  }
  const request = checkRunRequest({
    name: [opts.checkRun, opts.commentKey].filter(Boolean).join(' / '),
    headSha: sha,
    summary,
    compact: report.compact,
    full: report.full,
    detailsUrl: report.links.summaryUrl,
    env: process.env
  })
  try {
    const url = await createCheckRun(
      createGitHubApi({ token: opts.token, log: m => actionsLogger.info(m) }),
      repo,
      request
    )
    actionsLogger.info(`check run "${request.name}" (${request.conclusion}): ${url}`)
    return url
  } catch (error) {
    const status = apiStatus(error)
    const hint = status === 403 || status === 404 ? `; ${CHECKS_HINT}` : ''
    warn(`could not create the check run: ${describeApiError(error)}${hint}`)
    return null
  }
}

/**
 * Publish the report everywhere it goes. Problems on the GitHub side come back as `warnings` (the caller
 * logs them with core.warning, once); `failure` is decideFailure's reason, for the caller to fail the step with.
 */
export async function publish(
  summary: CheckSummary,
  markdown: string,
  opts: PublishOptions
): Promise<PublishResult> {
  const warnings: string[] = []
  const warn = (message: string): void => void warnings.push(message)
  if (opts.token) core.setSecret(opts.token)
  const safe = redact(markdown, opts.token ? [opts.token] : [])

  setOutputs(summary)
  const notWritten = await writeJobSummary(safe)
  if (notWritten) warn(notWritten)
  annotate(summary)

  // The artifact first: the comment links to it.
  const artifactId = await artifact(summary, opts, warn)
  const links = runLinks(process.env, artifactId)
  const commentUrl = await comment(summary, links, opts, warn)
  const compact = buildComment(summary, links, opts.token ? [opts.token] : [])
  const checkRunUrl = await checkRun(summary, { compact, full: safe, links }, opts, warn)

  return { commentUrl, checkRunUrl, warnings, failure: decideFailure(summary, opts.failOnRegression) }
}
