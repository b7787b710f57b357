/**
 * The config file's `commands:` through the action's own run() (the same environment the runner gives it):
 * a fork's commands never run without allow-fork-prs, even with allow-config-commands; without the opt-in a
 * same-repository PR's config command is refused by name; with it, the command runs (natively, A/A) and the
 * summary and report say it came from the checked-out config file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runActionHere } from '../hardening/action-env.js'

let runner: string
const made: string[] = []
beforeAll(() => {
  runner = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-config-cmd-runner-'))
})
afterAll(() => {
  for (const d of [runner, ...made]) rmSync(d, { recursive: true, force: true })
})

const pr = (head: string): unknown => ({
  number: 7,
  pull_request: {
    number: 7,
    head: { repo: { full_name: head } },
    base: { repo: { full_name: 'org/repo' } }
  },
  repository: { full_name: 'org/repo' }
})

/** A workspace whose gpu-overhead.yml names a command that leaves a file in it when it runs. */
function workspace(): string {
  const ws = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-config-cmd-'))
  made.push(ws)
  writeFileSync(
    path.join(ws, 'gpu-overhead.yml'),
    "runs: 2\ncommands:\n  mine: /usr/bin/python3 -c \"open('ran', 'a').write('x')\"\n"
  )
  return ws
}

async function action(
  ws: string,
  head: string,
  inputs: Record<string, string>
): Promise<{ outputs: string; log: string; failed: boolean }> {
  const env = { ...process.env }
  const files = { GITHUB_OUTPUT: 'out', GITHUB_STATE: 'state', GITHUB_STEP_SUMMARY: 'summary' }
  for (const [v, f] of Object.entries(files)) {
    const p = path.join(runner, f)
    writeFileSync(p, '')
    process.env[v] = p
  }
  const eventPath = path.join(runner, 'event.json')
  writeFileSync(eventPath, JSON.stringify(pr(head)))
  Object.assign(process.env, {
    GITHUB_WORKSPACE: ws,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath
  })
  delete process.env.GITHUB_REPOSITORY
  const base = {
    device: 'cpu',
    arms: 'native,native',
    python: '/usr/bin/python3',
    'max-runs': '2',
    'github-token': '',
    comment: 'never',
    'check-run': '',
    'baseline-branch': ''
  }
  for (const [k, v] of Object.entries({ ...base, ...inputs })) process.env[`INPUT_${k.toUpperCase()}`] = v
  return runActionHere(runner, env)
}

test("a fork's config-file commands never run without allow-fork-prs, even with allow-config-commands", async () => {
  const ws = workspace()
  const r = await action(ws, 'evil/repo', { 'allow-config-commands': 'true' })
  expect(r.failed).toBe(true)
  expect(r.outputs).toMatch(/verdict<<\S+\nerror\n/)
  expect(r.log).toMatch(
    /refusing to run a fork pull request #7 \(evil\/repo, event pull_request\).*its config file's commands \(mine\).*allow-fork-prs: true/
  )
  expect(existsSync(path.join(ws, 'ran'))).toBe(false)
  expect(existsSync(path.join(ws, 'gpu-overhead-results'))).toBe(false)
})

test('without allow-config-commands a config-file command fails the step by name; nothing runs', async () => {
  const ws = workspace()
  const r = await action(ws, 'org/repo', {})
  expect(r.failed).toBe(true)
  expect(r.log).toMatch(/input 'commands'.*allow-config-commands: true/)
  expect(existsSync(path.join(ws, 'ran'))).toBe(false)
})

test('with allow-config-commands the command runs, and the summary and report say where it came from', async () => {
  const ws = workspace()
  const r = await action(ws, 'org/repo', { 'allow-config-commands': 'true' })
  expect(r.outputs).toMatch(/verdict<<\S+\n(pass|inconclusive)\n/)
  expect(r.log).toMatch(
    /command mine comes from the checked-out .*gpu-overhead\.yml \(allow-config-commands: true\)/
  )
  // Two arms × two runs, each a fresh process in the workspace.
  expect(readFileSync(path.join(ws, 'ran'), 'utf8')).toBe('xxxx')
  const summary = JSON.parse(readFileSync(path.join(ws, 'gpu-overhead-results', 'summary.json'), 'utf8')) as {
    config: { commands?: unknown }
  }
  expect(summary.config.commands).toEqual([{ name: 'mine', source: 'config-file', format: 'auto' }])
  const report = readFileSync(path.join(ws, 'gpu-overhead-results', 'report.md'), 'utf8')
  expect(report).toContain('`mine` (command from the checked-out config file)')
}, 120_000)
