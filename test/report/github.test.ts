/**
 * GitHub integration against a local HTTP server standing in for the REST API (GITHUB_API_URL),
 * with the real @actions/core writing to temporary GITHUB_STEP_SUMMARY / GITHUB_OUTPUT files and the
 * real artifact client (which fails here: no ACTIONS_RUNTIME_TOKEN outside Actions).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { findComment, pullRequestNumber, upsertComment } from '../../src/report/comment.js'
import { publish } from '../../src/report/github.js'
import type { PublishOptions } from '../../src/report/github.js'
import { createGitHubApi, setApiPacing } from '../../src/tools/github.js'
import { REPORT_MARKER, buildReport, reportMarker } from '../../src/report/markdown.js'
import { pass, regression } from '../__fixtures__/summaries/index.js'

interface Comment {
  id: number
  body: string
  html_url: string
  user: { login: string }
}
interface Seen {
  method: string
  url: string
  auth: string | undefined
  body: { body?: string } | null
}

/** Just enough of the issues-comments API: list (paged with Link headers), create, update. */
class FakeGitHub {
  comments: Comment[] = []
  requests: Seen[] = []
  failWith: number | null = null
  /** A 201 whose body is not JSON (as a misbehaving proxy answers). */
  postRaw: string | null = null
  checkRuns: Record<string, unknown>[] = []
  /** Status of POST /check-runs when not 201 (e.g. 403: the token lacks checks: write). */
  checkRunStatus = 201
  /** Says whether this POST fails with a 502 (the retry test). */
  failOnce: () => boolean = () => false
  nextLink: string | null = null
  private server = http.createServer((req, res) => void this.handle(req, res))
  private nextId = 1000

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }
  async start(): Promise<void> {
    await new Promise<void>(resolve => this.server.listen(0, '127.0.0.1', resolve))
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }
  reset(): void {
    this.comments = []
    this.requests = []
    this.failWith = null
    this.postRaw = null
    this.failOnce = () => false
    this.checkRuns = []
    this.checkRunStatus = 201
    this.nextLink = null
  }
  /** A comment by `login` (default: the bot the workflow's GITHUB_TOKEN posts as). */
  add(body: string, login = 'github-actions[bot]'): Comment {
    const c = { id: this.nextId++, body, html_url: '', user: { login } }
    c.html_url = `https://github.com/o/r/pull/7#issuecomment-${c.id}`
    this.comments.push(c)
    return c
  }
  count(method: string): number {
    return this.requests.filter(r => r.method === method).length
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = ''
    for await (const chunk of req) raw += String(chunk)
    const url = new URL(req.url ?? '/', this.base)
    this.requests.push({
      method: req.method ?? '',
      url: url.pathname + url.search,
      auth: req.headers.authorization,
      body: raw ? JSON.parse(raw) : null
    })
    const send = (status: number, data: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(data))
    }
    if (this.failWith) return send(this.failWith, { message: 'Resource not accessible by integration' })
    if (req.method === 'POST' && this.failOnce()) return send(502, { message: 'Bad Gateway' })
    if (url.pathname === '/repos/o/r/check-runs' && req.method === 'POST') {
      if (this.checkRunStatus !== 201)
        return send(this.checkRunStatus, { message: 'Resource not accessible by integration' })
      this.checkRuns.push(JSON.parse(raw) as Record<string, unknown>)
      return send(201, { id: 1, html_url: 'https://github.com/o/r/runs/1' })
    }
    const list = /^\/repos\/o\/r\/issues\/7\/comments$/.exec(url.pathname)
    const one = /^\/repos\/o\/r\/issues\/comments\/(\d+)$/.exec(url.pathname)
    if (list && req.method === 'GET') {
      const per = Number(url.searchParams.get('per_page') ?? 30)
      const page = Number(url.searchParams.get('page') ?? 1)
      const slice = this.comments.slice((page - 1) * per, page * per)
      const more = page * per < this.comments.length
      const link =
        this.nextLink ?? `${this.base}/repos/o/r/issues/7/comments?per_page=${per}&page=${page + 1}`
      return send(
        200,
        slice,
        more ? { link: `<${link}>; rel="next", <${this.base}/x?page=9>; rel="last"` } : {}
      )
    }
    if (list && req.method === 'POST' && this.postRaw !== null) {
      res.writeHead(201, { 'content-type': 'text/html' })
      res.end(this.postRaw)
      return
    }
    if (list && req.method === 'POST')
      return send(201, this.add(raw ? (JSON.parse(raw) as { body: string }).body : ''))
    if (one && req.method === 'PATCH') {
      const c = this.comments.find(x => x.id === Number(one[1]))
      if (!c) return send(404, { message: 'Not Found' })
      c.body = (JSON.parse(raw) as { body: string }).body
      return send(200, c)
    }
    send(404, { message: 'Not Found' })
  }
}

