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
  saveBaseline as save,
  storePath,
  whyNotWrite,
  type BranchStore
} from '../../src/analyze/baseline/baseline-branch.js'
import { mergeCheck, parseBaseline } from '../../src/analyze/index.js'
import { actionSource, loadConfig, parseTrend } from '../../src/config/index.js'
import { Inputs } from '../../src/types/inputs.js'

/** Byte-moving tests: the merge is "take this run's file". */
const saveBaseline = (store: BranchStore, file: string, message: string) =>
  save(
    store,
    file,
    message,
    (_stored, local) => local,
    () => Promise.resolve()
  )
import { createGitHubApi, setApiPacing } from '../../src/tools/github.js'
import { startFakeApi, type FakeApi, type Recorded, type Reply } from '../helpers/fake-github.js'

// The fake API has no quota: the client's retry backoff and write spacing in milliseconds, not seconds.
beforeAll(() => setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 1 }))

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
  /** What the other job wrote when it won the race (default: a stand-in text). */
  raceWith: string | null = null
  /** Status the contents GET answers with instead of the file (an outage). */
  failReads: number | null = null

  routes(): Record<string, (req: Recorded) => Reply> {
    const contents = `/repos/o/r/contents/${FILE}`
    return {
      [`GET ${contents}`]: () => {
        if (this.failReads !== null) return { status: this.failReads, body: { message: 'Server Error' } }
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
          this.file = { sha: 'f'.repeat(40), text: this.raceWith ?? '{"other":"job"}' }
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

  it('only push, schedule and manual runs of the default branch write; pull requests and merge queues never', () => {
    for (const e of ['push', 'schedule', 'workflow_dispatch'])
      expect(whyNotWrite(e, 'refs/heads/main', 'main')).toBeNull()
    for (const e of [
      'pull_request',
      'pull_request_target',
      'issue_comment',
      'workflow_run',
      'merge_group',
      undefined
    ])
      expect(whyNotWrite(e, 'refs/heads/main', 'main')).toMatch(/never writes the store/)
    expect(whyNotWrite('push', 'refs/heads/feature', 'main')).toMatch(/not the default branch main/)
    expect(whyNotWrite('merge_group', 'refs/heads/gh-readonly-queue/main/pr-1-abc', 'main')).not.toBeNull()
  })

  it('the store path is baseline-path relative to the workspace; outside it is refused', () => {
    expect(storePath(path.join(workspace, 'a', 'b.json'), workspace)).toBe('a/b.json')
    expect(() => storePath('/etc/b.json', workspace)).toThrow(/not inside the workspace/)
  })
})

/** When each named check ran (in this order). */
const DAY: Record<string, number> = { c1: 1, c2: 2, c3: 3, theirs: 4, mine: 5 }

/** A baseline file with entry `k` holding the named checks (values 1, 2, 3 each). */
function baselineFile(ids: string[], sd?: number): string {
  return JSON.stringify({
    schema: 'gpu-overhead/baseline@2',
    updated_at: '2026-01-01T00:00:00Z',
    entries: {
      k: {
        key: 'k',
        environment: 'container',
        workload: 'matmul',
        params: '',
        params_hash: 'x',
        fingerprint: {},
        checks: ids.map((id, i) => ({
          check_id: id,
          time: `2026-01-0${DAY[id] ?? i + 1}T00:00:00Z`,
          metrics: {
            kernel_ms: {
              unit: 'ms',
              scope: 'steady',
              n: 3,
              mean: 2,
              ...(sd === undefined ? {} : { sd }),
              values: [1, 2, 3]
            }
          }
        }))
      }
    }
  })
}
const idsOf = (text: string | undefined): string[] =>
  (JSON.parse(text ?? '{}') as { entries: { k: { checks: { check_id: string }[] } } }).entries.k.checks.map(
    c => c.check_id
  )

describe('baseline store: fail closed, no lost check (issue 29)', () => {
  it.each([404, 500, 502])(
    "a branch that answers %i means no stored baseline, never the tree's own file",
    async status => {
      writeLocal(baselineFile(['pr-forged']))
      repo.branchExists = true
      repo.failReads = status
      if (status === 404) expect(await fetchBaseline(store, local(), workspace)).toBe(false)
      else await expect(fetchBaseline(store, local(), workspace)).rejects.toThrow()
      expect(fs.existsSync(local())).toBe(false)
    }
  )

  it('a save lays this check onto the stored file as it is now: checks stored since this run read it are kept', async () => {
    repo.branchExists = true
    repo.file = { sha: 'a'.repeat(40), text: baselineFile(['c1', 'c2', 'c3']) }
    // This run's file: what it read (c1 only: say the read had failed over to an old copy) plus its check.
    writeLocal(baselineFile(['c1', 'mine']))
    await save(
      store,
      local(),
      'mine',
      (s, l) => mergeCheck(s, l, 'mine'),
      () => Promise.resolve()
    )
    expect(idsOf(repo.file?.text)).toEqual(['c1', 'c2', 'c3', 'mine'])
  })

  it('a concurrent job that wrote between our read and our write keeps its check (compare-and-swap, retried)', async () => {
    repo.branchExists = true
    repo.file = { sha: 'a'.repeat(40), text: baselineFile(['c1']) }
    repo.conflicts = 1
    repo.raceWith = baselineFile(['c1', 'theirs'])
    writeLocal(baselineFile(['c1', 'mine']))
    expect(
      await save(
        store,
        local(),
        'mine',
        (s, l) => mergeCheck(s, l, 'mine'),
        () => Promise.resolve()
      )
    ).toBe(true)
    expect(idsOf(repo.file?.text)).toEqual(['c1', 'theirs', 'mine'])
  })

  it("a stored file that cannot be read is never overwritten by this run's file alone", async () => {
    repo.branchExists = true
    repo.file = { sha: 'a'.repeat(40), text: baselineFile(['c1', 'c2', 'c3']) }
    repo.failReads = 500
    writeLocal(baselineFile(['mine']))
    await expect(
      save(
        store,
        local(),
        'mine',
        (s, l) => mergeCheck(s, l, 'mine'),
        () => Promise.resolve()
      )
    ).rejects.toThrow()
    expect(idsOf(repo.file?.text)).toEqual(['c1', 'c2', 'c3'])
  })

  it('stored summaries are recomputed from the stored values (a stored sd of 1e6 is not believed)', () => {
    const parsed = parseBaseline(JSON.parse(baselineFile(['c1'], 1e6)))
    if ('error' in parsed) throw new Error(parsed.error)
    const m = parsed.data.entries.k!.checks[0]!.metrics.kernel_ms!
    expect(m.sd).toBeCloseTo(1, 10)
    expect(m.mean).toBe(2)
  })

  it("empty inputs are honoured: baseline-branch: '' and check-run: '' turn them off", () => {
    const inputs = { [Inputs.Image]: 'ubuntu:24.04', [Inputs.BaselineBranch]: '', [Inputs.CheckRun]: '' }
    const cfg = loadConfig({ workspace, inputs })
    expect(cfg.baselineBranch).toBeNull()
    expect(cfg.checkRun).toBeNull()
    expect(
      parseTrend(actionSource({ workspace, inputs: { [Inputs.BaselineBranch]: '' } })).baselineBranch
    ).toBeNull()
    // Not given at all: the defaults.
    expect(loadConfig({ workspace, inputs: { [Inputs.Image]: 'ubuntu:24.04' } }).baselineBranch).toBe(
      'gpu-overhead-baseline'
    )
  })
})
