/**
 * The baseline branch store against a local fake of GitHub's contents, refs and blobs API (stateful: a branch,
 * its file, the file's sha): first save creates the branch, later saves update with the sha, a lost race is
 * retried, a file over the contents API's inline limit is read through the blob API, and writes never follow
 * a link in the workspace.
 */
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  fetchBaseline,
  mayWriteStore,
  saveBaseline,
  storePath,
  type BranchStore
} from '../../src/entry/action/baseline-branch.js'
import { createGitHubApi } from '../../src/tools/github.js'
import { startFakeApi, type FakeApi, type Recorded, type Reply } from '../helpers/fake-github.js'

const BRANCH = 'gpu-overhead-baseline'
const FILE = '.github/gpu-overhead/baseline.json'
const MAIN_SHA = 'c'.repeat(40)

/** The repository as the fake holds it. */
class Repo {
  branchExists = false
  file: { sha: string; text: string } | null = null
  commits = 0
  /** Contents API leaves `content` empty above this size (GitHub: 1 MB). */
  inlineLimit = 1024 * 1024
  /** PUTs to answer 409 before accepting one (another job wrote in between). */
  conflicts = 0

  routes(): Record<string, (req: Recorded) => Reply> {
    const contents = `/repos/o/r/contents/${FILE}`
    return {
      [`GET ${contents}`]: () => {
        if (!this.branchExists || !this.file) return { status: 404, body: { message: 'Not Found' } }
        const inline = this.file.text.length <= this.inlineLimit
        return {
          status: 200,
          body: {
            sha: this.file.sha,
            encoding: inline ? 'base64' : 'none',
            content: inline ? Buffer.from(this.file.text).toString('base64') : ''
          }
        }
      },
      [`PUT ${contents}`]: req => {
        const body = JSON.parse(req.body) as { content: string; sha?: string; branch: string }
        if (!this.branchExists || body.branch !== BRANCH)
          return { status: 404, body: { message: 'Branch not found' } }
        if (this.conflicts > 0) {
          this.conflicts--
          this.file = { sha: 'f'.repeat(40), text: '{"other":"job"}' }
          return { status: 409, body: { message: 'is at f… but expected …' } }
        }
        if ((this.file?.sha ?? undefined) !== body.sha)
          return { status: 409, body: { message: 'sha mismatch' } }
        const text = Buffer.from(body.content, 'base64').toString('utf8')
        this.file = { sha: createHash('sha1').update(text).digest('hex'), text }
        this.commits++
        return { status: 200, body: { content: { sha: this.file.sha } } }
      },
      [`GET /repos/o/r/branches/${BRANCH}`]: () =>
        this.branchExists
          ? { status: 200, body: { name: BRANCH } }
          : { status: 404, body: { message: 'Branch not found' } },
      'GET /repos/o/r': () => ({ status: 200, body: { default_branch: 'main' } }),
      'GET /repos/o/r/git/ref/heads/main': () => ({ status: 200, body: { object: { sha: MAIN_SHA } } }),
      'POST /repos/o/r/git/refs': req => {
        const body = JSON.parse(req.body) as { ref: string; sha: string }
        if (body.ref !== `refs/heads/${BRANCH}` || body.sha !== MAIN_SHA) return { status: 422, body: {} }
        this.branchExists = true
        return { status: 201, body: { ref: body.ref } }
      }
    }
  }

  blobRoute(): [string, (req: Recorded) => Reply] {
    return [
      `GET /repos/o/r/git/blobs/${this.file?.sha}`,
      () => ({
        status: 200,
        body: { encoding: 'base64', content: Buffer.from(this.file?.text ?? '').toString('base64') }
      })
    ]
  }
}

let api: FakeApi
let repo: Repo
let workspace: string
let store: BranchStore
const local = (): string => path.join(workspace, FILE)

beforeEach(async () => {
  repo = new Repo()
  api = await startFakeApi(repo.routes())
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-store-'))
  store = {
    api: createGitHubApi({ token: 't', baseUrl: api.url, backoffBaseMs: 1, env: {} }),
    owner: 'o',
    repo: 'r',
    branch: BRANCH,
    file: storePath(path.join(workspace, FILE), workspace)
  }
})
afterEach(async () => {
  await api.close()
  fs.rmSync(workspace, { recursive: true, force: true })
})

