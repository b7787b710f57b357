/**
 * `mode: analyze` through the action's own run(): real hyperfine files (test/__fixtures__/adapters/
 * hyperfine-runs) that "earlier steps" left in the workspace are gated; the verdict reaches the outputs
 * and the job summary, and a regression fails the step. Published like a check's report: on a pull request
 * the comment and the Check run go to a local stand-in for the GitHub API (127.0.0.1) with the verdict, and a
 * fork's pull request is refused unless allow-fork-prs. Tree files that are links are refused.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { jest } from '@jest/globals'
import { startFakeApi, type FakeApi } from '../helpers/fake-github.js'
import { setApiPacing } from '../../src/tools/github.js'

// The fake API has no quota: the client's retry backoff and write spacing in milliseconds, not seconds.
beforeAll(() => setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 1 }))

const RUNS = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters', 'hyperfine-runs')
let ws: string
let runner: string
beforeAll(() => {
  ws = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-action-analyze-'))
  runner = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-action-runner-'))
  mkdirSync(path.join(ws, 'bench'))
  for (const arm of ['fast', 'slow'])
    for (const i of [1, 2, 3])
      copyFileSync(path.join(RUNS, `hf-${arm}-${i}.json`), path.join(ws, 'bench', `${arm}-${i}.json`))
  writeFileSync(path.join(runner, 'secret.json'), '{"results": []}')
  symlinkSync(path.join(runner, 'secret.json'), path.join(ws, 'bench', 'link.json'))
  symlinkSync(runner, path.join(ws, 'linked-folder'))
})
afterAll(() => {
  rmSync(ws, { recursive: true, force: true })
  rmSync(runner, { recursive: true, force: true })
})

async function action(
  inputs: Record<string, string>,
  extraEnv: Record<string, string> = {}
): Promise<{ outputs: string; summary: string; failed: boolean; log: string }> {
  const env = { ...process.env }
  // What the action prints (::error::, ::warning::, info lines) goes to stdout.
  const log: string[] = []
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => log.push(String(chunk)) > 0)
  const files = { GITHUB_OUTPUT: 'out', GITHUB_STATE: 'state', GITHUB_STEP_SUMMARY: 'summary' }
  for (const [v, f] of Object.entries(files)) {
    const p = path.join(runner, f)
    writeFileSync(p, '')
    process.env[v] = p
  }
  process.env.GITHUB_WORKSPACE = ws
  Object.assign(process.env, extraEnv)
  for (const [k, v] of Object.entries(inputs)) process.env[`INPUT_${k.toUpperCase()}`] = v
  process.exitCode = undefined
  try {
    const { run } = await import('../../src/entry/action/main.js')
    await run()
    return {
      outputs: readFileSync(path.join(runner, 'out'), 'utf8'),
      summary: readFileSync(path.join(runner, 'summary'), 'utf8'),
      failed: process.exitCode === 1,
      log: log.join('')
    }
  } finally {
    write.mockRestore()
    process.env = env
    process.exitCode = undefined
  }
}

const pairs = (native: string, container: string): string =>
  [1, 2, 3]
    .map(i => `native=bench/${native}-${i}.json`)
    .concat([1, 2, 3].map(i => `container=bench/${container}-${i}.json`))
    .join('\n')

test('a hyperfine regression fails the step; verdict and report reach the outputs and the job summary', async () => {
  const r = await action({ mode: 'analyze', 'results-format': 'hyperfine', results: pairs('fast', 'slow') })
  expect(r.failed).toBe(true)
  expect(r.outputs).toMatch(/verdict<<\S+\nregression\n/)
  expect(r.outputs).toMatch(/overhead-pct<<\S+\n\d{3}\.?\d*\n/) // about +200 %
  // The check's report: its verdict line, the gated table, where the samples came from.
  expect(r.summary).toMatch(/^\*\*REGRESSION\*\* — work time \+\d{3}% \[.*\] over the 2% limit/)
  expect(r.summary).toContain(
    'from 6 `hyperfine` result files · 3 runs per arm · arms `native` vs `container`'
  )
  expect(r.summary).toMatch(/\| work +\| time ↓ \|.*\*\*regression\*\* \|/)
  // report.md and summary.json for the artifact, in out.
  const out = path.join(ws, 'gpu-overhead-results')
  expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/^\*\*REGRESSION\*\*/)
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')) as {
    verdict: string
    source: unknown
  }
  expect(summary.verdict).toBe('regression')
  expect(summary.source).toEqual({ kind: 'result-files', format: 'hyperfine', files: 6 })
})

