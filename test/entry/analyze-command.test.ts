import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { analyzeCommand, resolveEnvironments } from '../../src/commands/analyze.js'
import { JsonFileBaselineStore } from '../../src/analyze/baseline/index.js'
import { readResultsCsv } from '../../src/results/csv/index.js'
import { InputError } from '../../src/util/errors.js'
import { noise, nonFiniteNumbers } from '../analyze/helpers.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-analyze-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A results CSV: `runs` runs per arm, 5 iterations per run, given per-arm means. */
function writeCsv(
  name: string,
  arms: Record<string, Record<string, number>>,
  options: { runs?: number; sd?: number; units?: Record<string, string> } = {}
): string {
  const runs = options.runs ?? 8
  const lines = ['workload,environment,run,iteration,metric,value,unit,gpu_name,driver']
  let seed = 1
  for (const [env, metrics] of Object.entries(arms))
    for (let run = 1; run <= runs; run++)
      for (const [metric, mean] of Object.entries(metrics)) {
        const values = noise(seed++, 5, mean, (options.sd ?? 0.001) * mean)
        values.forEach((v, it) =>
          lines.push(
            `matmul,${env},${run},${it},${metric},${v},${options.units?.[metric] ?? 'ms'},H200,580.1`
          )
        )
      }
  const p = join(dir, name)
  writeFileSync(p, lines.join('\n') + '\n')
  return p
}

const base = { format: 'json' as const, maxOverheadPct: 2, alpha: 0.05 }
const FIELDS = [
  'workload',
  'metric',
  'baseline_env',
  'candidate_env',
  'n_baseline',
  'n_candidate',
  'mean_baseline',
  'mean_candidate',
  'median_baseline',
  'median_candidate',
  'overhead_pct',
  'ci95',
  'welch',
  'mann_whitney',
  'tost',
  'p_adjusted',
  'mde_pct',
  'verdict'
]

test('JSON output: the contract fields, finite numbers, exit 0 when equivalent', async () => {
  const input = writeCsv(
    'eq.csv',
    { native: { kernel_ms: 41, tflops: 48.8 }, container: { kernel_ms: 41.01, tflops: 48.79 } },
    // Ten processes per arm: fewer cannot exclude a slow mode met by a third of them (mode-exclusion.ts).
    { runs: 10, units: { tflops: 'TFLOP/s' } }
  )
  const { analysis, text, exitCode } = await analyzeCommand({ ...base, input })
  type Obj = Record<string, unknown>
  const json = JSON.parse(text) as Obj & {
    comparisons: (Obj & Record<'ci95' | 'welch' | 'mann_whitney' | 'tost', Obj>)[]
  }
  expect(Object.keys(json)).toEqual(
    expect.arrayContaining(['comparisons', 'verdict', 'max_overhead_pct', 'alpha'])
  )
  expect(json.max_overhead_pct).toBe(2)
  expect(json.alpha).toBe(0.05)
  expect(json.comparisons).toHaveLength(2)
  for (const c of json.comparisons) {
    expect(Object.keys(c)).toEqual(expect.arrayContaining(FIELDS))
    expect(Object.keys(c.ci95).sort()).toEqual(['high', 'low'])
    expect(Object.keys(c.welch)).toEqual(expect.arrayContaining(['t', 'df', 'p']))
    expect(Object.keys(c.mann_whitney).sort()).toEqual(['method', 'p', 'u'])
    expect(Object.keys(c.tost).sort()).toEqual(['equivalent', 'margin_pct', 'p'])
    expect(c.n_baseline).toBe(10) // runs, not 50 iterations
  }
  expect(nonFiniteNumbers(json)).toEqual([])
  expect(analysis.verdict).toBe('equivalent')
  expect(exitCode).toBe(0)
})

test('markdown: verdict line first, then a table; exit 1 on regression', async () => {
  const input = writeCsv('reg.csv', { native: { kernel_ms: 41 }, container: { kernel_ms: 45 } })
  const { text, exitCode, analysis } = await analyzeCommand({ ...base, format: 'md', input })
  expect(analysis.verdict).toBe('regression')
  expect(exitCode).toBe(1)
  const lines = text.split('\n')
  expect(lines[0]).toMatch(/^\*\*Verdict: REGRESSION\*\* — container vs native, max overhead 2%/)
  expect(text).toMatch(/\| Workload +\| Metric/)
  expect(text).toContain('- matmul/kernel_ms: +9.')
})

