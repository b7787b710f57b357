/**
 * The config file's `commands:` map on CPU, through the built CLI and the real Docker engine: with
 * --allow-config-commands a command the checked-out gpu-overhead.yml names runs natively (in the workspace)
 * and in an NGC-like image (the workspace read-only at its own path, through the entrypoint), and is compared
 * like any command; a --command of the same name wins (the log says so); the summary records each command's
 * source. Without the flag the file's commands fail the run by name before anything starts.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { CLI_TIMEOUT_MS, HOST_PYTHON, runCli } from '../helpers/cli.js'
import { buildNgcImage, removeNgcImages } from '../helpers/ngc-image.js'

let image = ''
beforeAll(async () => {
  image = await buildNgcImage({ name: 'config-commands' })
}, 600_000)
afterAll(async () => {
  await removeNgcImages([image])
}, 120_000)

const made: string[] = []
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

/** A workspace whose gpu-overhead.yml (the tree's file) names two commands; `ran.py` marks where it ran. */
function workspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'config-commands-'))
  made.push(ws)
  fs.writeFileSync(
    path.join(ws, 'ran.py'),
    'import os, sys, time\ntime.sleep(0.05)\nprint("ran in", os.getcwd(), "as", sys.argv[1])\n'
  )
  fs.writeFileSync(
    path.join(ws, 'gpu-overhead.yml'),
    [
      'commands:',
      '  mine: /usr/bin/python3 ran.py from-the-tree',
      '  theirs:',
      '    run: /usr/bin/python3 ran.py theirs',
      '    format: wall',
      ''
    ].join('\n')
  )
  return ws
}

const args = (extra: string[]): string[] => [
  'run',
  '--device',
  'cpu',
  '--image',
  image,
  '--runs',
  '3',
  '--max-runs',
  '3',
  '--python',
  HOST_PYTHON,
  '--out',
  'out',
  ...extra
]

describe("the config file's commands through the CLI", () => {
  it(
    'refused without --allow-config-commands, by name, before anything runs',
    () => {
      const ws = workspace()
      const r = runCli(args([]), ws)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(
        /input 'commands': got "\(set in the config file gpu-overhead\.yml\)".*allow-config-commands: true \(CLI --allow-config-commands\)/
      )
      expect(fs.existsSync(path.join(ws, 'out'))).toBe(false)
    },
    CLI_TIMEOUT_MS
  )

  it(
    'with --allow-config-commands they run both ways and are compared; a --command of the same name wins',
    () => {
      const ws = workspace()
      const r = runCli(
        args(['--allow-config-commands', '--command', `mine=/usr/bin/python3 ran.py from-the-flag`]),
        ws
      )
      expect([0, 1]).toContain(r.code)
      expect(r.stderr).toMatch(
        /command mine: the workflow's command of that name is used; the entry in .*gpu-overhead\.yml is ignored/
      )
      expect(r.stderr).toMatch(
        /command theirs comes from the checked-out .*gpu-overhead\.yml \(allow-config-commands: true\)/
      )
      const s = JSON.parse(fs.readFileSync(path.join(ws, 'out', 'summary.json'), 'utf8')) as CheckSummary
      expect(s.complete).toBe(true)
      expect(s.runs.filter(x => x.status !== 'ok')).toEqual([])
      expect(s.config.commands).toEqual([
        { name: 'mine', source: 'workflow', format: 'auto' },
        { name: 'theirs', source: 'config-file', format: 'wall' }
      ])
      // Both commands, both arms, three runs each, read by their wall time.
      for (const w of ['mine', 'theirs']) {
        const c = s.analysis?.comparisons.find(x => x.workload === w && x.metric === 'wall_s')
        expect({ w, n: [c?.n_baseline, c?.n_candidate] }).toEqual({ w, n: [3, 3] })
        expect(new Set(s.runs.filter(x => x.workload === w).map(x => x.environment))).toEqual(
          new Set(['native', 'container'])
        )
      }
      // The flag's command ran, not the tree's: its words are the baseline's parameters.
      expect(s.runs.find(x => x.workload === 'mine')?.params['command']).toBe(
        '/usr/bin/python3 ran.py from-the-flag'
      )
      // The container ran it in the workspace (mounted read-only at its own path), like the native arm.
      const logs = fs.readFileSync(path.join(ws, 'out', 'run-logs.txt'), 'utf8')
      expect(logs).toContain(`ran in ${fs.realpathSync(ws)} as theirs`)
      const report = fs.readFileSync(path.join(ws, 'out', 'report.md'), 'utf8')
      expect(report).toContain('`theirs` (command from the checked-out config file)')
      expect(report).toContain('`mine` (command from the workflow)')
    },
    CLI_TIMEOUT_MS
  )
})