test('the faster arm as candidate passes; fail-on-regression false never fails the step', async () => {
  const pass = await action({
    mode: 'analyze',
    'results-format': 'hyperfine',
    results: pairs('slow', 'fast')
  })
  expect(pass.failed).toBe(false)
  expect(pass.outputs).toMatch(/verdict<<\S+\npass\n/)
  const soft = await action({
    mode: 'analyze',
    'results-format': 'hyperfine',
    results: pairs('fast', 'slow'),
    'fail-on-regression': 'false'
  })
  expect(soft.failed).toBe(false)
  expect(soft.outputs).toMatch(/verdict<<\S+\nregression\n/)
})

test('tree files that are links, outside the workspace or missing are refused by name', async () => {
  const link = await action({
    mode: 'analyze',
    'results-format': 'hyperfine',
    results: 'native=bench/link.json'
  })
  expect(link.failed).toBe(true)
  expect(link.outputs).toMatch(/verdict<<\S+\nerror\n/)
  const outside = await action({
    mode: 'analyze',
    'results-format': 'hyperfine',
    results: `native=${runner}/secret.json`
  })
  expect(outside.failed).toBe(true)
  const via = await action({
    mode: 'analyze',
    'results-format': 'hyperfine',
    results: 'native=linked-folder/secret.json'
  })
  expect(via.failed).toBe(true)
  expect(via.outputs).toMatch(/verdict<<\S+\nerror\n/)
  const format = await action({
    mode: 'analyze',
    'results-format': 'junit',
    results: 'native=bench/fast-1.json'
  })
  expect(format.failed).toBe(true)
})

