/**
 * `gpu-overhead run` as a user meets it: --help shows every flag's default, action-only inputs are refused by
 * name with what to do instead, and --out may be any folder (the action keeps outputs in the workspace).
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { DEFAULTS, loadConfig } from '../../src/config/index.js'
import { ACTION_ONLY, buildProgram, runFlagHelp } from '../../src/entry/cli/index.js'
import { mainInProcess } from '../helpers/main-in-process.js'
import { Inputs } from '../../src/types/inputs.js'

function runHelp(): string {
  const run = buildProgram().commands.find(c => c.name() === 'run')
  if (!run) throw new Error('no run command')
  return run.helpInformation()
}

describe('run --help', () => {
  it('shows the default of every flag that has one', () => {
    const help = runHelp().replace(/\s+/g, ' ')
    for (const name of Object.values(Inputs)) {
      if (ACTION_ONLY.includes(name)) continue
      expect(help).toContain(`--${name}`)
      if (DEFAULTS[name] !== '') expect(runFlagHelp(name)).toMatch(/\bdefault\b/)
    }
    expect(help).toContain(
      '--runs <value> measured processes per arm and workload before the first sequential look (the minimum) (default: 3)'
    )
    expect(help).toContain('(= runs: fixed count) (default: 16)')
    expect(help).toContain('(default: 2%)')
  })

  it('hides the action-only inputs', () => {
    for (const name of ACTION_ONLY) expect(runHelp()).not.toContain(`--${name}`)
  })
})

describe('action-only inputs on run', () => {
  it.each([
    [['--comment', 'always'], /input 'comment'.*action input; the CLI publishes nothing to GitHub/],
    [['--github-token', 'x'], /input 'github-token'.*OUT\/report\.md/],
    [['--mode', 'aggregate'], /input 'mode'.*gpu-overhead aggregate DIR/]
  ])('%j exits 2 naming the input and what to do instead', async (args, message) => {
    const r = await mainInProcess(['run', ...args])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
  })
})

describe('--workloads beside --command (issue 40)', () => {
  it('a command left out of --workloads exits 2 naming it, before anything runs', async () => {
    const args = [
      '--device',
      'cpu',
      '--arms',
      'native,native',
      '--workloads',
      'matmul',
      '--command',
      'x=python3 a.py'
    ]
    const r = await mainInProcess(['run', ...args])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(
      /workloads.*command x would not run \(add x to --workloads, e\.g\. --workloads matmul,x; or --workloads auto/
    )
  })
})

describe('--out outside the current folder', () => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-ws-'))
  const elsewhere = path.join(os.tmpdir(), 'gpu-overhead-anywhere', 'results')
  afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }))

  it('is where the CLI writes (outputsAnywhere), relative paths still against the cwd', () => {
    const flags = { [Inputs.Out]: elsewhere, [Inputs.Device]: 'cpu', [Inputs.Arms]: 'native,native' }
    expect(loadConfig({ flags, workspace, outputsAnywhere: true }).out).toBe(elsewhere)
    const relative = loadConfig({ flags: { ...flags, [Inputs.Out]: 'r' }, workspace, outputsAnywhere: true })
    expect(relative.out).toBe(path.join(workspace, 'r'))
  })

  it('stays refused for the action (inputs and config files on a shared runner)', () => {
    const inputs = { [Inputs.Out]: elsewhere, [Inputs.Device]: 'cpu', [Inputs.Arms]: 'native,native' }
    expect(() => loadConfig({ inputs, workspace })).toThrow(/input 'out'.*a path inside the workspace/)
    expect(() => loadConfig({ inputs: { ...inputs, [Inputs.Out]: '../x' }, workspace })).toThrow(
      /inside the workspace/
    )
  })
})