function writeLocal(text: string): void {
  fs.mkdirSync(path.dirname(local()), { recursive: true })
  fs.writeFileSync(local(), text)
}

describe('baseline branch store', () => {
  it('nothing stored yet: fetch reports none and leaves the workspace alone', async () => {
    expect(await fetchBaseline(store, local(), workspace)).toBe(false)
    expect(fs.existsSync(local())).toBe(false)
  })

  it('first save creates the branch from the default branch, then a PR run fetches it', async () => {
    writeLocal('{"v":1}')
    expect(await saveBaseline(store, local(), 'check 1')).toBe(true)
    expect(repo.branchExists).toBe(true)
    expect(repo.file?.text).toBe('{"v":1}')
    fs.rmSync(local()) // checkout resets the workspace
    expect(await fetchBaseline(store, local(), workspace)).toBe(true)
    expect(fs.readFileSync(local(), 'utf8')).toBe('{"v":1}')
  })

  it('a later save updates the file with its sha; an identical one makes no commit', async () => {
    writeLocal('{"v":1}')
    await saveBaseline(store, local(), 'check 1')
    writeLocal('{"v":2}')
    expect(await saveBaseline(store, local(), 'check 2')).toBe(true)
    expect(await saveBaseline(store, local(), 'check 3')).toBe(false)
    expect(repo.commits).toBe(2)
    const puts = api.requests
      .filter(r => r.method === 'PUT')
      .map(r => JSON.parse(r.body) as { message: string; sha?: string })
    expect(puts.map(p => p.message)).toEqual(['check 1', 'check 2'])
    expect(puts[0]?.sha).toBeUndefined()
    expect(puts[1]?.sha).toMatch(/^[0-9a-f]{40}$/)
  })

  it('a write that lost a race (409) is retried on a fresh read', async () => {
    writeLocal('{"v":1}')
    await saveBaseline(store, local(), 'check 1')
    repo.conflicts = 1
    writeLocal('{"v":2}')
    expect(await saveBaseline(store, local(), 'check 2')).toBe(true)
    expect(repo.file?.text).toBe('{"v":2}')
  })

  it('reads a file over the inline limit through the blob API', async () => {
    writeLocal(JSON.stringify({ samples: Array.from({ length: 200 }, (_, i) => i) }))
    await saveBaseline(store, local(), 'big')
    repo.inlineLimit = 100
    const [key, route] = repo.blobRoute()
    api.routes.set(key, route)
    fs.rmSync(local())
    expect(await fetchBaseline(store, local(), workspace)).toBe(true)
    expect(fs.readFileSync(local(), 'utf8')).toBe(repo.file?.text)
  })

  it('never writes through a link the checked-out tree put at baseline-path', async () => {
    writeLocal('{"v":1}')
    await saveBaseline(store, local(), 'check 1')
    const outside = path.join(workspace, '..', `secret-${path.basename(workspace)}`)
    fs.writeFileSync(outside, 'do not touch')
    fs.rmSync(local())
    fs.symlinkSync(outside, local())
    await fetchBaseline(store, local(), workspace)
    expect(fs.readFileSync(outside, 'utf8')).toBe('do not touch') // the link was replaced, not followed
    expect(fs.lstatSync(local()).isSymbolicLink()).toBe(false)
    fs.rmSync(outside)
  })

  it('only push, schedule, manual and merge-queue runs may write; pull requests never', () => {
    for (const e of ['push', 'schedule', 'workflow_dispatch', 'merge_group'])
      expect(mayWriteStore(e)).toBe(true)
    for (const e of ['pull_request', 'pull_request_target', 'issue_comment', 'workflow_run', undefined])
      expect(mayWriteStore(e)).toBe(false)
  })

  it('the store path is baseline-path relative to the workspace; outside it is refused', () => {
    expect(storePath(path.join(workspace, 'a', 'b.json'), workspace)).toBe('a/b.json')
    expect(() => storePath('/etc/b.json', workspace)).toThrow(/not inside the workspace/)
  })
})