const gh = new FakeGitHub()
const TOKEN = 'ghs_' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa'
let dir: string
// @actions/core caches the GITHUB_STEP_SUMMARY path on first use: one file for the whole suite.
const shared = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-summary-'))
const stepSummary = path.join(shared, 'step-summary.md')
let stdout: string[] = []
const realWrite = process.stdout.write.bind(process.stdout)
const savedEnv = { ...process.env }

function env(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
}

function event(data: unknown): string {
  const file = path.join(dir, `event-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(file, JSON.stringify(data))
  return file
}

function opts(over: Partial<PublishOptions> = {}): PublishOptions {
  return {
    token: TOKEN,
    comment: 'always',
    failOnRegression: true,
    files: ['summary.json', 'report.md', 'missing.csv'],
    rootDir: dir,
    ...over
  }
}

beforeAll(async () => {
  // The real client's retry backoff and write spacing, in milliseconds (the fake API has no quota to respect).
  setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 1 })
  await gh.start()
})
afterAll(async () => {
  await gh.stop()
  rmSync(shared, { recursive: true, force: true })
})

beforeEach(() => {
  gh.reset()
  dir = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-report-'))
  writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(pass))
  writeFileSync(path.join(dir, 'report.md'), buildReport(pass))
  writeFileSync(stepSummary, '')
  writeFileSync(path.join(dir, 'output.txt'), '')
  env({
    GITHUB_API_URL: gh.base,
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_WORKFLOW: 'GPU overhead',
    GITHUB_JOB: 'check',
    GITHUB_EVENT_PATH: event({ pull_request: { number: 7 } }),
    GITHUB_STEP_SUMMARY: stepSummary,
    GITHUB_OUTPUT: path.join(dir, 'output.txt'),
    ACTIONS_RUNTIME_TOKEN: undefined,
    ACTIONS_RESULTS_URL: undefined
  })
  stdout = []
  // Keep workflow commands (::warning:: …) out of the test log, and look at them.
  const capture = (chunk: string | Uint8Array): boolean => {
    stdout.push(String(chunk))
    return true
  }
  process.stdout.write = capture
})

afterEach(() => {
  process.stdout.write = realWrite
  process.exitCode = undefined
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k]
  Object.assign(process.env, savedEnv)
  rmSync(dir, { recursive: true, force: true })
})

const marker = reportMarker('GPU overhead', 'check')

describe('PR comment upsert', () => {
  test('first publish creates the comment, the second updates the same one', async () => {
    const md = buildReport(pass)
    const first = await publish(pass, md, opts())
    expect(gh.count('POST')).toBe(1)
    expect(gh.count('PATCH')).toBe(0)
    expect(gh.comments).toHaveLength(1)
    const c = gh.comments[0]!
    expect(first.commentUrl).toBe(c.html_url)
    expect(c.body.startsWith(`${marker}\n`)).toBe(true)
    expect(c.body).toContain('**PASS**')

    const second = await publish(regression, buildReport(regression), opts({ failOnRegression: false }))
    expect(gh.count('POST')).toBe(1)
    expect(gh.count('PATCH')).toBe(1)
    expect(gh.comments).toHaveLength(1)
    expect(second.commentUrl).toBe(c.html_url)
    expect(gh.comments[0]!.body).toContain('**REGRESSION**')
    expect(gh.comments[0]!.body.split(REPORT_MARKER)).toHaveLength(2)
    const order = gh.requests.map(r => r.method).filter(m => m !== 'GET')
    expect(order).toEqual(['POST', 'PATCH'])
    // The token to the API in the header, never in a body.
    expect(gh.requests.every(r => r.auth === `token ${TOKEN}`)).toBe(true)
    expect(gh.requests.some(r => JSON.stringify(r.body ?? '').includes(TOKEN))).toBe(false)
    expect(stdout.join('')).toContain(`::add-mask::${TOKEN}`)
  })

  test('pages through comments to find the marked one', async () => {
    for (let i = 0; i < 230; i++) gh.add(`comment ${i}`)
    gh.add(`${reportMarker('GPU overhead', 'other-job')}\nanother job's report`)
    const ours = gh.add(`${marker}\nold report`)
    for (let i = 0; i < 5; i++) gh.add(`later ${i}`)
    const res = await upsertComment(
      createGitHubApi({ token: TOKEN }),
      { owner: 'o', repo: 'r', issue: 7, marker },
      'new report'
    )
    expect(res).toEqual({ action: 'updated', url: ours.html_url, id: ours.id })
    expect(gh.requests.filter(r => r.method === 'GET' && r.url.includes('/comments')).length).toBe(3)
    expect(
      gh.requests.filter(r => r.method === 'GET' && r.url.includes('/comments')).map(r => r.url)
    ).toEqual([
      '/repos/o/r/issues/7/comments?per_page=100',
      '/repos/o/r/issues/7/comments?per_page=100&page=2',
      '/repos/o/r/issues/7/comments?per_page=100&page=3'
    ])
    expect(gh.count('POST')).toBe(0)
    expect(ours.body).toBe(`${marker}\nnew report`)
    expect(gh.comments.find(c => c.body.includes('other-job'))!.body).toContain("another job's report")
  })

  test("the marker binds only the bot's own comment: one another user posted (or edited) is never overwritten", async () => {
    const planted = gh.add(`${marker}\nplanted by a user`, 'mallory')
    const res = await upsertComment(
      createGitHubApi({ token: TOKEN }),
      { owner: 'o', repo: 'r', issue: 7, marker },
      'new report'
    )
    expect(res.action).toBe('created')
    expect(planted.body).toBe(`${marker}\nplanted by a user`)
    expect(gh.comments.at(-1)!.user.login).toBe('github-actions[bot]')
  })

  test('one comment per job: a matrix key makes its own marker', async () => {
    await publish(pass, buildReport(pass), opts({ commentKey: 'h200' }))
    await publish(pass, buildReport(pass), opts({ commentKey: 'h100' }))
    expect(gh.count('POST')).toBe(2)
    expect(gh.comments.map(c => c.body.split('\n')[0])).toEqual([
      reportMarker('GPU overhead', 'check/h200'),
      reportMarker('GPU overhead', 'check/h100')
    ])
  })

  test('403 is a warning naming the permission; the job summary is still written', async () => {
    gh.failWith = 403
    const res = await publish(pass, buildReport(pass), opts())
    expect(res.commentUrl).toBeNull()
    const w = res.warnings.find(x => x.includes('PR #7'))
    expect(w).toMatch(
      /returned 403 \(Resource not accessible by integration\).*`permissions: pull-requests: write`.*`issues: write`/
    )
    expect(readFileSync(process.env.GITHUB_STEP_SUMMARY!, 'utf8')).toContain('**PASS**')
  })

  test('404 is a warning too', async () => {
    gh.failWith = 404
    const res = await publish(pass, buildReport(pass), opts())
    expect(res.warnings.some(w => w.includes('returned 404') && w.includes('pull-requests: write'))).toBe(
      true
    )
  })

  test('no token: warning with the permission, no request', async () => {
    const res = await publish(pass, buildReport(pass), opts({ token: null }))
    expect(gh.requests).toHaveLength(0)
    expect(
      res.warnings.some(
        w => w.startsWith('PR comment skipped: no GitHub token') && w.includes('pull-requests: write')
      )
    ).toBe(true)
  })

  test('not a pull request: skipped with an info line, no warning', async () => {
    env({ GITHUB_EVENT_PATH: event({ ref: 'refs/heads/main', push: true }) })
    const res = await publish(pass, buildReport(pass), opts())
    expect(gh.requests).toHaveLength(0)
    expect(res.warnings.some(w => w.includes('PR'))).toBe(false)
    expect(stdout.join('')).toContain('PR comment skipped: this run is not for a pull request.')
  })

  test('comment: never makes no request', async () => {
    await publish(regression, buildReport(regression), opts({ comment: 'never', failOnRegression: false }))
    expect(gh.requests).toHaveLength(0)
  })

  test('comment: on-regression posts on regression, corrects an old comment on pass, adds none', async () => {
    await publish(pass, buildReport(pass), opts({ comment: 'on-regression' }))
    expect(gh.count('POST')).toBe(0)
    expect(gh.comments).toHaveLength(0)
    await publish(
      regression,
      buildReport(regression),
      opts({ comment: 'on-regression', failOnRegression: false })
    )
    expect(gh.count('POST')).toBe(1)
    await publish(pass, buildReport(pass), opts({ comment: 'on-regression' }))
    expect(gh.count('PATCH')).toBe(1)
    expect(gh.comments[0]!.body).toContain('**PASS**')
  })

  test('a 201 that is not a comment is a warning naming the call, never "created: undefined"', async () => {
    gh.postRaw = '<html>proxy says hi</html>'
    const res = await publish(pass, buildReport(pass), opts())
    expect(res.commentUrl).toBeNull()
    expect(res.warnings).toContainEqual(
      expect.stringMatching(
        /^could not comment on PR #7: POST \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/comments answered without a comment \(id, html_url\): <html>proxy says hi/
      )
    )
    expect(stdout.join('')).not.toContain('undefined')
  })

  test('a 502 is retried and the comment still lands', async () => {
    let failed = 0
    gh.failOnce = () => failed++ === 0
    const res = await publish(pass, buildReport(pass), opts())
    expect(res.commentUrl).toBe(gh.comments[0]!.html_url)
    expect(gh.count('POST')).toBe(2)
  })

  test('a Link header to another host is not followed with the token', async () => {
    for (let i = 0; i < 120; i++) gh.add(`comment ${i}`)
    gh.nextLink = 'http://127.0.0.2:9/steal'
    const res = await publish(pass, buildReport(pass), opts())
    expect(res.commentUrl).toBeNull()
    expect(
      res.warnings.some(w => w.includes('http://127.0.0.2:9/steal: refusing to send the token outside'))
    ).toBe(true)
  })
})

