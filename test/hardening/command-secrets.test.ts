/**
 * Issue 41, through the action's run() on a push of the default branch with save-baseline and a Check run:
 * secrets in a command's words (the runner's token, a secret the workflow wrote into the command, values that
 * look like secrets) never reach samples.csv, results.jsonl, runs.jsonl, summary.json, report.md, the job
 * summary, the Check run or the baseline PUT; the params carry the same redacted words for the same command
 * whatever the token. The checkout credential's base64 form, read by the command from .git/config and made a
 * metric name, is masked too. A baseline PUT answering 409 every time is tried a few times, in bounded time.
 */
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { clearSecrets } from '../../src/util/secrets.js'
import { startFakeApi, type FakeApi, type Recorded, type Reply } from '../helpers/fake-github.js'
import { runAction } from './action-env.js'
import { setApiPacing } from '../../src/tools/github.js'

// The fake API has no quota: the client's retry backoff and write spacing in milliseconds, not seconds.
beforeAll(() => setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 1 }))

const alnum = (n: number): string =>
  randomBytes(n * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, n)

const BRANCH = 'gpu-overhead-baseline'
const CONTENTS = '/repos/o/r/contents/.github/gpu-overhead/baseline.json'

/** A script that prints its samples (protocol on stdout) and, when asked, names one after .git/config's credential. */
const BENCH = `import base64, json, sys, time
name = "loop_ms"
if "--git" in sys.argv:
    for line in open(".git/config"):
        if "AUTHORIZATION" in line:
            name = "cred_" + line.split()[-1]
for i in range(4):
    t = time.perf_counter(); sum(range(20000)); ms = (time.perf_counter() - t) * 1e3
    print(json.dumps({"event": "sample", "metric": name, "value": ms, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)
`

interface Fake {
  api: FakeApi
  puts: Recorded[]
}

async function fakeRepo(putReply?: () => Reply): Promise<Fake> {
  const puts: Recorded[] = []
  const api = await startFakeApi({
    'GET /repos/o/r': { status: 200, body: { default_branch: 'main' } },
    [`GET ${CONTENTS}`]: { status: 404, body: { message: 'Not Found' } },
    [`GET /repos/o/r/branches/${BRANCH}`]: { status: 200, body: { name: BRANCH } },
    [`PUT ${CONTENTS}`]: req => {
      puts.push(req)
      return putReply ? putReply() : { status: 201, body: { content: { sha: 'a'.repeat(40) } } }
    },
    'POST /repos/o/r/check-runs': { status: 201, body: { html_url: 'https://github.example/run/1' } }
  })
  return { api, puts }
}

function workspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-cmd-secrets-'))
  fs.writeFileSync(path.join(ws, 'bench.py'), BENCH)
  return ws
}

function pushEnv(fake: Fake): Record<string, string> {
  return {
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_API_URL: fake.api.url,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: 'b'.repeat(40),
    GITHUB_ACTIONS: 'true'
  }
}

/** Every file the check left, the runner's files and every request the fake API got (PUT contents decoded). */
function everything(ws: string, r: { outputs: string; summary: string; log: string }, fake: Fake): string {
  // The runner's own mask registrations are the one place a secret is meant to be printed.
  const log = r.log
    .split('\n')
    .filter(l => !l.startsWith('::add-mask::'))
    .join('\n')
  const texts = [r.outputs, r.summary, log]
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) texts.push(fs.readFileSync(p, 'utf8'))
    }
  }
  walk(path.join(ws, 'gpu-overhead-results'))
  if (fs.existsSync(path.join(ws, '.github'))) walk(path.join(ws, '.github'))
  for (const req of fake.api.requests) {
    texts.push(req.body)
    try {
      const content = (JSON.parse(req.body) as { content?: string }).content
      if (content) texts.push(Buffer.from(content, 'base64').toString('utf8'))
    } catch {
      // not JSON
    }
  }
  return texts.join('\n')
}

let fake: Fake | null = null
const made: string[] = []
afterEach(async () => {
  await fake?.api.close()
  fake = null
  clearSecrets()
})
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