test('environments: defaults, first-appearance fallback (and says so), errors name what is allowed', async () => {
  expect(resolveEnvironments(['container', 'native'], undefined, undefined)).toEqual({
    baseline: 'native',
    candidate: 'container'
  })
  const fallback = resolveEnvironments(['bare', 'docker'], undefined, undefined)
  expect(fallback).toMatchObject({ baseline: 'bare', candidate: 'docker' })
  expect(fallback.note).toContain('order of first appearance')
  expect(resolveEnvironments(['native', 'podman'], undefined, undefined)).toMatchObject({
    baseline: 'native',
    candidate: 'podman'
  })
  expect(resolveEnvironments(['a', 'b', 'c'], 'c', 'a')).toEqual({ baseline: 'c', candidate: 'a' })
  expect(() => resolveEnvironments(['a', 'b', 'c'], undefined, undefined)).toThrow(InputError)
  expect(() => resolveEnvironments(['a', 'b'], 'x', undefined)).toThrow(
    'input \'--baseline-env\': got "x"; allowed: an environment in the input: a, b'
  )

  const input = writeCsv('two.csv', { bare: { kernel_ms: 41 }, docker: { kernel_ms: 41 } })
  const { analysis } = await analyzeCommand({ ...base, input })
  expect(analysis.baseline_env).toBe('bare')
  expect(analysis.notes?.[0]).toContain('order of first appearance')
})

test('bad options are InputErrors', async () => {
  const input = writeCsv('opts.csv', { native: { kernel_ms: 41 }, container: { kernel_ms: 41 } })
  await expect(analyzeCommand({ ...base, input, maxOverheadPct: 0 })).rejects.toThrow('--max-overhead')
  await expect(analyzeCommand({ ...base, input, alpha: 2 })).rejects.toThrow('--alpha')
})

test('with --baseline: current arms vs stored, one Holm family, reported under baseline', async () => {
  const baselinePath = join(dir, 'baseline.json')
  // Two accepted checks on main (the history needs ≥ 2 to know its day-to-day spread).
  for (const [i, mean] of [41, 41.02].entries()) {
    const stored = writeCsv(`stored${i}.csv`, { native: { kernel_ms: mean }, container: { kernel_ms: mean } })
    const csv = await readResultsCsv(stored)
    await new JsonFileBaselineStore(baselinePath).append({
      check_id: `main-${i}`,
      series: csv.series,
      fingerprints: csv.fingerprints
    })
  }
  const now = writeCsv('now.csv', { native: { kernel_ms: 41 }, container: { kernel_ms: 44 } })
  const { analysis, exitCode, text } = await analyzeCommand({ ...base, input: now, baselinePath })
  expect(analysis.baseline?.status).toBe('compared')
  const b = analysis.baseline!.comparisons
  expect(b.map(c => c.candidate_env).sort()).toEqual(['container', 'native'])
  expect(b.find(c => c.candidate_env === 'container')!.verdict).toBe('regression')
  expect(analysis.verdict).toBe('regression')
  expect(exitCode).toBe(1)
  // Three steady comparisons in one family: Holm multiplies the smallest p by 3.
  const all = [...analysis.comparisons, ...b]
  const smallest = all.reduce((m, c) => (c.p_gate! < m.p_gate! ? c : m))
  expect(smallest.p_adjusted).toBeCloseTo(Math.min(1, 3 * smallest.p_gate!), 12)
  expect(JSON.parse(text).baseline.status).toBe('compared')
})

test('a missing input file is an InputError', async () => {
  await expect(analyzeCommand({ ...base, input: join(dir, 'missing.csv') })).rejects.toThrow(InputError)
})

describe('analyze: an undecided analysis is not a pass (on-inconclusive)', () => {
  // Block ratios +2.5%, +0.5%, +1.5%: around the 2% limit and too spread at 3 runs for either claim.
  const undecided = (): string => {
    const p = join(dir, 'undecided.csv')
    const rows = [
      [10.0, 10.25],
      [10.3, 10.35],
      [9.8, 9.95]
    ].flatMap(([b, c], i) => [
      `matmul,native,${i + 1},kernel_ms,${b},ms`,
      `matmul,container,${i + 1},kernel_ms,${c},ms`
    ])
    writeFileSync(p, ['workload,environment,run,metric,value,unit', ...rows].join('\n') + '\n')
    return p
  }

  it.each([
    [undefined, 0],
    ['neutral', 0],
    ['pass', 0],
    ['fail', 1]
  ] as const)('on-inconclusive %s exits %i', async (onInconclusive, code) => {
    const r = await analyzeCommand({ ...base, input: undecided(), onInconclusive })
    expect(r.analysis.verdict).toBe('inconclusive')
    expect(r.exitCode).toBe(code)
  })
})