describe('on a pull request: the comment and the Check run, as a check publishes them', () => {
  const TOKEN = 'ghs_analyzeModeTestToken0123456789abcdef'
  const HEAD = 'a'.repeat(40)
  let api: FakeApi
  beforeEach(async () => {
    api = await startFakeApi({
      'GET /repos/o/r/issues/7/comments': { status: 200, body: [] },
      'POST /repos/o/r/issues/7/comments': {
        status: 201,
        body: { id: 1, html_url: 'https://github.com/o/r/pull/7#issuecomment-1' }
      },
      'POST /repos/o/r/check-runs': {
        status: 201,
        body: { id: 2, html_url: 'https://github.com/o/r/runs/2' }
      }
    })
  })
  afterEach(async () => {
    await api.close()
  })

  /** A pull_request run of o/r whose head lives in `headRepo`. */
  function prEnv(headRepo = 'o/r'): Record<string, string> {
    const event = path.join(runner, 'event.json')
    writeFileSync(
      event,
      JSON.stringify({
        number: 7,
        pull_request: {
          number: 7,
          head: { sha: HEAD, repo: { full_name: headRepo } },
          base: { repo: { full_name: 'o/r' } }
        }
      })
    )
    return {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_SHA: 'b'.repeat(40),
      GITHUB_JOB: 'bench',
      GITHUB_WORKFLOW: 'pr',
      GITHUB_API_URL: api.url
    }
  }
  const posted = (route: string): Record<string, unknown>[] =>
    api.requests
      .filter(r => `${r.method} ${r.path}` === route)
      .map(r => JSON.parse(r.body) as Record<string, unknown>)

  test('a regression: the comment and a failing Check run carry it, and the step fails', async () => {
    const r = await action(
      {
        mode: 'analyze',
        'results-format': 'hyperfine',
        results: pairs('fast', 'slow'),
        'github-token': TOKEN
      },
      prEnv()
    )
    expect(r.failed).toBe(true)
    expect(r.outputs).toMatch(/verdict<<\S+\nregression\n/)
    // The step fails with the gate's line (the runner's command escapes % as %25).
    expect(r.log).toMatch(
      /^::error::analyze: overhead regression: work time \+\d{3}%25 .* over the 2%25 limit$/m
    )

    const [comment] = posted('POST /repos/o/r/issues/7/comments')
    expect(comment?.body).toMatch(
      /^<!-- gpu-overhead-action:report workflow="pr" job="bench" -->\n\*\*REGRESSION\*\* — work time/
    )
    expect(comment?.body).toContain('from 6 `hyperfine` result files')

    const [check] = posted('POST /repos/o/r/check-runs')
    expect(check).toMatchObject({
      name: 'GPU overhead',
      head_sha: HEAD,
      status: 'completed',
      conclusion: 'failure'
    })
    const output = check?.output as {
      title: string
      summary: string
      text: string
      annotations: { title: string }[]
    }
    expect(output.title).toMatch(/^REGRESSION — work time \+\d{3}%/)
    expect(output.summary).toMatch(/\*\*REGRESSION\*\*/)
    expect(output.text).toMatch(/\| work +\| time ↓ \|.*\*\*regression\*\* \|/)
    expect(output.annotations.map(a => a.title)).toEqual(['Container overhead regression: work time'])
    // The token only ever travels in the Authorization header.
    for (const req of api.requests) {
      expect(req.headers.authorization).toMatch(new RegExp(`^(token|Bearer) ${TOKEN}$`))
      expect(`${req.path}${req.body}`).not.toContain(TOKEN)
    }
  })

  test('the faster container passes: a green Check run, the comment says so, the step passes', async () => {
    const r = await action(
      {
        mode: 'analyze',
        'results-format': 'hyperfine',
        results: pairs('slow', 'fast'),
        'github-token': TOKEN
      },
      prEnv()
    )
    expect(r.failed).toBe(false)
    expect(r.outputs).toMatch(/verdict<<\S+\npass\n/)
    expect(posted('POST /repos/o/r/issues/7/comments')[0]?.body).toMatch(/\*\*PASS\*\*/)
    expect(posted('POST /repos/o/r/check-runs')[0]).toMatchObject({ conclusion: 'success' })
  })

  test("a fork's pull request is refused (nothing posted) unless allow-fork-prs", async () => {
    const inputs = {
      mode: 'analyze',
      'results-format': 'hyperfine',
      results: pairs('fast', 'slow'),
      'github-token': TOKEN
    }
    const refused = await action(inputs, prEnv('evil/r'))
    expect(refused.failed).toBe(true)
    expect(refused.outputs).toMatch(/verdict<<\S+\nerror\n/)
    expect(refused.log).toMatch(
      /^::error::refusing to run a fork pull request #7 \(evil\/r.*allow-fork-prs: true/m
    )
    expect(api.requests).toEqual([])
    const allowed = await action({ ...inputs, 'allow-fork-prs': 'true' }, prEnv('evil/r'))
    expect(allowed.log).toMatch(/^::warning::running a fork pull request #7/m)
    expect(posted('POST /repos/o/r/check-runs')[0]).toMatchObject({ conclusion: 'failure' })
  })

  test("check-run: '' and comment: never post nothing; a check's results folder is never overwritten", async () => {
    const quiet = await action(
      {
        mode: 'analyze',
        'results-format': 'hyperfine',
        results: pairs('fast', 'slow'),
        'github-token': TOKEN,
        'check-run': '',
        comment: 'never'
      },
      prEnv()
    )
    expect(quiet.failed).toBe(true)
    expect(api.requests).toEqual([])
    mkdirSync(path.join(ws, 'check-out'))
    writeFileSync(path.join(ws, 'check-out', 'results.jsonl'), '')
    const clash = await action(
      { mode: 'analyze', 'results-format': 'hyperfine', results: pairs('fast', 'slow'), out: 'check-out' },
      prEnv()
    )
    expect(clash.failed).toBe(true)
    expect(clash.log).toMatch(/^::error::.*input 'out'.*give mode analyze its own out/m)
    expect(readFileSync(path.join(ws, 'check-out', 'results.jsonl'), 'utf8')).toBe('')
  })
})
