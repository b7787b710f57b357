/**
 * Issue 53's low cases, each as a user meets it: `gpu-overhead` (the CLI's main, in this process) or the
 * action's run().
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { clearSecrets } from '../../src/util/secrets.js'
import { buildHistory } from '../helpers/trend-history.js'
import { runAction } from './action-env.js'
import { startFakeApi } from '../helpers/fake-github.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const FIX = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters')
const made: string[] = []
const tmp = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-r4-${prefix}-`))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})
afterEach(() => {
  process.exitCode = undefined
  clearSecrets()
})

/** The CLI's main in this process, in `cwd`: exit code, stdout and stderr. */
async function cli(args: string[], cwd = process.cwd()): Promise<{ code: number; out: string; err: string }> {
  const r = await mainInProcess(args, { cwd })
  return { code: r.code, out: r.stdout, err: r.stderr }
}

describe('gate-metrics names a metric without data (C16-27, -28, -37)', () => {
  /** vLLM runs, 5 per arm, alike; `drop(arm, run)` says which runs' files leave p99_tpot_ms out. */
  function inputs(drop: (arm: string, run: number) => boolean): string[] {
    const dir = tmp('gate-metrics')
    const doc = JSON.parse(fs.readFileSync(path.join(FIX, 'vllm-bench-serve.json'), 'utf8')) as Record<
      string,
      unknown
    >
    const out: string[] = []
    for (let k = 0; k < 5; k++)
      for (const arm of ['native', 'container']) {
        const run = Object.fromEntries(
          Object.entries(doc)
            .filter(([key]) => !(key === 'p99_tpot_ms' && drop(arm, k)))
            .map(([key, v]) => [key, typeof v === 'number' && /_ms$/.test(key) ? v * (1 + 0.002 * k) : v])
        )
        const file = path.join(dir, `${arm}-${k}.json`)
        fs.writeFileSync(file, JSON.stringify(run))
        out.push(`${arm}=${file}`)
      }
    return out
  }
  const analyze = (files: string[]): Promise<{ code: number; out: string; err: string }> =>
    cli([
      'analyze',
      '--format-in',
      'vllm-bench-serve',
      '--input',
      files.join(','),
      '--format',
      'json',
      '--gate-metrics',
      'vllm-bench-serve/p99_tpot_ms'
    ])

  it.each([
    ["the candidate's files leave it out", (arm: string): boolean => arm === 'container'],
    ["the baseline's files leave it out", (arm: string): boolean => arm === 'native'],
    ['no file has it', (): boolean => true],
    ['one candidate run has it', (arm: string, k: number): boolean => arm === 'container' && k > 0]
  ])('%s: an error (exit 2) that names it, never a pass', async (_, drop) => {
    const r = await analyze(inputs(drop))
    expect(r.code).toBe(2)
    const json = JSON.parse(r.out) as { error?: string }
    expect(json.error).toMatch(/gate-metrics names .*vllm-bench-serve\/p99_tpot_ms/)
  })

  it('the control: both arms have it in every run, and the check decides (not an error)', async () => {
    const r = await analyze(inputs(() => false))
    expect(r.code).not.toBe(2)
    expect((JSON.parse(r.out) as { error?: string }).error).toBeUndefined()
  })
})

