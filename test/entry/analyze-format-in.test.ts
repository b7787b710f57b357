/**
 * `gpu-overhead analyze --format-in` through the CLI's own main(): real hyperfine files (three runs of
 * `sleep 0.01` and three of `sleep 0.03`, each recorded with `-n work`) as two arms, and the long CSV
 * still read as before.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { mainInProcess, type MainResult } from '../helpers/main-in-process.js'

const RUNS = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters', 'hyperfine-runs')
const fast = [1, 2, 3].map(i => path.join(RUNS, `hf-fast-${i}.json`))
const slow = [1, 2, 3].map(i => path.join(RUNS, `hf-slow-${i}.json`))
const dir = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-format-in-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(...args: string[]): Promise<MainResult> {
  return mainInProcess(['analyze', ...args])
}

test('hyperfine files as runs of two arms: the slower arm is a regression, exit 1', async () => {
  const pairs = [...fast.map(f => `native=${f}`), ...slow.map(f => `container=${f}`)].join(',')
  const r = await cli('--format-in', 'hyperfine', '--input', pairs, '--format', 'json')
  expect(r.code).toBe(1)
  const json = JSON.parse(r.stdout) as { verdict: string; comparisons: Record<string, unknown>[] }
  expect(json.verdict).toBe('regression')
  expect(json.comparisons).toHaveLength(1)
  expect(json.comparisons[0]).toMatchObject({
    workload: 'work',
    metric: 'time',
    baseline_env: 'native',
    candidate_env: 'container',
    n_baseline: 3,
    n_candidate: 3
  })
  // sleep 0.03 against sleep 0.01: about +200 %, whatever the host's noise.
  expect(json.comparisons[0]!.overhead_pct as number).toBeGreaterThan(100)
})

test('--input repeated, arms of any name chosen with --baseline-env/--candidate-env, markdown report', async () => {
  const r = await cli(
    '--format-in',
    'hyperfine',
    ...slow.flatMap(f => ['--input', `after=${f}`]),
    ...fast.flatMap(f => ['--input', `before=${f}`]),
    '--baseline-env',
    'after',
    '--candidate-env',
    'before'
  )
  expect(r.code).toBe(0) // the candidate is faster: no regression
  expect(r.stdout).toMatch(/\*\*Verdict: [A-Z]+( \(improvement\))?\*\* — before vs after/)
  expect(r.stdout).toContain('work')
})

test('bad format, bad pair, bad file: exit 2 with one line naming the input and what is allowed', async () => {
  const bad = await cli('--format-in', 'junit', '--input', `native=${fast[0]}`)
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('input \'--format-in\': got "junit"; allowed: csv, hyperfine')
  const pair = await cli('--format-in', 'hyperfine', '--input', fast[0]!)
  expect(pair.code).toBe(2)
  expect(pair.stderr).toContain('ENV=FILE pairs')
  const wrong = await cli(
    '--format-in',
    'pytest-benchmark',
    '--input',
    `native=${fast[0]},container=${slow[0]}`
  )
  expect(wrong.code).toBe(2)
  expect(wrong.stderr).toContain(`${fast[0]} (pytest-benchmark) at benchmarks`)
})

test('the long CSV is read as before (--format-in csv is the default)', async () => {
  const lines = ['workload,environment,run,metric,value,unit']
  for (let run = 1; run <= 4; run++) {
    lines.push(`m,native,${run},kernel_ms,${10 + run * 0.01},ms`)
    lines.push(`m,container,${run},kernel_ms,${10 + run * 0.01},ms`)
  }
  const csv = path.join(dir, 'r.csv')
  writeFileSync(csv, lines.join('\n') + '\n')
  const r = await cli('--input', csv, '--format', 'json')
  expect(r.code).toBe(0)
  expect((JSON.parse(r.stdout) as { comparisons: unknown[] }).comparisons).toHaveLength(1)
  expect((await cli('--input', csv, '--input', csv)).code).toBe(2)
})

describe('a multi-command hyperfine export as arms (issue 40)', () => {
  // Recorded: hyperfine -N --warmup 2 --runs 10 --export-json hyperfine-two-commands.json 'sleep 0.01' 'sleep 0.03'.
  const TWO = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters', 'hyperfine-two-commands.json')

  test('--arm native=0 --arm container=1: each timed run is a run of its arm; the report names the commands', async () => {
    const r = await cli(
      '--format-in',
      'hyperfine',
      '--input',
      TWO,
      '--arm',
      'native=0',
      '--arm',
      'container=1',
      '--format',
      'json'
    )
    expect(r.code).toBe(1)
    const json = JSON.parse(r.stdout) as {
      verdict: string
      comparisons: Record<string, unknown>[]
      notes: string[]
    }
    expect(json.verdict).toBe('regression')
    expect(json.comparisons[0]).toMatchObject({
      workload: 'hyperfine',
      metric: 'time',
      baseline_env: 'native',
      candidate_env: 'container',
      n_baseline: 10,
      n_candidate: 10
    })
    expect(json.comparisons[0]!.overhead_pct as number).toBeGreaterThan(40)
    expect(json.notes.join('\n')).toContain('native = `sleep 0.01`, container = `sleep 0.03`')
    expect(json.notes.join('\n')).toMatch(/not interleaved/)
  })

  test('by command text, the other way round: the faster candidate is no regression', async () => {
    const r = await cli(
      '--format-in',
      'hyperfine',
      '--input',
      TWO,
      '--arm',
      'native=sleep 0.03',
      '--arm',
      'container=sleep 0.01'
    )
    expect(r.code).toBe(0)
    // Markdown: the command text (from the file, untrusted) passes the sanitiser, which escapes its backticks.
    expect(r.stdout).toMatch(/native = \\`sleep 0\.03\\`, container = \\`sleep 0\.01\\`/)
  })

  test.each([
    [
      ['--arm', 'native=0', '--arm', 'container=5'],
      /--arm container.*index or the text of a command.*0: sleep 0\.01; 1: sleep 0\.03/
    ],
    [['--arm', 'native=0', '--arm', 'container=sleep 0.01'], /a command no other arm took/],
    [['--arm', 'native=0'], /at least two arms/],
    [['--arm', 'native=0', '--arm', 'native=1'], /each arm once/]
  ])('%j exits 2 naming the arm and what is allowed', async (arms, message) => {
    const r = await cli('--format-in', 'hyperfine', '--input', TWO, ...arms)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
  })

  test('--arm is for hyperfine files given as plain FILEs', async () => {
    const pair = await cli(
      '--format-in',
      'hyperfine',
      '--input',
      `native=${TWO}`,
      '--arm',
      'native=0',
      '--arm',
      'container=1'
    )
    expect(pair.code).toBe(2)
    expect(pair.stderr).toMatch(/no ENV=: --arm names the arms/)
    const other = await cli(
      '--format-in',
      'pytest-benchmark',
      '--input',
      TWO,
      '--arm',
      'native=0',
      '--arm',
      'container=1'
    )
    expect(other.code).toBe(2)
    expect(other.stderr).toMatch(/only with --format-in hyperfine/)
  })
})
