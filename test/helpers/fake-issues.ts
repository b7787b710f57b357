/**
 * A stateful stand-in for GitHub's issues REST endpoints on 127.0.0.1 — the ones the trend uses:
 * list (labels, state, paging with Link headers), create, comment, and update (close). Enough of the
 * real shapes (number, state, html_url, body, labels, pull_request on PRs) for the client to trust it.
 */
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeIssue {
  number: number
  title: string
  body: string
  state: 'open' | 'closed'
  state_reason: string | null
  labels: string[]
  comments: string[]
  /** Set on pull requests, which the issues list also returns. */
  pull_request?: { url: string }
  /** Who opened it; default the workflow token's bot (what POST makes). */
  user?: string
}

export interface FakeIssues {
  url: string
  issues: FakeIssue[]
  requests: { method: string; path: string; authorization: string | undefined }[]
  close(): Promise<void>
}

const PAGE = /^\/repos\/([^/]+)\/([^/]+)\/issues(?:\/(\d+)(\/comments)?)?$/

export async function startFakeIssues(repo: string, opts: { perPage?: number } = {}): Promise<FakeIssues> {
  const issues: FakeIssue[] = []
  const requests: FakeIssues['requests'] = []
  let base = ''
  const json = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {}
  ) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    res.end(JSON.stringify(body))
  }
  const shape = (i: FakeIssue) => ({
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    state_reason: i.state_reason,
    html_url: `https://github.invalid/${repo}/issues/${i.number}`,
    labels: i.labels.map(name => ({ name })),
    user: { login: i.user ?? 'github-actions[bot]' },
    ...(i.pull_request ? { pull_request: i.pull_request } : {})
  })
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x')
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        authorization: req.headers.authorization
      })
      const m = PAGE.exec(url.pathname)
      if (!m || `${m[1]}/${m[2]}` !== repo) return json(res, 404, { message: 'Not Found' })
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {}
      const str = (v: unknown): string => (typeof v === 'string' ? v : '')
      const number = m[3] === undefined ? null : Number(m[3])
      const issue = number === null ? undefined : issues.find(i => i.number === number)
      if (req.method === 'GET' && number === null) {
        const label = url.searchParams.get('labels')
        const state = url.searchParams.get('state') ?? 'open'
        const perPage = opts.perPage ?? Number(url.searchParams.get('per_page') ?? 30)
        const page = Number(url.searchParams.get('page') ?? 1)
        const all = issues
          .filter(i => state === 'all' || i.state === state)
          .filter(i => label === null || label.split(',').every(l => i.labels.includes(l)))
          .sort((a, b) => b.number - a.number)
        const slice = all.slice((page - 1) * perPage, page * perPage)
        const next = new URL(url.pathname + url.search, base)
        next.searchParams.set('page', String(page + 1))
        const link: Record<string, string> =
          page * perPage < all.length ? { link: `<${next.href}>; rel="next"` } : {}
        return json(res, 200, slice.map(shape), link)
      }
      if (req.method === 'POST' && number === null) {
        const created: FakeIssue = {
          number: issues.length + 1,
          title: str(body.title),
          body: str(body.body),
          state: 'open',
          state_reason: null,
          labels: Array.isArray(body.labels) ? body.labels.map(str) : [],
          comments: []
        }
        issues.push(created)
        return json(res, 201, shape(created))
      }
      if (issue === undefined) return json(res, 404, { message: 'Not Found' })
      if (req.method === 'POST' && m[4]) {
        issue.comments.push(str(body.body))
        return json(res, 201, { id: issue.comments.length, html_url: `${base}/c/${issue.comments.length}` })
      }
      if (req.method === 'PATCH' && !m[4]) {
        if (body.state === 'open' || body.state === 'closed') issue.state = body.state
        if (typeof body.state_reason === 'string') issue.state_reason = body.state_reason
        return json(res, 200, shape(issue))
      }
      json(res, 404, { message: 'Not Found' })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: base,
    issues,
    requests,
    close: () => new Promise(resolve => server.close(() => resolve()))
  }
}
