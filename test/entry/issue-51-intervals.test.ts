/**
 * Issue 51 through the CLI's own main(): intervals a ratio can have (every printed end above −100%, an end the
 * data do not bound said in words and in JSON as "unbounded", never `?`, `Infinity` or `null`), and pairing only
 * where the runs were blocks (result files of another tool are two samples, whatever the order of --input).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { mainInProcess, type MainResult } from '../helpers/main-in-process.js'

const FIX = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters')
const RUNS = path.join(FIX, 'hyperfine-runs')
const fast = [1, 2, 3].map(i => path.join(RUNS, `hf-fast-${i}.json`))
const slow = [1, 2, 3].map(i => path.join(RUNS, `hf-slow-${i}.json`))
const dir = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-issue51-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(...args: string[]): Promise<MainResult> {
  return mainInProcess(['analyze', ...args])
}

interface JsonComparison {
  overhead_pct: number
  ci95: { low: number | string; high: number | string; bounded?: boolean; reason?: string }
  ci_method: string
  verdict: string
  reason: string
  paired?: unknown
}

const comparisonsOf = (stdout: string): JsonComparison[] =>
  (JSON.parse(stdout) as { comparisons: JsonComparison[] }).comparisons

/** Every number printed inside [..] of an overhead: none at or below −100. */
function printedBounds(text: string): number[] {
  const out: number[] = []
  for (const m of text.matchAll(/%\s*\[([^\]]*)\]/g))
    for (const part of (m[1] ?? '').split(','))
      if (/[0-9]/.test(part)) out.push(Number(part.trim().replace('\u2212', '-')))
  return out
}

function csvFile(name: string, rows: [string, number, number][]): string {
  const lines = [
    'workload,environment,run,metric,value,unit',
    ...rows.map(([e, r, v]) => `w,${e},${r},t_ms,${v},ms`)
  ]
  const file = path.join(dir, name)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

describe('intervals a ratio can have', () => {
  // Blocks whose candidate mean is not clearly above zero at its spread: Fieller's set reaches below a ratio of
  // zero, which printed an overhead interval below −100% before (README command 1: +42% [−160, +417]).
  const spread = csvFile('spread.csv', [
    ['native', 1, 10],
    ['container', 1, 1],
    ['native', 2, 10.5],
    ['container', 2, 40],
    ['native', 3, 9.5],
    ['container', 3, 2],
    ['native', 4, 10.2],
    ['container', 4, 30]
  ])

  test('a paired interval the blocks cannot bound below reads "not bounded below", in markdown and JSON', async () => {
    const md = await cli('--input', spread)
    expect(md.stdout).toContain('not bounded below')
    expect(md.stdout).not.toMatch(/\?|Infinity|NaN/)
    for (const b of printedBounds(md.stdout)) expect(b).toBeGreaterThan(-100)
    const json = await cli('--input', spread, '--format', 'json')
    const [c] = comparisonsOf(json.stdout)
    expect(c?.ci_method).toBe('paired')
    expect(c?.ci95.low).toBe('unbounded')
    expect(typeof c?.ci95.high).toBe('number')
    expect(c?.ci95.bounded).toBe(false)
    expect(c?.ci95.reason).toMatch(/do not bound the overhead from below.*more runs/)
    expect(c?.reason).toContain('not bounded below')
    expect(c?.verdict).toBe('inconclusive')
    expect(json.stdout).not.toMatch(/null|Infinity/)
  })

  test('an equivalent verdict stands only with its printed interval inside ±max-overhead', async () => {
    const rows: [string, number, number][] = []
    // TOST decides at the 90% interval; the 95% interval printed beside the verdict must agree with it.
    const noise = [0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.3]
    noise.forEach((n, i) => rows.push(['native', i + 1, 100 + n], ['container', i + 1, 100.5 - n / 2]))
    const file = csvFile('eq.csv', rows)
    const wide = comparisonsOf(
      (await cli('--input', file, '--format', 'json', '--max-overhead', '1%')).stdout
    )
    // Inside ±1% by TOST and by the printed interval; 8 processes per arm are too few to claim it since issue 52
    // (an equivalence needs 10: compare/mode-exclusion.ts), and the reason says that, not the interval.
    expect(wide[0]?.verdict).toBe('inconclusive')
    expect(wide[0]?.reason).toMatch(/within ±1% \(TOST p=[^)]*\), but only 8 processes per arm/)
    expect(wide[0]?.ci95.high as number).toBeLessThanOrEqual(1)
    // At ±0.76% TOST still says equivalent (p≈0.03), but the printed 95% interval reaches +0.78%.
    const tight = comparisonsOf(
      (await cli('--input', file, '--format', 'json', '--max-overhead', '0.76%')).stdout
    )
    expect(tight[0]?.ci95.high as number).toBeGreaterThan(0.76)
    expect(tight[0]?.verdict).toBe('inconclusive')
    expect(tight[0]?.reason).toContain('the 95% interval reaches past ±0.76%')
  })
})

