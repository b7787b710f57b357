/**
 * The compact PR comment: what a reviewer decides on, in one screen. The verdict line in plain words, the gated
 * table (whole-process times apart: whole-process.ts), at most three short notes that change what the reader
 * should do (commentNotes), and links to the job summary and the results artifact, which keep everything else:
 * the statistics' terms, the stop rule, parameters, start-up, the stacks (issue 51). Pure.
 */
import type { CheckSummary } from '../types/index.js'
import { redact } from './format.js'
import type { Comparison } from '../types/index.js'
import { armRank } from './arms.js'
import { commentNotes } from './comment-notes.js'
import { comparisonTable } from './comparison-table.js'
import { VERDICT_WORDS } from './format.js'
import type { Section } from './section.js'
import { gatingComparisons } from './verdict.js'
import { verdictSection } from './verdict-section.js'
import { reportSections } from './markdown.js'
import { includesStartup } from './whole-process.js'
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

/** The gated tables alone (their notes are the job summary's), one level down. */
function gatedTables(summary: CheckSummary): string | null {
  const gating = gatingComparisons(summary)
  if (!gating.length) return null
  const table = (list: Comparison[]): string =>
    comparisonTable(list, { armRank: armRank(summary), words: VERDICT_WORDS, holm: false })
  const whole = gating.filter(includesStartup)
  const steady = gating.filter(c => !includesStartup(c))
  return [
    steady.length ? `### Steady-state overhead (gated)\n\n${table(steady)}` : null,
    whole.length ? `### Whole-process time (gated, start-up included)\n\n${table(whole)}` : null
  ]
    .filter((x): x is string => x !== null)
    .join('\n\n')
}

export function buildComment(
  summary: CheckSummary,
  links: CommentLinks,
  secrets: readonly string[] = [],
  sections: readonly Section[] = reportSections(summary)
): string {
  const notes = commentNotes(summary)
  const parts = [
    // The comment has no "why the arms differ" section to jump to: the verdict line links the job summary.
    verdictSection(summary, links.summaryUrl, { brief: true }).body,
    gatedTables(summary),
    notes.length ? notes.map(n => `- ${n}`).join('\n') : null,
    footer(summary, sections, links)
  ].filter((x): x is string => !!x)
  return publishMarkdown(redact(`${parts.join('\n\n')}\n`, secrets))
}