describe('one metric, two units or directions (D-18)', () => {
  type Metrics = Record<string, { unit: string; better?: string }>
  /** A stored history of 12 nights with `edit` applied to each stored check's kernel_ms (night index). */
  function history(edit: (m: { unit: string; better?: string }, night: number) => void): string {
    const data = buildHistory({ nights: 12, level: () => 43 }) as unknown as {
      entries: Record<string, { checks: { metrics: Metrics }[] }>
      history: Record<string, { points: { metrics: Metrics }[] }>
    }
    // The same edit to the stored checks (what analyze compares with) and the history (what trend reads).
    for (const list of [
      ...Object.values(data.entries).map(e => e.checks),
      ...Object.values(data.history).map(s => s.points)
    ])
      list.forEach((c, i) => {
        const m = c.metrics['kernel_ms']
        if (m) edit(m, i)
      })
    const file = path.join(tmp('d18'), 'baseline.json')
    fs.writeFileSync(file, JSON.stringify(data))
    return file
  }
  /** This check's samples as a CSV, in ms, lower is better (as the stored checks declared). */
  function currentCsv(): string {
    const rows = ['workload,params,environment,run,metric,value,unit,better']
    for (const env of ['native', 'container'])
      for (let run = 1; run <= 3; run++)
        rows.push(
          `matmul,"{""n"":10000}",${env},${run},kernel_ms,${env === 'native' ? 41 + run * 0.01 : 43 + run * 0.01},ms,lower`
        )
    const file = path.join(tmp('d18-csv'), 'results.csv')
    fs.writeFileSync(file, rows.join('\n') + '\n')
    return file
  }

  it.each([
    [
      'a unit that changed half-way',
      (m: { unit: string }, n: number): void => void (m.unit = n < 6 ? 'ms' : 's'),
      /unit/
    ],
    [
      'a direction that changed half-way',
      (m: { better?: string }, n: number): void => void (m.better = n < 6 ? 'lower' : 'higher'),
      /better/
    ]
  ])('trend over a history with %s: exit 2 naming the metric and both', async (_, edit, what) => {
    const r = await cli(['trend', '--baseline', history(edit)])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(what)
    expect(r.err).toMatch(/kernel_ms in the history/)
  })

  it.each([
    [
      'stored in s, this check in ms',
      (m: { unit: string }): void => void (m.unit = 's'),
      /unit.*s in the stored baseline and ms/
    ],
    [
      'stored checks in ms and in s',
      (m: { unit: string }, n: number): void => void (m.unit = n % 2 ? 's' : 'ms'),
      /unit \(kernel_ms in the stored baseline\)/
    ],
    [
      'stored checks lower and higher',
      (m: { better?: string }, n: number): void => void (m.better = n % 2 ? 'higher' : 'lower'),
      /better \(kernel_ms in the stored baseline\)/
    ]
  ])('analyze against a stored baseline %s: exit 2, never a ratio of two units', async (_, edit, what) => {
    const r = await cli(['analyze', '--input', currentCsv(), '--baseline', history(edit)])
    expect(r.err).toMatch(what)
    expect(r.code).toBe(2)
  })

  it('the control: one unit and one direction throughout is compared', async () => {
    const r = await cli(['analyze', '--input', currentCsv(), '--baseline', history(() => undefined)])
    expect(r.code).not.toBe(2)
    expect((await cli(['trend', '--baseline', history(() => undefined)])).code).not.toBe(2)
  })
})

