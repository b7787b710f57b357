/**
 * Issue 53 C2-19: `.github` swapped for a link after the config check, with save-baseline. The PR's own native
 * command replaces the workspace's `.github` (or `.github/gpu-overhead`) with a link to a folder elsewhere while
 * the check runs; the baseline is written later. Through the action's run(): nothing appears at the link's
 * target, and the refusal is reported.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { runAction } from './action-env.js'

const made: string[] = []
const tmp = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-swap-${prefix}-`))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

/** A workload that prints samples and, the first time, swaps `which` (relative to the workspace) for a link. */
const script = (which: string, target: string): string =>
  [
    'import json, os, shutil',
    `which, target = ${JSON.stringify(which)}, ${JSON.stringify(target)}`,
    'if not os.path.islink(which):',
    '    shutil.rmtree(which, ignore_errors=True)',
    '    os.makedirs(os.path.dirname(which) or ".", exist_ok=True)',
    '    os.symlink(target, which)',
    'for i in range(3):',
    '    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)',
    ''
  ].join('\n')

describe('a folder on the baseline path swapped for a link during the check, save-baseline on', () => {
  it.each([['.github'], ['.github/gpu-overhead']])(
    '%s → a folder outside: nothing is written there',
    async which => {
      const ws = tmp('ws')
      const outside = tmp('outside')
      // The link's target looks like the folder it replaces: a write through it would land there.
      const target = which === '.github' ? outside : path.join(outside, 'gpu-overhead')
      fs.mkdirSync(path.join(outside, 'gpu-overhead'), { recursive: true })
      fs.mkdirSync(path.join(ws, '.github', 'gpu-overhead'), { recursive: true })
      fs.writeFileSync(path.join(ws, 'x.py'), script(which, target))
      const r = await runAction({
        workspace: ws,
        inputs: { commands: 'mine: /usr/bin/python3 x.py', 'save-baseline': 'true' }
      })
      // The command did swap it (else the test proves nothing).
      expect(fs.lstatSync(path.join(ws, which)).isSymbolicLink()).toBe(true)
      expect(fs.readdirSync(path.join(outside, 'gpu-overhead'))).toEqual([])
      expect(fs.readdirSync(outside)).toEqual(['gpu-overhead'])
      expect(r.log).toMatch(/symbolic link|not a real folder/)
    },
    60_000
  )

  it('the control: with no swap the baseline is saved in the workspace', async () => {
    const ws = tmp('ctl')
    fs.writeFileSync(path.join(ws, 'x.py'), script('unused-folder', tmp('unused')))
    await runAction({
      workspace: ws,
      inputs: { commands: 'mine: /usr/bin/python3 x.py', 'save-baseline': 'true' }
    })
    expect(fs.existsSync(path.join(ws, '.github', 'gpu-overhead', 'baseline.json'))).toBe(true)
  }, 60_000)
})
