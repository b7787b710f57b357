/**
 * Issue 53 C9-16: a result file, a baseline or a file the tool writes into that is a hard link to a file
 * outside the workspace (the same inode, st_nlink > 1) is never read as the tree's own nor written through.
 * Real hard links on one filesystem, through the action's run() as the runner starts it.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { runAction } from './action-env.js'
import { safeAppend, safeWriteStream, writeAll } from '../../src/util/safe-fs.js'

const FIX = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters', 'hyperfine-runs')
const made: string[] = []
const tmp = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-hl-${prefix}-`))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

const SCRIPT =
  'import json\nfor i in range(3):\n    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)\n'

describe('a hard-linked file in the tree', () => {
  it('mode analyze: a result file hard-linked to one outside the workspace is refused by name', async () => {
    const ws = tmp('ws')
    const outside = tmp('outside')
    fs.mkdirSync(path.join(ws, 'bench'))
    const results: string[] = []
    for (const [arm, name] of [
      ['native', 'fast'],
      ['container', 'slow']
    ] as const)
      for (const i of [1, 2, 3]) {
        fs.copyFileSync(path.join(FIX, `hf-${name}-${i}.json`), path.join(ws, 'bench', `${arm}-${i}.json`))
        results.push(`${arm}=bench/${arm}-${i}.json`)
      }
    // The control: the same files as the tree's own are analysed.
    const own = await runAction({
      workspace: ws,
      inputs: { mode: 'analyze', 'results-format': 'hyperfine', results: results.join(',') }
    })
    expect(own.outputs).not.toMatch(/verdict<<\S+\nerror\n/)
    // One of them becomes a hard link to a file outside (its content the same: only the inode tells).
    const secret = path.join(outside, 'secret.json')
    fs.renameSync(path.join(ws, 'bench', 'native-2.json'), secret)
    fs.linkSync(secret, path.join(ws, 'bench', 'native-2.json'))
    const linked = await runAction({
      workspace: ws,
      inputs: { mode: 'analyze', 'results-format': 'hyperfine', results: results.join(',') }
    })
    expect(linked.failed).toBe(true)
    expect(linked.outputs).toMatch(/verdict<<\S+\nerror\n/)
    expect(linked.log).toMatch(/native-2\.json[\s\S]*hard links/)
  }, 60_000)

  it('a check with save-baseline: a baseline hard-linked outside is not read, and the outside file is unchanged', async () => {
    const ws = tmp('base')
    const outside = tmp('base-outside')
    fs.writeFileSync(path.join(ws, 'x.py'), SCRIPT)
    const inputs = { commands: 'mine: /usr/bin/python3 x.py', 'save-baseline': 'true' }
    const first = await runAction({ workspace: ws, inputs })
    const baseline = path.join(ws, '.github', 'gpu-overhead', 'baseline.json')
    expect(first.log).not.toMatch(/hard link/)
    expect(fs.existsSync(baseline)).toBe(true)
    // The stored baseline moves outside; the tree's baseline becomes a hard link to it.
    const target = path.join(outside, 'baseline.json')
    fs.renameSync(baseline, target)
    fs.linkSync(target, baseline)
    const before = fs.readFileSync(target, 'utf8')
    await runAction({ workspace: ws, inputs })
    const report = fs.readFileSync(path.join(ws, 'gpu-overhead-results', 'report.md'), 'utf8')
    expect(report).toMatch(/baseline\.json[\s\S]*hard links/)
    expect(fs.readFileSync(target, 'utf8')).toBe(before)
  }, 120_000)
})

describe('the write helpers every writer uses', () => {
  it.each([
    ['append', (f: string) => safeAppend(f, 'x\n')],
    ['stream', (f: string) => safeWriteStream(f, fd => writeAll(fd, 'x\n'))]
  ])('%s: a file with a second hard link outside is refused, the outside file untouched', (_k, write) => {
    const dir = tmp('w')
    const outside = tmp('w-outside')
    fs.writeFileSync(path.join(outside, 'keep'), 'secret\n')
    fs.linkSync(path.join(outside, 'keep'), path.join(dir, 'file'))
    expect(() => write(path.join(dir, 'file'))).toThrow(/hard links/)
    expect(fs.readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('secret\n')
    // The control: the folder's own file is written.
    write(path.join(dir, 'own'))
    expect(fs.readFileSync(path.join(dir, 'own'), 'utf8')).toBe('x\n')
  })
})
