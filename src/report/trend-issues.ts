/**
 * One GitHub issue per open change point of the trend, found again by a hidden marker in its body
 * (never duplicated: an issue for the same series, metric and change, open or closed, is reused), and
 * closed with a comment when a later change point undoes it. Only issues carrying the trend label are
 * read, so a marker pasted elsewhere cannot suppress a report. Every list is paged through tools/github
 * (bounded); every answer is checked before it is trusted.
 */
import { z } from 'zod'
import type { TrendChange, TrendReport, TrendSeries } from '../analyze/index.js'
import { paginate, type GitHubApi } from '../tools/github.js'
import { changeSentence, day, seriesTitle, whereText } from './trend.js'
import { fmtP, fmtPct, fmtValue, inline } from './format.js'
import { plainText, publishMarkdown } from '../util/text.js'
import { tokenLogin } from './comment.js'

export const TREND_LABEL = 'gpu-overhead-trend'
const MARKER_PREFIX = '<!-- gpu-overhead-trend '
const MARKER_RE = /<!-- gpu-overhead-trend (\{[^<>]{1,500}\}) -->/
/** A change point may move by a check or two as more nights arrive; still the same change. */
export const SAME_CHANGE_TOLERANCE = 2

const Marker = z.object({
  v: z.literal(1),
  series: z.string().min(1),
  metric: z.string().min(1),
  at: z.string().min(1),
  up: z.boolean()
})
export type Marker = z.infer<typeof Marker>

const Issue = z.object({
  number: z.number().int().positive(),
  state: z.enum(['open', 'closed']),
  html_url: z.string(),
  body: z.string().nullable().optional(),
  pull_request: z.unknown().optional(),
  user: z.object({ login: z.string() }).nullable().optional()
})

export interface TrackedIssue {
  number: number
  state: 'open' | 'closed'
  url: string
  marker: Marker
}

export interface Repo {
  owner: string
  repo: string
}

export interface IssueSyncResult {
  opened: { number: number; url: string; change: string }[]
  closed: { number: number; url: string; change: string }[]
  /** Open changes that already have an issue (open or closed). */
  tracked: number
}

export function markerOf(s: TrendSeries, c: TrendChange): Marker {
  return { v: 1, series: s.id, metric: s.metric, at: c.check_id, up: c.change_pct > 0 }
}

export function markerText(m: Marker): string {
  // Escaped so a metric name with `-->` or `<` cannot end the hidden comment early; JSON.parse undoes it.
  const json = JSON.stringify(m).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')
  return `${MARKER_PREFIX}${json} -->`
}