describe('check run', () => {
  const HEAD = 'a'.repeat(40)
  beforeEach(() =>
    env({
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: 'b'.repeat(40),
      GITHUB_WORKFLOW_REF: 'o/r/.github/workflows/gpu.yml@refs/pull/7/merge',
      GITHUB_EVENT_PATH: event({ pull_request: { number: 7, head: { sha: HEAD } } })
    })
  )

  test('carries the verdict even when the step does not fail (fail-on-regression: false)', async () => {
    const res = await publish(
      regression,
      buildReport(regression),
      opts({ checkRun: 'GPU overhead', failOnRegression: false })
    )
    expect(res.failure).toBeNull()
    expect(res.checkRunUrl).toBe('https://github.com/o/r/runs/1')
    const run = gh.checkRuns[0] as {
      name: string
      head_sha: string
      conclusion: string
      output: { title: string; summary: string; annotations: { path: string; annotation_level: string }[] }
    }
    expect(run.name).toBe('GPU overhead')
    expect(run.head_sha).toBe(HEAD) // the PR's head, not the merge commit
    expect(run.conclusion).toBe('failure')
    expect(run.output.title).toMatch(/^REGRESSION — matmul kernel_ms/)
    expect(run.output.summary).toContain('### Steady-state overhead (gated)')
    expect(run.output.annotations[0]).toMatchObject({
      path: '.github/workflows/gpu.yml',
      annotation_level: 'failure'
    })
  })

  test('a passing check is a success', async () => {
    await publish(pass, buildReport(pass), opts({ checkRun: 'GPU overhead' }))
    expect((gh.checkRuns[0] as { conclusion: string }).conclusion).toBe('success')
  })

  test('403 (no checks: write) is a warning naming the call; the comment still lands', async () => {
    gh.checkRunStatus = 403
    const res = await publish(pass, buildReport(pass), opts({ checkRun: 'GPU overhead' }))
    expect(res.commentUrl).not.toBeNull()
    expect(res.checkRunUrl).toBeNull()
    expect(res.warnings).toContainEqual(
      expect.stringMatching(
        /^could not create the check run: POST \/repos\/o\/r\/check-runs returned 403 .*checks: write/
      )
    )
  })

  test('check-run empty: none is created', async () => {
    await publish(pass, buildReport(pass), opts({ checkRun: null }))
    expect(gh.checkRuns).toEqual([])
  })
})

