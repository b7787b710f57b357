/**
 * Trust, through the real action entry (`node dist/index.js`) with the environment the Actions runner
 * gives it (INPUT_*, GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY): a fork PR is refused by
 * default and runs only with allow-fork-prs; the token reaches the GitHub API (a local HTTP server
 * standing in for it) only in the Authorization header and is never written anywhere else.
 */
import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as path from 'node:path'
import { ACTION, readSamples, readSummary, startNode, workspace } from './helpers.js'

// Fake, in the shape of a classic personal access token (ghp_ + 36).
const TOKEN = `ghp_${'Zx9Qw2Er7Ty4Ui1Op6As3Df8Gh5Jk0Lz'.padEnd(36, 'M')}`

interface Received {
  method: string
  url: string
  authorization: string | undefined
  body: string
}

/** Stands in for api.github.com: no comment yet, then accepts the new one. */
async function fakeGitHub(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body
      })
      res.setHeader('Content-Type', 'application/json')
      if (req.method === 'GET') return res.end('[]')
      res.statusCode = 201
      res.end(JSON.stringify({ id: 1, html_url: 'http://github.invalid/org/repo/pull/7#issuecomment-1' }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>(resolve => server.close(() => resolve()))
  }
}

/** A runner-like environment built from scratch (never the test process's own GITHUB_* files). */
function actionEnv(ws: string, event: unknown, inputs: Record<string, string>): NodeJS.ProcessEnv {
  const eventPath = path.join(ws, 'event.json')
  fs.writeFileSync(eventPath, JSON.stringify(event))
  fs.writeFileSync(path.join(ws, 'github_output'), '')
  fs.writeFileSync(path.join(ws, 'step_summary'), '')
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: ws,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: ws,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'org/repo',
    GITHUB_JOB: 'overhead',
    GITHUB_WORKFLOW: 'pr',
    GITHUB_OUTPUT: path.join(ws, 'github_output'),
    GITHUB_STEP_SUMMARY: path.join(ws, 'step_summary'),
    RUNNER_TEMP: ws
  }
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v
  return env
}

const forkPr = {
  number: 7,
  pull_request: {
    number: 7,
    head: { repo: { full_name: 'evil/repo', fork: true } },
    base: { repo: { full_name: 'org/repo' } }
  }
}

const CPU_INPUTS = {
  device: 'cpu',
  arms: 'native,native',
  workloads: 'matmul',
  runs: '2',
  'warmup-runs': '0',
  python: '/usr/bin/python3',
  'matmul-size': '64',
  'fail-on-regression': 'false',
  out: 'out'
}

function output(ws: string, name: string): string | null {
  const text = fs.readFileSync(path.join(ws, 'github_output'), 'utf8')
  const m = new RegExp(`^${name}<<(\\S+)\\n([\\s\\S]*?)\\n\\1$`, 'm').exec(text)
  return m ? (m[2] ?? null) : null
}

describe('fork pull requests through the real action entry', () => {
  it('refused by default: exit 1, verdict error, the message names allow-fork-prs, nothing runs', async () => {
    const ws = workspace('fork-refused')
    const r = await startNode(ACTION, [], ws, actionEnv(ws, forkPr, CPU_INPUTS)).done
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /^::error::refusing to run a fork pull request #7 \(evil\/repo, event pull_request\).*allow-fork-prs: true/m
    )
    expect(output(ws, 'verdict')).toBe('error')
    expect(fs.existsSync(path.join(ws, 'out'))).toBe(false)
  })

  it('allowed with allow-fork-prs: true (warned), and the token is never written anywhere', async () => {
    const ws = workspace('fork-allowed')
    const api = await fakeGitHub()
    try {
      const env = actionEnv(ws, forkPr, { ...CPU_INPUTS, 'allow-fork-prs': 'true', 'github-token': TOKEN })
      env.GITHUB_API_URL = api.url
      const r = await startNode(ACTION, [], ws, env).done
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(
        /^::warning::running a fork pull request #7 \(evil\/repo, event pull_request\).*allow-fork-prs is true/m
      )
      const out = path.join(ws, 'out')
      expect(readSummary(out).complete).toBe(true)
      expect(readSamples(out).length).toBeGreaterThan(0)
      expect(output(ws, 'verdict')).toMatch(/^(pass|regression|inconclusive)$/) // fail-on-regression: false

      // The token was used: the comment went to the API with it in the Authorization header only.
      const post = api.received.find(x => x.method === 'POST')
      expect(post?.url).toBe('/repos/org/repo/issues/7/comments')
      // Octokit sends a classic token as `token …`, fetch sent `Bearer …`: either way, only in this header.
      expect(
        api.received.every(x => [`Bearer ${TOKEN}`, `token ${TOKEN}`].includes(x.authorization ?? ''))
      ).toBe(true)
      for (const x of api.received) expect(`${x.url}\n${x.body}`).not.toContain(TOKEN)

      // Logs: only the runner's own ::add-mask:: command carries it (that is how masking works).
      const logLines = `${r.stdout}\n${r.stderr}`.split('\n').filter(l => !l.startsWith('::add-mask::'))
      expect(logLines.join('\n')).not.toContain(TOKEN)
      expect(r.stdout).toContain(`::add-mask::${TOKEN}`)
      const written = [path.join(ws, 'step_summary'), path.join(ws, 'github_output')]
      for (const e of fs.readdirSync(out, { withFileTypes: true, recursive: true }))
        if (e.isFile()) written.push(path.join(e.parentPath, e.name))
      expect(written.map(f => path.basename(f))).toEqual(
        expect.arrayContaining(['report.md', 'summary.json', 'results.jsonl', 'samples.csv', 'runs.jsonl'])
      )
      expect(fs.readFileSync(path.join(ws, 'step_summary'), 'utf8')).toMatch(
        /\*\*(PASS|INCONCLUSIVE|UNDECIDED)/
      )
      for (const f of written)
        expect({ f, leaked: fs.readFileSync(f, 'utf8').includes(TOKEN) }).toEqual({ f, leaked: false })
    } finally {
      await api.close()
    }
  }, 120_000)
})