describe('redaction edge cases, through the action (C17-01, -05, -06, -11, -12, -22)', () => {
  const word = (n: number): string =>
    Array.from({ length: n }, (_, i) => 'Qx7Kp2Lm9ZrT4vWb8NcY3hJd6'[(i * 7 + n) % 25]).join('')
  it('what a failing command prints on stderr and its words never reach anything published', async () => {
    const ws = tmp('redact')
    const hf = `hf${word(30)}`
    const apiKey = `-${word(24)}`
    const bearer = `b${word(9)}`
    const userOnly = `u${word(19)}`
    const full = [...Buffer.from(hf)].map(b => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')
    const mixed = [...Buffer.from(hf)]
      .map((b, i) => (i % 3 ? String.fromCharCode(b) : `%${b.toString(16)}`))
      .join('')
    fs.writeFileSync(
      path.join(ws, 'leak.py'),
      `import sys
print("VISIBLE-MARKER: the command's stderr is shown", file=sys.stderr)
print("invalid key", sys.argv[2], file=sys.stderr)
print("Authorization: Bearer ${bearer}", file=sys.stderr)
print("clone https://${userOnly}@github.com/o/r.git", file=sys.stderr)
print("hex ${Buffer.from(hf).toString('hex').toUpperCase()}", file=sys.stderr)
print("url ${full} and ${mixed}", file=sys.stderr)
sys.exit(3)
`
    )
    const r = await runAction({
      workspace: ws,
      inputs: { commands: `leaky: /usr/bin/python3 leak.py --api-key ${apiKey}` },
      env: { HF_TOKEN: hf }
    })
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
    const all = texts.join('\n')
    // The control: the command's stderr is what the tool shows of a failure.
    expect(all).toContain('VISIBLE-MARKER')
    for (const leaked of [
      apiKey,
      apiKey.slice(1),
      bearer,
      userOnly,
      Buffer.from(hf).toString('hex').toUpperCase(),
      full,
      mixed
    ])
      expect({ leaked, found: all.includes(leaked) }).toEqual({ leaked, found: false })
  })
})

describe('a config file with 60,000 keys (C21-07)', () => {
  it.each([
    ['block keys', (n: number): string => Array.from({ length: n }, (_, i) => `k${i}: 1`).join('\n')],
    [
      'one flow mapping',
      (n: number): string => `{${Array.from({ length: n }, (_, i) => `k${i}: 1`).join(', ')}}`
    ],
    ['a list', (n: number): string => `runs:\n${Array.from({ length: n }, () => '  - 1').join('\n')}`]
  ])(
    '%s: refused at once (exit 2), not parsed for minutes',
    async (_, body) => {
      const ws = tmp('yaml')
      // Under the file's byte limit (1 MiB), so only a bound on the entries stops it.
      let n = 60_000
      while (body(n).length > 1_000_000) n = Math.floor(n * 0.9)
      fs.writeFileSync(path.join(ws, 'gpu-overhead.yml'), body(n))
      const t0 = Date.now()
      const r = await cli(
        [
          'run',
          '--device',
          'cpu',
          '--arms',
          'native,native',
          '--python',
          '/usr/bin/python3',
          '--config',
          'gpu-overhead.yml'
        ],
        ws
      )
      expect(r.code).toBe(2)
      expect(r.err).toMatch(/input 'config'.*at most 2000 keys, list items and commas/)
      expect(Date.now() - t0).toBeLessThan(5_000)
    },
    30_000
  )
})

describe('a malformed comment list from the API (C20-12)', () => {
  const BOT = 'github-actions[bot]'
  const pr = {
    name: 'pull_request',
    payload: {
      number: 7,
      pull_request: {
        number: 7,
        head: { repo: { full_name: 'o/r', fork: false } },
        base: { repo: { full_name: 'o/r' } }
      }
    }
  }
  async function withComments(list: unknown): Promise<{ log: string; posts: number; patches: number }> {
    const ws = tmp('comments')
    fs.writeFileSync(
      path.join(ws, 'b.py'),
      `import json\nfor i in range(3):\n    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)\n`
    )
    const api = await startFakeApi({
      'GET /repos/o/r/issues/7/comments': { status: 200, body: list },
      'POST /repos/o/r/issues/7/comments': {
        status: 201,
        body: { id: 9, html_url: 'https://github.example/c/9' }
      },
      'PATCH /repos/o/r/issues/comments/5': {
        status: 200,
        body: { id: 5, html_url: 'https://github.example/c/5' }
      }
    })
    try {
      const r = await runAction({
        workspace: ws,
        inputs: {
          commands: 'b: /usr/bin/python3 b.py',
          'github-token': `ghs_${'k'.repeat(36)}`,
          comment: 'always'
        },
        env: {
          GITHUB_REPOSITORY: 'o/r',
          GITHUB_API_URL: api.url,
          GITHUB_ACTIONS: 'true',
          GITHUB_WORKFLOW: 'pr',
          GITHUB_JOB: 'overhead'
        },
        event: pr
      })
      const count = (m: string): number =>
        api.requests.filter(q => q.method === m && q.path.includes('comments')).length
      return { log: r.log, posts: count('POST'), patches: count('PATCH') }
    } finally {
      await api.close()
    }
  }

  it('items that are no comment are passed over; ours among them is updated, not duplicated', async () => {
    const ours = {
      id: 5,
      body: '<!-- gpu-overhead-action:report workflow="pr" job="overhead" -->\nold',
      html_url: 'https://github.example/c/5',
      user: { login: BOT }
    }
    const r = await withComments([
      null,
      7,
      'x',
      { id: 'nine' },
      { id: 6, body: null, user: null, html_url: 'u' },
      ours
    ])
    expect(r.log).not.toMatch(/TypeError|Cannot read properties/)
    expect({ patches: r.patches, posts: r.posts }).toEqual({ patches: 1, posts: 0 })
  })

  it.each([
    ['an object', { message: 'rate limited' }],
    ['a proxy page', '<html>login</html>']
  ])('%s instead of a list: named, and no second comment is posted', async (_, body) => {
    const r = await withComments(body)
    expect(r.log).not.toMatch(/TypeError|Cannot read properties/)
    expect(r.log).toMatch(/comments answered without a list/)
    expect(r.posts).toBe(0)
  })
})
