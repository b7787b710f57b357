/** One PR comment per workflow/job, found by its hidden marker and updated in place. */
import { readEventPayload } from '../util/runner-files.js'
import { z } from 'zod'
import { paginate, type GitHubApi } from '../tools/github.js'
import { publishMarkdown } from '../util/text.js'

export interface IssueComment {
  id: number
  body?: string | null
  html_url: string
  user?: { login?: unknown } | null
}

/** Who posts with the workflow's own GITHUB_TOKEN. */
export const ACTIONS_BOT = 'github-actions[bot]'

/**
 * The login the token comments as: `GET /user` answers for a personal token; the workflow's GITHUB_TOKEN
 * (and an app's) cannot ask, and comments as github-actions[bot].
 */
export async function tokenLogin(api: GitHubApi): Promise<string> {
  try {
    const login = ((await api.request('GET /user', {})).data as { login?: unknown } | null)?.login
    if (typeof login === 'string' && login !== '') return login
  } catch {
    // 403 for an installation token: the Actions bot.
  }
  return ACTIONS_BOT
}

export interface CommentTarget {
  owner: string
  repo: string
  issue: number
  /** Hidden marker (reportMarker()) the body starts with. */
  marker: string
  /** Only a comment by this login is ours (default: tokenLogin): anyone can post the marker. */
  author?: string
}

export type UpsertResult =
  { action: 'created' | 'updated'; url: string; id: number } | { action: 'skipped'; url: null; id: null }

/** The pull request this run is for: pull_request(_target) events, or a comment on a PR. */
export function pullRequestNumber(
  eventPath: string | undefined = process.env.GITHUB_EVENT_PATH
): number | null {
  const read = readEventPayload({ GITHUB_EVENT_PATH: eventPath })
  const event = read.ok ? read.value : null
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
  const owner = m?.[1]
  const repo = m?.[2]
  return owner !== undefined && repo !== undefined ? { owner, repo } : null
}

/** A comment of a listing, as far as it is read. */
const ListedComment = z.object({
  id: z.number().int(),
  body: z.string().nullable().optional(),
  html_url: z.string(),
  user: z.object({ login: z.unknown() }).nullable().optional()
})

/** What a created or updated comment must look like; anything else (a proxy's HTML page) is named, not trusted. */
const CommentAnswer = z.object({ id: z.number().int(), html_url: z.string().min(1) })

function commentFrom(call: string, data: unknown): { id: number; html_url: string } {
  const parsed = CommentAnswer.safeParse(data)
  if (parsed.success) return parsed.data
  const shown = typeof data === 'string' ? data.slice(0, 80) : JSON.stringify(data)?.slice(0, 80)
  throw new Error(`${call} answered without a comment (id, html_url): ${shown ?? 'nothing'}`)
}

/** Page through the issue's comments (bounded: tools/github paginate) for the first one carrying the marker. */
export async function findComment(api: GitHubApi, t: CommentTarget): Promise<IssueComment | null> {
  const pages = paginate<unknown>(api, 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    owner: t.owner,
    repo: t.repo,
    issue_number: t.issue
  })
  const author = t.author ?? (await tokenLogin(api))
  for await (const page of pages)
    for (const raw of page) {
      // Each item checked for the fields read: a malformed one (null, a number, an id that is no number) is
      // nobody's comment of ours, never a TypeError.
      const c = ListedComment.safeParse(raw)
      if (
        c.success &&
        typeof c.data.body === 'string' &&
        c.data.body.includes(t.marker) &&
        c.data.user?.login === author
      )
        return c.data
    }
  return null
}

/**
 * PATCH the marked comment if there is one, else POST a new one (unless `create` is false, as when
 * comment mode is on-regression and this run is fine: an old comment is still corrected, none is added).
 */
export async function upsertComment(
  api: GitHubApi,
  t: CommentTarget,
  body: string,
  create = true
): Promise<UpsertResult> {
  const full = publishMarkdown(body.includes(t.marker) ? body : `${t.marker}\n${body}`)
  const existing = await findComment(api, t)
  if (existing) {
    const route = 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}'
    const res = await api.request(route, {
      owner: t.owner,
      repo: t.repo,
      comment_id: existing.id,
      body: full
    })
    const c = commentFrom(route, res.data)
    return { action: 'updated', url: c.html_url, id: c.id }
  }
  if (!create) return { action: 'skipped', url: null, id: null }
  const route = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments'
  const res = await api.request(route, { owner: t.owner, repo: t.repo, issue_number: t.issue, body: full })
  const c = commentFrom(route, res.data)
  return { action: 'created', url: c.html_url, id: c.id }
}
