/**
 * `mode: analyze` through the action's own run(): real hyperfine files (test/__fixtures__/adapters/
 * hyperfine-runs) that "earlier steps" left in the workspace are gated; the verdict reaches the outputs
 * and the job summary, and a regression fails the step. Tree files that are links are refused.
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
  inputs: Record<string, string>
): Promise<{ outputs: string; summary: string; failed: boolean }> {
  const env = { ...process.env }
  const files = { GITHUB_OUTPUT: 'out', GITHUB_STATE: 'state', GITHUB_STEP_SUMMARY: 'summary' }
  for (const [v, f] of Object.entries(files)) {
    const p = path.join(runner, f)
    writeFileSync(p, '')
    process.env[v] = p
  }
  process.env.GITHUB_WORKSPACE = ws
  for (const [k, v] of Object.entries(inputs)) process.env[`INPUT_${k.toUpperCase()}`] = v
  process.exitCode = undefined
  try {
    const { run } = await import('../../src/entry/action/main.js')
    await run()
    return {
      outputs: readFileSync(path.join(runner, 'out'), 'utf8'),
      summary: readFileSync(path.join(runner, 'summary'), 'utf8'),
      failed: process.exitCode === 1
    }
  } finally {
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
  expect(r.summary).toMatch(/\*\*Verdict: regression\*\* — container vs native/)
  expect(r.summary).toContain('work')
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
