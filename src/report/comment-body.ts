/**
 * The compact PR comment: what a reviewer decides on, nothing else. The verdict line, the gated table, the short
 * form of any section that offers one (the explainer's "why the arms differ"), the worst start-up delta in one
 * line, and links to the job summary and the results artifact, which keep the full report. Pure.
 */
import type { CheckSummary } from '../types/index.js'
import { redact } from './format.js'
import { overheadSection } from './overhead-section.js'
import type { Section } from './section.js'
import { verdictSection } from './verdict-section.js'
import { reportSections } from './markdown.js'
import { worstStartupLine } from './startup.js'
import { publishMarkdown } from '../util/text.js'

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

/** Sections shown in the comment itself; every other one is named in the footer as "in the full report". */
const IN_COMMENT = new Set(['verdict', 'overhead'])

function footer(summary: CheckSummary, sections: readonly Section[], links: CommentLinks): string {
  const where = [
    links.summaryUrl ? `[job summary](${links.summaryUrl})` : null,
    links.artifactUrl ? `[results artifact](${links.artifactUrl})` : null
  ].filter((x): x is string => x !== null)
  // Only what this report holds: a CPU check has no telemetry or latency to point at.
  const titles = [
    ...new Set(
      sections
        .filter(s => !IN_COMMENT.has(s.id) && s.kind === 'core' && !s.short)
        .map(s => s.title.replace(/\s*\(.*\)$/, ''))
    )
  ]
  const raw = sections.some(s => s.kind === 'raw' || s.kind === 'chart') ? ['per-run data'] : []
  const what = [...titles, ...raw].join(', ')
  const full = what ? `Full report (${what})` : 'Full report'
  return where.length
    ? `<sub>${full}: ${where.join(' · ')}.</sub>`
    : `<sub>${full}: \`report.md\` in the results folder.</sub>`
}

export function buildComment(
  summary: CheckSummary,
  links: CommentLinks,
  secrets: readonly string[] = [],
  sections: readonly Section[] = reportSections(summary)
): string {
  const shorts = sections.filter(s => s.short).map(s => demote(s.short ?? ''))
  const parts = [
    // The comment has no "why the arms differ" section to jump to: the verdict line links the job summary.
    verdictSection(summary, links.summaryUrl).body,
    demote(overheadSection(summary).body),
    ...shorts,
    worstStartupLine(summary),
    footer(summary, sections, links)
  ].filter((x): x is string => !!x)
  return publishMarkdown(redact(`${parts.join('\n\n')}\n`, secrets))
}