describe('paired only where paired', () => {
  const order1 = [...fast.map(f => `native=${f}`), ...slow.map(f => `container=${f}`)]
  const order2 = [
    ...[...fast].reverse().map(f => `native=${f}`),
    ...[slow[1], slow[2], slow[0]].map(f => `container=${f}`)
  ]

  test('hyperfine files are two samples, and the order of --input changes no number', async () => {
    const a = await cli('--format-in', 'hyperfine', '--input', order1.join(','), '--format', 'json')
    const b = await cli('--format-in', 'hyperfine', '--input', order2.join(','), '--format', 'json')
    const [ca] = comparisonsOf(a.stdout)
    const [cb] = comparisonsOf(b.stdout)
    expect(ca?.ci_method).not.toBe('paired')
    expect(ca?.paired).toBeUndefined()
    for (const k of ['overhead_pct', 'ci95', 'verdict', 'reason'] as const) expect(cb?.[k]).toEqual(ca?.[k])
    const md = await cli('--format-in', 'hyperfine', '--input', order2.join(','))
    expect(md.stdout).toContain('two-sample')
    expect(md.stdout).not.toMatch(/\] paired/)
    expect(md.stdout).toContain('compared as two samples')
  })

  test('a two-command hyperfine export that did not interleave is two-sample, not paired', async () => {
    const r = await cli(
      '--format-in',
      'hyperfine',
      '--input',
      path.join(FIX, 'hyperfine-two-commands.json'),
      '--arm',
      'native=0',
      '--arm',
      'container=1'
    )
    expect(r.stdout).toContain('not interleaved')
    expect(r.stdout).toContain('two-sample')
    expect(r.stdout).not.toMatch(/\] paired/)
  })

  test('pytest-benchmark files: two samples whatever the order', async () => {
    const files = ['pytest-benchmark.json', 'pytest-benchmark-3.2.2.json'].map(f => path.join(FIX, f))
    const one = await cli(
      '--format-in',
      'pytest-benchmark',
      '--input',
      `native=${files[0]},native=${files[1]},container=${files[1]},container=${files[0]}`,
      '--format',
      'json'
    )
    const two = await cli(
      '--format-in',
      'pytest-benchmark',
      '--input',
      `native=${files[1]},native=${files[0]},container=${files[0]},container=${files[1]}`,
      '--format',
      'json'
    )
    expect(one.code).toBe(two.code)
    const a = comparisonsOf(one.stdout)
    const b = comparisonsOf(two.stdout)
    expect(a.length).toBeGreaterThan(0)
    expect(a.map(c => [c.overhead_pct, c.ci95, c.verdict])).toEqual(
      b.map(c => [c.overhead_pct, c.ci95, c.verdict])
    )
    for (const c of a) expect(c.ci_method).not.toBe('paired')
  })
})

describe('two checks in one file', () => {
  test('the sorted concatenation of two checks without an iteration column is refused, naming the run', async () => {
    // Two checks of three runs each, then what `sort -t, -k2,2 -k3,3n` (a spreadsheet's sort) makes of them:
    // each run's rows of both checks side by side, which read as one check of two iterations per run before.
    const body: string[] = []
    for (const [_check, shift] of [
      [1, 0],
      [2, 0.3]
    ] as const)
      for (let run = 1; run <= 3; run++)
        for (const env of ['native', 'container'])
          body.push(
            `w,${env},${run},t_ms,${(10 + shift + run * 0.01 + (env === 'container' ? 0.3 : 0)).toFixed(3)}`
          )
    body.sort((a, b) => {
      const [, ea, ra] = a.split(',')
      const [, eb, rb] = b.split(',')
      return ea! < eb! ? -1 : ea! > eb! ? 1 : Number(ra) - Number(rb)
    })
    const file = path.join(dir, 'sorted.csv')
    writeFileSync(file, ['workload,environment,run,metric,value', ...body].join('\n') + '\n')
    const r = await cli('--input', file)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('no iteration column')
    expect(r.stderr).toContain('2 rows of run 1 of w/t_ms')
    expect(r.stderr).toContain('the same run of two checks')
  })
})