export function parseMarker(body: string | null | undefined): Marker | null {
  const json = MARKER_RE.exec(body ?? '')?.[1]
  if (json === undefined) return null
  try {
    const parsed = Marker.safeParse(JSON.parse(json))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** The trend's issues (label-filtered, pull requests left out, unmarked ones ignored). */
export async function listTracked(api: GitHubApi, repo: Repo, author?: string): Promise<TrackedIssue[]> {
  const out: TrackedIssue[] = []
  // Anyone can open an issue with the label and the marker: only the token's own issues are the trend's.
  const by = author ?? (await tokenLogin(api))
  const pages = paginate<unknown>(api, 'GET /repos/{owner}/{repo}/issues', {
    ...repo,
    labels: TREND_LABEL,
    state: 'all'
  })
  for await (const page of pages)
    for (const raw of page) {
      const issue = Issue.safeParse(raw)
      if (!issue.success || issue.data.pull_request !== undefined || issue.data.user?.login !== by) continue
      const marker = parseMarker(issue.data.body)
      if (marker !== null)
        out.push({ number: issue.data.number, state: issue.data.state, url: issue.data.html_url, marker })
    }
  return out
}

/** Does `m` (an issue's marker) name change `c` of series `s`, allowing it to have moved a little? */
export function sameChange(m: Marker, s: TrendSeries, c: TrendChange): boolean {
  if (m.series !== s.id || m.metric !== s.metric || m.up !== c.change_pct > 0) return false
  if (m.at === c.check_id) return true
  const at = s.points.findIndex(p => p.check_id === m.at)
  return at >= 0 && Math.abs(at - c.index) <= SAME_CHANGE_TOLERANCE
}

export function issueTitle(s: TrendSeries, c: TrendChange): string {
  const what = c.direction === 'regression' ? 'slower' : 'changed'
  const title = `GPU trend: ${seriesTitle(s)} ${what} ${fmtPct(c.change_pct)} on ${day(c.time)}`
  return plainText(title, 200)
}

export function issueBody(s: TrendSeries, c: TrendChange, runUrl: string | null): string {
  return [
    markerText(markerOf(s, c)),
    `${inline(changeSentence(s, c))}.`,
    '',
    `- First check of the new level: ${inline(c.check_id)} (${inline(whereText(c))}), ${inline(c.time)}`,
    `- Last check before: ${inline(c.previous.check_id)}${c.previous.commit ? ` (commit ${c.previous.commit.slice(0, 12)})` : ''}`,
    `- What changed in the stack there: ${inline(c.stack_changes.join('; ') || 'nothing recorded (same image digest and driver)')}`,
    `- Before → after: ${fmtValue(c.before, s.unit)} → ${fmtValue(c.after, s.unit)} (${fmtPct(c.change_pct)}; magnitude ${fmtPct(c.magnitude_pct)}), p ${fmtP(c.p)}`,
    `- Series: ${inline(s.key)}`,
    ...(runUrl ? [`- Found by: ${runUrl}`] : []),
    '',
    'Found by e-divisive change-point detection over the accepted nightly checks (`gpu-overhead trend`). ' +
      'This issue is closed automatically when a later change point brings the level back within the minimum change.'
  ].join('\n')
}

function revertComment(s: TrendSeries, c: TrendChange, undo: TrendChange): string {
  return (
    `Reverted: ${inline(seriesTitle(s))} is back to ${fmtValue(undo.after, s.unit)} since ${day(undo.time)} ` +
    `(${inline(whereText(undo))}; ${fmtPct(undo.change_pct)}, p ${fmtP(undo.p)}), within the minimum change of ` +
    `the level before ${day(c.time)} (${fmtValue(c.before, s.unit)}). Closed by the nightly trend.`
  )
}

const Created = z.object({ number: z.number().int().positive(), html_url: z.string() })

/**
 * Open an issue for every open change without one; close the open issues whose change was undone.
 * Changes already undone when first seen get no issue (the report lists them).
 */
export async function syncTrendIssues(
  api: GitHubApi,
  repo: Repo,
  report: TrendReport,
  opts: { runUrl?: string | null } = {}
): Promise<IssueSyncResult> {
  const tracked = await listTracked(api, repo)
  const result: IssueSyncResult = { opened: [], closed: [], tracked: 0 }
  const openIds = new Set(report.open.map(c => c.id))
  for (const s of report.series)
    for (const c of s.changes) {
      const issues = tracked.filter(t => sameChange(t.marker, s, c))
      if (openIds.has(c.id)) {
        if (issues.length > 0) {
          result.tracked++
          continue
        }
        const res = await api.request('POST /repos/{owner}/{repo}/issues', {
          ...repo,
          title: issueTitle(s, c),
          body: publishMarkdown(issueBody(s, c, opts.runUrl ?? null)),
          labels: [TREND_LABEL]
        })
        const made = Created.safeParse(res.data)
        if (!made.success)
          throw new Error('POST /repos/{owner}/{repo}/issues answered without an issue number')
        result.opened.push({ number: made.data.number, url: made.data.html_url, change: c.id })
        tracked.push({
          number: made.data.number,
          state: 'open',
          url: made.data.html_url,
          marker: markerOf(s, c)
        })
        continue
      }
      const undo = c.reverted_by === null ? undefined : s.changes.find(x => x.id === c.reverted_by)
      if (undo === undefined) continue
      for (const t of issues.filter(i => i.state === 'open')) {
        await api.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...repo,
          issue_number: t.number,
          body: publishMarkdown(revertComment(s, c, undo))
        })
        await api.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
          ...repo,
          issue_number: t.number,
          state: 'closed',
          state_reason: 'completed'
        })
        t.state = 'closed'
        result.closed.push({ number: t.number, url: t.url, change: c.id })
      }
    }
  return result
}
