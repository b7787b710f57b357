/** One PR comment per workflow/job, found by its hidden marker and updated in place. */
import { readFileSync } from 'node:fs'
import type { GitHubClient } from './http.js'

export interface IssueComment {
  id: number
  body?: string | null
  html_url: string
}

export interface CommentTarget {
  owner: string
  repo: string
  issue: number
  /** Hidden marker (reportMarker()) the body starts with. */
  marker: string
}

export type UpsertResult =
  { action: 'created' | 'updated'; url: string; id: number } | { action: 'skipped'; url: null; id: null }

/** The pull request this run is for: pull_request(_target) events, or a comment on a PR. */
export function pullRequestNumber(
  eventPath: string | undefined = process.env.GITHUB_EVENT_PATH
): number | null {
  if (!eventPath) return null
  let event: unknown
  try {
    event = JSON.parse(readFileSync(eventPath, 'utf8'))
  } catch {
    return null
  }
  if (!event || typeof event !== 'object') return null
  const e = event as {
    pull_request?: { number?: unknown }
    issue?: { number?: unknown; pull_request?: unknown }
  }
  const n = e.pull_request?.number ?? (e.issue?.pull_request ? e.issue.number : undefined)
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null
}

/** `owner/repo` from GITHUB_REPOSITORY. */
export function repository(
  value: string | undefined = process.env.GITHUB_REPOSITORY
): { owner: string; repo: string } | null {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(value ?? '')
  return m ? { owner: m[1]!, repo: m[2]! } : null
}

/** Page through the issue's comments for the first one carrying the marker. */
export async function findComment(client: GitHubClient, t: CommentTarget): Promise<IssueComment | null> {
  const path = `/repos/${encodeURIComponent(t.owner)}/${encodeURIComponent(t.repo)}/issues/${t.issue}/comments`
  for await (const page of client.paginate<IssueComment>(path)) {
    const hit = page.find(c => typeof c.body === 'string' && c.body.includes(t.marker))
    if (hit) return hit
  }
  return null
}

/**
 * PATCH the marked comment if there is one, else POST a new one (unless `create` is false, as when
 * comment mode is on-regression and this run is fine: an old comment is still corrected, none is added).
 */
export async function upsertComment(
  client: GitHubClient,
  t: CommentTarget,
  body: string,
  create = true
): Promise<UpsertResult> {
  const full = body.includes(t.marker) ? body : `${t.marker}\n${body}`
  const existing = await findComment(client, t)
  const repoPath = `/repos/${encodeURIComponent(t.owner)}/${encodeURIComponent(t.repo)}`
  if (existing) {
    const res = await client.request<IssueComment>('PATCH', `${repoPath}/issues/comments/${existing.id}`, {
      body: full
    })
    return { action: 'updated', url: res.data.html_url, id: res.data.id }
  }
  if (!create) return { action: 'skipped', url: null, id: null }
  const res = await client.request<IssueComment>('POST', `${repoPath}/issues/${t.issue}/comments`, {
    body: full
  })
  return { action: 'created', url: res.data.html_url, id: res.data.id }
}