describe('publish', () => {
  test('outputs, job summary, annotations, artifact warning, failure decision', async () => {
    const md = buildReport(regression)
    const res = await publish(regression, md, opts())
    const outputs = readFileSync(process.env.GITHUB_OUTPUT!, 'utf8')
    expect(outputs).toMatch(/verdict<<.*\nregression\n/)
    expect(outputs).toMatch(/overhead-pct<<.*\n3\.\d+\n/)
    expect(outputs).toMatch(/p-value<<.*\n1\.1e-37\n/)
    expect(outputs).toMatch(/report-path<<.*\ngpu-overhead-out\/report\.md\n/)
    expect(outputs).toMatch(/results-path<<.*\ngpu-overhead-out\n/)
    // Verdicts only for gated metrics: a derived metric (TFLOP/s) or a start-up phase says `shown`.
    const json = /comparisons<<(\S+)\n(.*)\n\1\n/.exec(outputs)?.[2]
    const rows = JSON.parse(json!) as { scope: string; verdict: string }[]
    expect(rows.length).toBe(regression.analysis!.comparisons.length)
    expect(rows.some(r => r.scope !== 'steady')).toBe(true)
    for (const r of rows)
      if (r.scope === 'steady') expect(r.verdict).not.toBe('shown')
      else expect(r.verdict).toBe('shown')
    expect(readFileSync(process.env.GITHUB_STEP_SUMMARY!, 'utf8')).toBe(md)
    const log = stdout.join('')
    expect(log).toMatch(
      /::error title=Container overhead regression%3A matmul kernel_ms::matmul kernel_ms \+3\.\d\d%25 \[\+2\.60, \+3\.50\] is over the 2%25 limit/
    )
    expect(log).toContain('::warning title=Preflight warning%3A clocks::')
    // Not in Actions: the artifact cannot upload; a warning, not a crash.
    expect(
      res.warnings.some(w => w.startsWith('artifact upload failed') && w.includes('ACTIONS_RUNTIME_TOKEN'))
    ).toBe(true)
    expect(res.warnings.some(w => w.includes('missing.csv'))).toBe(true)
    // The paper-shaped CSVs were written for the artifact.
    expect(readFileSync(path.join(dir, 'paper-matmul.csv'), 'utf8').split('\n')[0]).toBe(
      'run,environment,time_s,gpu_util_pct'
    )
    // The decision comes back; the caller fails the step (once) with it.
    expect(res.failure).toMatch(/^overhead regression: matmul kernel_ms/)
    expect(process.exitCode).toBeUndefined()
    // Warnings come back unlogged: the caller emits them once.
    expect(log).not.toContain('::warning::artifact upload failed')
  })

  test('passing check: no failure, no error annotations', async () => {
    const res = await publish(pass, buildReport(pass), opts())
    expect(res.failure).toBeNull()
    expect(process.exitCode).toBeUndefined()
    expect(stdout.join('')).not.toContain('::error')
  })

  test('outside Actions (no summary file, no runtime token): warnings only', async () => {
    env({ GITHUB_STEP_SUMMARY: undefined, GITHUB_EVENT_PATH: undefined })
    const res = await publish(pass, buildReport(pass), opts({ token: null }))
    expect(res.warnings.some(w => w.startsWith('job summary not written'))).toBe(true)
    expect(res.warnings.some(w => w.startsWith('artifact upload failed'))).toBe(true)
  })

  test('the token never reaches the summary or the comment even if the report carried it', async () => {
    const md = `${buildReport(pass)}\nleaked: ${TOKEN}\n`
    await publish(pass, md, opts())
    expect(readFileSync(process.env.GITHUB_STEP_SUMMARY!, 'utf8')).not.toContain(TOKEN)
    expect(gh.comments[0]!.body).not.toContain(TOKEN)
  })
})

describe('event parsing', () => {
  test('pull_request.number, issue comments on PRs, nothing else', () => {
    expect(pullRequestNumber(event({ pull_request: { number: 42 } }))).toBe(42)
    expect(pullRequestNumber(event({ issue: { number: 5, pull_request: { url: 'x' } } }))).toBe(5)
    expect(pullRequestNumber(event({ issue: { number: 5 } }))).toBeNull()
    expect(pullRequestNumber(path.join(dir, 'nope.json'))).toBeNull()
    expect(pullRequestNumber('')).toBeNull()
  })
  test('findComment returns null when no comment carries the marker', async () => {
    gh.add('unrelated')
    expect(
      await findComment(createGitHubApi({ token: TOKEN }), { owner: 'o', repo: 'r', issue: 7, marker })
    ).toBeNull()
  })
})
