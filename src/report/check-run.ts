/**
 * A GitHub Check run that carries the verdict: conclusion, the compact report as its summary, the full report as
 * its text, and annotations for what failed. A branch protection rule can require it, so a repository can gate
 * on the verdict while the job itself runs with `fail-on-regression: false`. Building the request is pure;
 * sending it goes through tools/github.
 */
import type { CheckSummary } from '../types/index.js'
import type { GitHubApi } from '../tools/github.js'
import {
  describeComparison,
  failedPreflight,
  gatingComparisons,
  decideFailure,
  verdictLine
} from './verdict.js'
import { fmtP } from './format.js'
import { plainText, publishMarkdown } from '../util/text.js'

/** GitHub's limits on a check run's output. */
const MAX_OUTPUT_CHARS = 65_535
const MAX_ANNOTATIONS = 50
const MAX_TITLE_CHARS = 255
const TRIMMED = '\n\n_… trimmed: the full report is in the job summary and the results artifact._\n'

export type CheckConclusion = 'success' | 'failure' | 'neutral'

export interface CheckAnnotation {
  path: string
  start_line: number
  end_line: number
  annotation_level: 'failure' | 'warning' | 'notice'
  title: string
  message: string
}

export interface CheckRunRequest {
  name: string
  head_sha: string
  status: 'completed'
  conclusion: CheckConclusion
  details_url?: string
  output: { title: string; summary: string; text: string; annotations: CheckAnnotation[] }
}

/**
 * The same rule as the step's failure (regression, failed preflight, undecided under on-inconclusive `fail`),
 * plus: nothing measured never passes, and an undecided check is neutral unless on-inconclusive says `pass`.
 */
export function checkConclusion(summary: CheckSummary): CheckConclusion {
  if (decideFailure(summary, true) !== null || summary.verdict === 'error') return 'failure'
  if (summary.verdict === 'incomparable') return 'neutral'
  if (summary.verdict === 'inconclusive')
    return summary.config.on_inconclusive === 'pass' ? 'success' : 'neutral'
  return 'success'
}

/** The workflow file, where annotations point (`owner/repo/.github/workflows/x.yml@refs/…` → its path). */
export function workflowPath(env: NodeJS.ProcessEnv): string {
  const m = /^[^/]+\/[^/]+\/([^@]+)@/.exec(env.GITHUB_WORKFLOW_REF ?? '')
  return m?.[1] ?? '.github'
}

function clip(text: string, max: number, tail = ''): string {
  return text.length <= max ? text : `${text.slice(0, max - tail.length)}${tail}`
}

/** Annotation messages are plain text: recorded names and messages go through plainText. */
const MAX_MESSAGE_CHARS = 2000

/**
 * What fails the check (regressions, failed preflight) and what weakens it (preflight warnings, a check
 * that stopped early), as annotations: the Check run carries them, and the action logs the same list.
 */
export function annotations(summary: CheckSummary, path: string): CheckAnnotation[] {
  const at = { path, start_line: 1, end_line: 1 }
  const limit = summary.analysis?.max_overhead_pct ?? summary.config.max_overhead_pct
  const fix = (p: { message: string; fix?: string | null }): string =>
    `${p.message}${p.fix ? ` Fix: ${p.fix}` : ''}`
  const list: CheckAnnotation[] = [
    ...gatingComparisons(summary)
      .filter(c => c.verdict === 'regression')
      .map(c => ({
        ...at,
        annotation_level: 'failure' as const,
        title: `Container overhead regression: ${plainText(c.workload, 80)} ${plainText(c.metric, 80)}`,
        message: `${describeComparison(c)} is over the ${limit}% limit (p Holm ${fmtP(c.p_adjusted)}; ${plainText(c.candidate_env, 200)} vs ${plainText(c.baseline_env, 200)}). ${plainText(c.reason)}`
      })),
    ...failedPreflight(summary).map(p => ({
      ...at,
      annotation_level: 'failure' as const,
      title: `Preflight failed: ${plainText(p.name, 100)}`,
      message: plainText(fix(p), MAX_MESSAGE_CHARS)
    })),
    ...summary.preflight
      .filter(p => p.status === 'warn')
      .map(p => ({
        ...at,
        annotation_level: 'warning' as const,
        title: `Preflight warning: ${plainText(p.name, 100)}`,
        message: plainText(fix(p), MAX_MESSAGE_CHARS)
      })),
    ...(summary.complete
      ? []
      : [
          {
            ...at,
            annotation_level: 'warning' as const,
            title: 'Overhead check incomplete',
            message: plainText(summary.incomplete_reason ?? 'the check stopped early', MAX_MESSAGE_CHARS)
          }
        ])
  ]
  return list.slice(0, MAX_ANNOTATIONS).map(a => ({ ...a, title: clip(a.title, MAX_TITLE_CHARS) }))
}

/**
 * The check's title: GitHub shows it as plain text, so the verdict line without its markdown (emphasis, code
 * spans, links kept as their text, escapes, HTML entities), and, where too long, cut at a word with "…".
 */
export function checkTitle(summary: CheckSummary): string {
  const text = plainText(verdictLine(summary, null), 4 * MAX_TITLE_CHARS)
    .replace(/\[((?:\\.|[^\]\\])*)\]\([^)\s]*\)/g, '$1')
    .replace(/\*\*|`/g, '')
    .replace(/\\([\\`*_{}[\]()#+.!|-])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
  if (text.length <= MAX_TITLE_CHARS) return text
  const cut = text.slice(0, MAX_TITLE_CHARS - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:·—-]+$/, '')}…`
}

export function checkRunRequest(args: {
  name: string
  headSha: string
  summary: CheckSummary
  compact: string
  full: string
  detailsUrl: string | null
  env: NodeJS.ProcessEnv
}): CheckRunRequest {
  return {
    name: args.name,
    head_sha: args.headSha,
    status: 'completed',
    conclusion: checkConclusion(args.summary),
    ...(args.detailsUrl ? { details_url: args.detailsUrl } : {}),
    output: {
      title: checkTitle(args.summary),
      summary: clip(publishMarkdown(args.compact), MAX_OUTPUT_CHARS, TRIMMED),
      text: clip(publishMarkdown(args.full), MAX_OUTPUT_CHARS, TRIMMED),
      annotations: annotations(args.summary, workflowPath(args.env))
    }
  }
}

/** The commit the check belongs to: a PR's head (GITHUB_SHA is the merge commit there), else GITHUB_SHA. */
export function headSha(event: unknown, env: NodeJS.ProcessEnv): string | null {
  const head = (event as { pull_request?: { head?: { sha?: unknown } } } | null)?.pull_request?.head?.sha
  const sha = typeof head === 'string' ? head : env.GITHUB_SHA
  return sha && /^[0-9a-f]{40}$/i.test(sha) ? sha : null
}

/** POSTs the check run; returns its page. Throws what tools/github throws (the caller turns it into a warning). */
export async function createCheckRun(
  api: GitHubApi,
  repo: { owner: string; repo: string },
  request: CheckRunRequest
): Promise<string> {
  const route = 'POST /repos/{owner}/{repo}/check-runs'
  const res = await api.request(route, { ...repo, ...request })
  const url = (res.data as { html_url?: unknown }).html_url
  if (typeof url !== 'string' || !url) throw new Error(`${route} answered without a check run (html_url)`)
  return url
}
