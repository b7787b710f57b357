/**
 * The nightly trend path end to end: accepted checks go into the baseline file through the store (as
 * `save-baseline` does), then the action entry runs in `mode: trend` with `trend-issues: true` — a real
 * child process with the environment the Actions runner gives it — against a local stand-in for
 * GitHub's issues API. Noise opens nothing; a planted step opens exactly one issue; a re-run opens no
 * duplicate; a revert closes it.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { JsonFileBaselineStore } from '../../src/analyze/baseline/index.js'
import { startNode } from '../hardening/helpers.js'
import { startFakeIssues, type FakeIssues } from '../helpers/fake-issues.js'
import { nightChecks, nightDigest, type HistoryOptions } from '../helpers/trend-history.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const ENTRY = path.join(ROOT, 'src/entry/action/index.ts')
const TSX = path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')
const REPO = 'org/gpu-bench'
const TOKEN = `ghp_${'TrendFakeToken0123456789'.padEnd(36, 'x')}`
const BASELINE = '.github/gpu-overhead/baseline.json'

let api: FakeIssues
beforeAll(async () => {
  // 2 issues per page: the client has to follow Link headers.
  api = await startFakeIssues(REPO, { perPage: 2 })
})
afterAll(() => api.close())

function workspace(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-nightly-'))
}

async function saveNights(ws: string, opts: HistoryOptions, from: number): Promise<void> {
  const store = new JsonFileBaselineStore(path.join(ws, BASELINE))
  for (const check of nightChecks(opts, from)) expect((await store.append(check)).saved).toBe(true)
}

async function nightlyTrend(ws: string, inputs: Record<string, string> = {}, apiUrl = api.url) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: ws,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: ws,
    GITHUB_EVENT_NAME: 'schedule',
    GITHUB_REPOSITORY: REPO,
    GITHUB_SERVER_URL: 'https://github.invalid',
    GITHUB_RUN_ID: '4242',
    GITHUB_API_URL: apiUrl,
    GITHUB_OUTPUT: path.join(ws, 'github_output'),
    GITHUB_STEP_SUMMARY: path.join(ws, 'step_summary')
  }
  fs.writeFileSync(env.GITHUB_OUTPUT!, '')
  fs.writeFileSync(env.GITHUB_STEP_SUMMARY!, '')
  const all = {
    mode: 'trend',
    'trend-issues': 'true',
    'github-token': TOKEN,
    'baseline-path': BASELINE,
    'fail-on-regression': 'false',
    ...inputs
  }
  for (const [k, v] of Object.entries(all)) env[`INPUT_${k.toUpperCase()}`] = v
  const r = await startNode('--import', [TSX, ENTRY], ws, env).done
  return { ...r, summary: fs.readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8') }
}

const STEP_AT = 30
const steady = (): number => 41
const stepped = (n: number): number => (n < STEP_AT ? 41 : 43.05) // +5% from night 30
const digest = (n: number): string => nightDigest(n < STEP_AT ? 1 : 2)

describe('nightly trend against a local GitHub issues API', () => {
  it('opens nothing for noise', async () => {
    const ws = workspace()
    await saveNights(ws, { nights: 45, level: steady, seed: 'quiet', cv: 0.01 }, 0)
    const r = await nightlyTrend(ws, { 'fail-on-regression': 'true' })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('trend issues: 0 opened, 0 closed, 0 already tracked')
    expect(r.summary).toContain('No open change point.')
    expect(api.issues).toHaveLength(0)
    const out = path.join(ws, 'gpu-overhead-results')
    expect(fs.readFileSync(path.join(out, 'trend.md'), 'utf8')).toBe(r.summary)
    const json = JSON.parse(fs.readFileSync(path.join(out, 'trend.json'), 'utf8')) as { series: unknown[] }
    expect(json.series).toHaveLength(2)
  })

  it('opens one issue for a planted step, none again on a re-run, and closes it on the revert', async () => {
    const ws = workspace()
    const opts = { level: stepped, digest, seed: 'step' }
    await saveNights(ws, { ...opts, nights: 40 }, 0)

    const first = await nightlyTrend(ws)
    expect(first.code).toBe(0) // fail-on-regression: false — the issue is the notification
    expect(api.issues).toHaveLength(1)
    const issue = api.issues[0]!
    expect(issue.labels).toEqual(['gpu-overhead-trend'])
    expect(issue.title).toMatch(
      /^GPU trend: matmul kernel_ms \(container, NVIDIA H100 80GB HBM3 on gpu-runner-1\) slower \+[45]\.\d+% on 2026-10-01$/
    )
    expect(issue.body).toMatch(
      /^<!-- gpu-overhead-trend \{"v":1,"series":"[0-9a-f]{12}","metric":"kernel_ms","at":"night-030","up":true\} -->/
    )
    expect(issue.body).toContain(`image_digest ${nightDigest(1)} → ${nightDigest(2)}`)
    expect(issue.body).toContain('https://github.invalid/org/gpu-bench/actions/runs/4242')
    expect(first.summary).toContain('**1 open change point**')

    // Re-run, and a run after a few more nights at the new level (the change point may move a little).
    expect((await nightlyTrend(ws)).stdout).toContain('0 opened, 0 closed, 1 already tracked')
    await saveNights(ws, { ...opts, nights: 5 }, 40)
    const again = await nightlyTrend(ws, { 'fail-on-regression': 'true' })
    expect(again.code).toBe(1) // the open change point fails the step when asked
    expect(again.stdout).toContain('0 opened, 0 closed, 1 already tracked')
    expect(api.issues).toHaveLength(1)

    // The image is rolled back: the level returns and the issue is closed with a comment, nothing new opened.
    await saveNights(ws, { level: () => 41, digest: () => nightDigest(1), seed: 'revert', nights: 15 }, 45)
    const reverted = await nightlyTrend(ws, { 'fail-on-regression': 'true' })
    expect(reverted.code).toBe(0)
    expect(reverted.stdout).toContain('1 closed')
    expect(api.issues).toHaveLength(1)
    expect(issue.state).toBe('closed')
    expect(issue.state_reason).toBe('completed')
    expect(issue.comments).toHaveLength(1)
    expect(issue.comments[0]).toMatch(
      /^Reverted: matmul kernel_ms .* is back to 41(\.\d+)? ms since 2026-10-16/
    )

    // And stays closed: nothing reopened or duplicated on the next night.
    const after = await nightlyTrend(ws)
    expect(after.stdout).toContain('0 opened, 0 closed')
    expect(api.issues.map(i => i.state)).toEqual(['closed'])
  })

  it('sent the token only as the Authorization header, and never printed it', () => {
    expect(api.requests.length).toBeGreaterThan(0)
    for (const r of api.requests)
      expect(r.authorization).toMatch(new RegExp(`^(token|bearer) ${TOKEN}$`, 'i'))
  })

  it('fails the step with the call named when the issues cannot be written', async () => {
    const ws = workspace()
    await saveNights(ws, { level: stepped, digest, seed: 'other', nights: 40 }, 0)
    // A stand-in that serves another repository: 404 on the list call.
    const elsewhere = await startFakeIssues('someone/else')
    try {
      const r = await nightlyTrend(ws, {}, elsewhere.url)
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/::error::trend-issues: GET \/repos\/org\/gpu-bench\/issues returned 404/)
      expect(r.stdout).toContain('permissions: issues: write')
      // Only in the runner's masking command, never in a message.
      expect(r.stdout.replace(`::add-mask::${TOKEN}`, '')).not.toContain(TOKEN)
    } finally {
      await elsewhere.close()
    }
  })
})
