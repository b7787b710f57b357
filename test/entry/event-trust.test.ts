/**
 * Fork detection on recorded webhook payloads (test/__fixtures__/webhooks, from octokit/webhooks): every
 * event that can carry a fork's code is refused unless allow-fork-prs (case 3), and a same-repository PR
 * in a repository that is itself a fork runs.
 */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { checkEventTrust, originOf } from '../../src/entry/action/trust.js'

const FIXTURES = path.resolve('test/__fixtures__/webhooks')
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are free-form JSON, edited per case
type Payload = Record<string, any>
const load = (name: string): Payload =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Payload
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-trust-'))

function decide(event: string, payload: unknown, allow = false) {
  const file = path.join(dir, `${event}-${Math.random().toString(36).slice(2)}.json`)
  fs.writeFileSync(file, JSON.stringify(payload))
  return checkEventTrust({ GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: file }, allow)
}

/** The recorded PR payload with its head moved to an outsider's repository. */
function fromFork(p: Payload): Payload {
  const c = structuredClone(p)
  c.pull_request.head.repo = { ...c.pull_request.head.repo, full_name: 'mallory/Hello-World', fork: true }
  return c
}

const PR_EVENTS = [
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'pull_request_review_thread'
] as const

describe('events that name a pull request head', () => {
  it.each(PR_EVENTS)('%s from the same repository runs', ev => {
    expect(decide(ev, load(ev)).refuse).toBeNull()
  })
  it.each(PR_EVENTS)('%s from a fork is refused, and runs with allow-fork-prs', ev => {
    expect(decide(ev, fromFork(load(ev))).refuse).toMatch(
      /refusing to run a fork pull request #\d+ \(mallory\/Hello-World, event/
    )
    const allowed = decide(ev, fromFork(load(ev)), true)
    expect(allowed.refuse).toBeNull()
    expect(allowed.warnings.join()).toMatch(/allow-fork-prs is true/)
  })
  it('pull_request_target from a fork is refused too', () => {
    expect(decide('pull_request_target', fromFork(load('pull_request'))).refuse).toMatch(/refusing/)
  })
  it('a same-repository PR inside a repository that is itself a fork runs (head.repo.fork is not the test)', () => {
    const p = load('pull_request')
    p.pull_request.head.repo.fork = true
    p.pull_request.base.repo.fork = true
    p.repository.fork = true
    expect(decide('pull_request', p).refuse).toBeNull()
  })
  it('a deleted head repository counts as a fork', () => {
    const p = load('pull_request')
    p.pull_request.head.repo = null
    expect(decide('pull_request', p).refuse).toMatch(/\(deleted repository/)
  })
})

describe('workflow_run', () => {
  it('from the same repository runs; from a fork head repository is refused', () => {
    const p = load('workflow_run')
    expect(decide('workflow_run', p).refuse).toBeNull()
    p.workflow_run.head_repository.full_name = 'mallory/octo-repo'
    expect(decide('workflow_run', p).refuse).toMatch(/workflow_run of a fork .*\(mallory\/octo-repo/)
  })
})

describe('issue_comment', () => {
  it('on an issue runs; on a pull request is refused unless allowed (no head repository in the payload)', () => {
    const p = load('issue_comment')
    expect(decide('issue_comment', p).refuse).toBeNull()
    p.issue.pull_request = {
      url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
      html_url: 'https://github.com/Codertocat/Hello-World/pull/1'
    }
    expect(decide('issue_comment', p).refuse).toMatch(/refusing to run issue_comment on pull request #1/)
    expect(decide('issue_comment', p, true).refuse).toBeNull()
  })
})

describe('other events', () => {
  it('merge_group, push and schedule run', () => {
    expect(decide('merge_group', load('merge_group')).refuse).toBeNull()
    expect(originOf('push', { ref: 'refs/heads/main' })).toEqual({ kind: 'same-repo' })
  })
  it('an unreadable payload (a FIFO) is refused for PR events without blocking', () => {
    const fifo = path.join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const r = checkEventTrust({ GITHUB_EVENT_NAME: 'pull_request_review', GITHUB_EVENT_PATH: fifo }, false)
    expect(r.refuse).toMatch(/cannot read the pull_request_review event payload/)
  })
})

describe('events judged by what they carry (issue 29)', () => {
  const repository = {
    id: 1296269,
    full_name: 'octocat/Hello-World',
    url: 'https://api.github.com/repos/octocat/Hello-World'
  }
  // check_run / check_suite pull requests name repositories by id and API URL only (no full_name).
  const prEntry = (headId: number, headUrl: string) => ({
    url: 'https://api.github.com/repos/octocat/Hello-World/pulls/2',
    id: 1,
    number: 2,
    head: { ref: 'patch', sha: 'a'.repeat(40), repo: { id: headId, url: headUrl, name: 'Hello-World' } },
    base: {
      ref: 'main',
      sha: 'b'.repeat(40),
      repo: { id: repository.id, url: repository.url, name: 'Hello-World' }
    }
  })
  const fork = prEntry(999, 'https://api.github.com/repos/mallory/Hello-World')
  const same = prEntry(repository.id, repository.url)
  const checkRun = (pr: unknown) => ({
    action: 'rerequested',
    check_run: {
      id: 4,
      head_sha: 'a'.repeat(40),
      pull_requests: [pr],
      check_suite: { id: 5, pull_requests: [pr] }
    },
    repository
  })
  const checkSuite = (pr: unknown) => ({
    action: 'requested',
    check_suite: { id: 5, head_sha: 'a'.repeat(40), pull_requests: [pr] },
    repository
  })

  it.each([
    ['check_run', checkRun],
    ['check_suite', checkSuite]
  ] as const)('%s carrying a fork pull request is refused; the same repository runs', (event, make) => {
    expect(decide(event, make(fork)).refuse).toMatch(/fork pull request #2/)
    expect(decide(event, make(fork), true).refuse).toBeNull()
    expect(decide(event, make(same)).refuse).toBeNull()
  })

  it('a workflow_run whose pull_requests name a fork head is refused', () => {
    const p = load('workflow_run')
    p.workflow_run.pull_requests = [fork]
    expect(decide('workflow_run', p).refuse).not.toBeNull()
  })

  it.each(PR_EVENTS)('a %s event whose payload carries no pull_request object is refused', ev => {
    const p = load(ev)
    delete p.pull_request
    expect(decide(ev, p).refuse).toMatch(/names no pull request/)
  })

  it('the PR number for the comment is read from a FIFO payload without blocking', async () => {
    const { pullRequestNumber } = await import('../../src/report/comment.js')
    const fifo = path.join(dir, 'event-fifo-2')
    execFileSync('mkfifo', [fifo])
    const t0 = Date.now()
    expect(pullRequestNumber(fifo)).toBeNull()
    expect(Date.now() - t0).toBeLessThan(2000)
  })
})
