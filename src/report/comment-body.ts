/**
 * The compact PR comment: what a reviewer decides on, nothing else. The verdict line, the gated table, the short
 * form of any section that offers one (the explainer's "why the arms differ"), the worst start-up delta in one
 * line, and links to the job summary and the results artifact, which keep the full report. Pure.
 */
import type { CheckSummary } from '../types/index.js'
import { redact } from './format.js'
import { overheadSection, verdictSection, type Section } from './sections.js'
import { reportSections } from './markdown.js'
import { worstStartupLine } from './startup.js'

export interface CommentLinks {
  /** The workflow run page, where the job summary (the full report) is shown. */
  summaryUrl: string | null
  /** The results artifact (samples.csv, summary.json, report.md …). */
  artifactUrl: string | null
}

/** Links to this run from the Actions environment; null where a variable is missing (not in Actions). */
export function runLinks(env: NodeJS.ProcessEnv, artifactId: number | null): CommentLinks {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env
  if (!server || !repo || !run || !/^\d+$/.test(run)) return { summaryUrl: null, artifactUrl: null }
  const base = `${server.replace(/\/+$/, '')}/${repo}/actions/runs/${run}`
  const attempt =
    env.GITHUB_RUN_ATTEMPT && /^\d+$/.test(env.GITHUB_RUN_ATTEMPT) ? env.GITHUB_RUN_ATTEMPT : null
  return {
    summaryUrl: attempt ? `${base}/attempts/${attempt}` : base,
    artifactUrl: artifactId === null ? null : `${base}/artifacts/${artifactId}`
  }
}

/** `## Title` → `### Title`: the comment sits under the PR conversation, one level down. */
function demote(markdown: string): string {
  return markdown.replace(/^(#{2,5}) /gm, '#$1 ')
}

function footer(summary: CheckSummary, links: CommentLinks): string {
  const where = [
    links.summaryUrl ? `[job summary](${links.summaryUrl})` : null,
    links.artifactUrl ? `[results artifact](${links.artifactUrl})` : null
  ].filter((x): x is string => x !== null)
  const warnings = summary.warnings.length
    ? `${summary.warnings.length} warning${summary.warnings.length === 1 ? '' : 's'}, `
    : ''
  const what = `${warnings}start-up phases, latency percentiles, telemetry, preflight, environment and raw data`
  return where.length
    ? `<sub>Full report (${what}): ${where.join(' · ')}.</sub>`
    : `<sub>Full report (${what}): \`report.md\` in the results folder.</sub>`
}

export function buildComment(
  summary: CheckSummary,
  links: CommentLinks,
  secrets: readonly string[] = [],
  sections: readonly Section[] = reportSections(summary)
): string {
  const shorts = sections.filter(s => s.short).map(s => demote(s.short ?? ''))
  const parts = [
    verdictSection(summary).body,
    demote(overheadSection(summary).body),
    ...shorts,
    worstStartupLine(summary),
    footer(summary, links)
  ].filter((x): x is string => !!x)
  return redact(`${parts.join('\n\n')}\n`, secrets)
}