describe("secrets in a command's words (issue 41, high)", () => {
  it('never reach any file, the job summary, the Check run nor the baseline PUT; the params key is stable', async () => {
    const runOnce = async (
      token: string
    ): Promise<{ all: string; params: unknown[]; checkRun: string; put: string }> => {
      fake = await fakeRepo()
      const ws = workspace()
      made.push(ws)
      const secret = { hf: alnum(36), sk: `sk-${alnum(40)}`, pw: alnum(14), url: alnum(12) }
      const r = await runAction({
        workspace: ws,
        inputs: {
          commands: `mine: /usr/bin/python3 bench.py --token ${secret.hf} --gh ${token} --api-key ${secret.sk} --password=${secret.pw} --url https://alice:${secret.url}@example.com/x -n 3`,
          'github-token': token,
          'check-run': 'gpu-overhead',
          'baseline-branch': BRANCH,
          'save-baseline': 'true'
        },
        env: pushEnv(fake)
      })
      expect(r.log).toMatch(/baseline pushed to branch/)
      const all = everything(ws, r, fake)
      for (const value of [token, secret.hf, secret.sk, secret.pw, secret.url])
        expect(all).not.toContain(value)
      const out = path.join(ws, 'gpu-overhead-results')
      const runs = fs
        .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(l => (JSON.parse(l) as { params: { command?: unknown } }).params.command)
      expect(fs.readFileSync(path.join(out, 'samples.csv'), 'utf8')).toContain('--token *** --gh ***')
      const checkRun = fake.api.requests.find(q => q.path === '/repos/o/r/check-runs')?.body ?? ''
      return { all, params: runs, checkRun, put: fake.puts[0]?.body ?? '' }
    }
    const first = await runOnce(`ghs_${alnum(36)}`)
    await fake?.api.close()
    clearSecrets()
    const second = await runOnce(`ghs_${alnum(36)}`)
    const expected =
      '/usr/bin/python3 bench.py --token *** --gh *** --api-key *** --password=*** --url https://***@example.com/x -n 3'
    expect(new Set(first.params)).toEqual(new Set([expected]))
    expect(second.params).toEqual(first.params)
    expect(first.checkRun).not.toBe('')
    expect(first.put).not.toBe('')
  }, 240_000)

  it("the checkout credential's base64 form, read from .git/config natively, is masked everywhere", async () => {
    fake = await fakeRepo()
    const ws = workspace()
    made.push(ws)
    const token = `ghs_${alnum(36)}`
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64')
    fs.mkdirSync(path.join(ws, '.git'))
    fs.writeFileSync(
      path.join(ws, '.git', 'config'),
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`
    )
    const r = await runAction({
      workspace: ws,
      inputs: {
        commands: 'mine: /usr/bin/python3 bench.py --git',
        'github-token': token,
        'check-run': 'gpu-overhead'
      },
      env: { ...pushEnv(fake), GITHUB_REF: 'refs/heads/topic' }
    })
    const all = everything(ws, r, fake)
    // The metric ran and was named (masked) after it.
    expect(all).toContain('cred_***')
    expect(all).not.toContain(basic)
    expect(all).not.toContain(basic.slice(8, 40))
    // The runner masks it in the log too: registered with core.setSecret.
    expect(r.log).toContain(`::add-mask::${basic}`)
  }, 120_000)
})

describe('a stored-baseline PUT that answers 409 every time (issue 41, low)', () => {
  it('is tried a few times, in bounded time, and the step goes on with a warning', async () => {
    fake = await fakeRepo(() => ({ status: 409, body: { message: 'is at f but expected a' } }))
    const ws = workspace()
    made.push(ws)
    const token = `ghs_${alnum(36)}`
    const t0 = Date.now()
    const r = await runAction({
      workspace: ws,
      inputs: {
        commands: 'mine: /usr/bin/python3 bench.py',
        'github-token': token,
        'baseline-branch': BRANCH,
        'save-baseline': 'true'
      },
      env: pushEnv(fake)
    })
    expect(r.log).toMatch(/baseline not pushed to branch gpu-overhead-baseline: PUT .* returned 409/)
    expect(fake.puts.length).toBeGreaterThan(1)
    expect(fake.puts.length).toBeLessThanOrEqual(6)
    expect(Date.now() - t0).toBeLessThan(60_000)
  }, 120_000)
})
