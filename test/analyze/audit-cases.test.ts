/**
 * Issue 28's audit, D4, D5, D6, D8 and D9, each as the audit described it: units that differ between arms,
 * stored checks of 2 runs against a new one of 12, one accepted +5% check in the stored history, two checks'
 * rows put together under the same run ids, and values near 1e±150.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareWithBaseline } from '../../src/analyze/baseline/index.js'
import type { BaselineStore } from '../../src/analyze/baseline/store.js'
import { decide, measureComparison } from '../../src/analyze/compare/index.js'
import { readResultsCsv } from '../../src/results/csv/index.js'
import { summarizeCheck } from '../../src/analyze/history-compare.js'
import { aggregateRows } from '../../src/results/run-values/index.js'
import { analyzeCommand } from '../../src/commands/analyze.js'
import { InputError } from '../../src/util/errors.js'
import { judgeKernelHistory, memoryStore } from '../../scripts/lib/baseline-sim.js'
import { nonFiniteNumbers, series } from './helpers.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-28-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const opts = { baselineEnv: 'native', candidateEnv: 'container', maxOverheadPct: 2, alpha: 0.05 }

function csvFile(name: string, lines: string[]): string {
  const p = join(dir, name)
  writeFileSync(p, lines.join('\n') + '\n')
  return p
}

/** One check's rows: `runs` runs per arm, 3 iterations each, container `factor` × native. */
function check(runs: number, factor: number, unit = { native: 'ms', container: 'ms' }, scale = 1): string[] {
  const rows: string[] = []
  for (let r = 1; r <= runs; r++)
    for (let it = 0; it < 3; it++) {
      const v = 41 + 0.05 * Math.sin(r * 7 + it)
      rows.push(`matmul,native,${r},${it},kernel_ms,${v * scale},${unit.native}`)
      rows.push(`matmul,container,${r},${it},kernel_ms,${v * factor * scale},${unit.container}`)
    }
  return rows
}
const HEAD = 'workload,environment,run,iteration,metric,value,unit'

describe('D4: units that differ between arms are an error, never a verdict', () => {
  it('native in ms and container in s: refused, naming both units (was −99.9%, improvement, exit 0)', async () => {
    const p = csvFile('units.csv', [HEAD, ...check(5, 0.001, { native: 'ms', container: 's' })])
    const run = analyzeCommand({ input: p, format: 'json', maxOverheadPct: 2, alpha: 0.05 })
    await expect(run).rejects.toThrow(InputError)
    await expect(run).rejects.toThrow(/ms in native and s in container/)
  })
  it('an arm that declares no unit takes the other’s', () => {
    const b = series('native', 'kernel_ms', [41, 41.1, 40.9, 41.05])
    const c = { ...series('container', 'kernel_ms', [41, 41.1, 40.95, 41]), unit: '' }
    expect(measureComparison(b, c, opts).unit).toBe('ms')
  })
})

describe('D8: duplicated run ids are refused and named, never merged', () => {
  it('two checks’ CSV rows concatenated under one header', async () => {
    const p = csvFile('two-checks.csv', [HEAD, ...check(4, 1), ...check(4, 1.03)])
    const read = readResultsCsv(p)
    await expect(read).rejects.toThrow(/native matmul\/kernel_ms run 1 \(iteration 0 twice\)/)
    await expect(read).rejects.toThrow(/give each check's runs their own labels/)
  })
  it('the same as in-memory records (results.jsonl of two checks)', () => {
    const rec = (run: number, iteration: number, value: number) => ({
      workload: 'matmul',
      environment: 'native',
      run,
      iteration,
      metric: 'kernel_ms',
      value,
      unit: 'ms'
    })
    const rows = [rec(1, 0, 41), rec(1, 1, 41.1), rec(1, 0, 42), rec(1, 1, 42.1)]
    expect(() => aggregateRows(rows).series()).toThrow(InputError)
    // One check alone reads as before.
    expect(aggregateRows(rows.slice(0, 2)).series()[0]!.values).toEqual([41.05])
  })
  it('per-token metrics that repeat an iteration by design (itl_ms, derived) still read', async () => {
    const rows = [HEAD + ',scope']
    for (const env of ['native', 'container'])
      for (let r = 1; r <= 3; r++)
        for (let token = 0; token < 4; token++)
          rows.push(`llm,${env},${r},1,itl_ms,${3 + token * 0.01},ms,derived`)
    const csv = await readResultsCsv(csvFile('itl.csv', rows))
    expect(csv.series.map(s => s.values.length)).toEqual([3, 3])
  })
})

describe('D9: values near 1e±150 give the same finite statistics as at scale 1', () => {
  it.each([1e150, 1e-150, 1e300, 1e-300])('× %s', scale => {
    const b = [41, 41.1, 40.9, 41.05, 40.95, 41.02]
    const c = b.map((v, i) => v * 1.03 * (1 + [0.1, -0.2, 0.15, 0, -0.1, 0.05][i]! / 100))
    const at = (k: number) =>
      decide(
        [
          measureComparison(
            series(
              'native',
              'kernel_ms',
              b.map(v => v * k)
            ),
            series(
              'container',
              'kernel_ms',
              c.map(v => v * k)
            ),
            opts
          )
        ],
        { alpha: 0.05, maxOverheadPct: 2 }
      )[0]!
    const one = at(1)
    const far = at(scale)
    expect(nonFiniteNumbers(far)).toEqual([])
    expect(far.verdict).toBe(one.verdict)
    expect(far.p_adjusted).toBeCloseTo(one.p_adjusted, 12)
    expect(far.welch.p).toBeCloseTo(one.welch.p, 12)
    expect(far.overhead_pct).toBeCloseTo(one.overhead_pct, 9)
    expect(far.mean_baseline / scale).toBeCloseTo(one.mean_baseline, 9)
  })
})

describe('D5: stored checks of 2 runs against a new check of 12', () => {
  it('the 95% interval covers the truth ≥ 94%, and a true +2% is a false regression ≤ 2.5% (was 89–91% and 12.2%)', () => {
    let seed = 2805
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31
    const normal = (): number => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand())
    const runs = (n: number, mean: number): number[] =>
      Array.from({ length: n }, () => mean * (1 + 0.005 * normal()))
    const SIMS = 3000
    let covered = 0
    let falseRegression = 0
    for (let s = 0; s < SIMS; s++) {
      const history = Array.from({ length: 5 }, () => summarizeCheck(runs(2, 100)))
      const judge = (factor: number) =>
        judgeKernelHistory({
          workload: 'sim',
          env: 'native',
          history,
          current: runs(12, 100 * factor),
          maxOverheadPct: 2,
          alpha: 0.05
        })
      const same = judge(1)
      if (same.ci95.low <= 0 && same.ci95.high >= 0) covered++
      if (judge(1.02).verdict === 'regression') falseRegression++
    }
    expect(covered / SIMS).toBeGreaterThanOrEqual(0.94)
    expect(falseRegression / SIMS).toBeLessThanOrEqual(0.025)
  })
})

/**
 * D6: "one accepted +5% check in the stored history makes a persisting +5% flagged in 0–0.4% of later
 * checks". Four good stored checks and one accepted +5% check (5 runs each, run sd 0.5%), then later checks
 * that keep +5%, each through the production entry: compared, and saved when the save rule allows (the last
 * 5 kept). scripts/simulate-verdicts.ts runs the full table (1,000 histories per day-to-day spread).
 */
describe('D6: one accepted +5% check in the stored history', () => {
  let seed = 2806
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31
  const normal = (): number => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand())
  const checkValues = (daySd: number, factor: number): number[] => {
    const day = 1 + daySd * normal()
    return Array.from({ length: 5 }, () => 41 * factor * day * (1 + 0.005 * normal()))
  }
  let id = 0
  const fingerprints = { native: { gpu_name: 'H100', driver: '580' } }
  async function history(daySd: number, accepted: boolean): Promise<BaselineStore> {
    const store = memoryStore()
    for (let c = 0; c < 5; c++)
      await store.append({
        check_id: `stored-${++id}`,
        series: [series('native', 'kernel_ms', checkValues(daySd, accepted && c === 4 ? 1.05 : 1))],
        fingerprints
      })
    return store
  }
  async function later(store: BaselineStore, values: number[]) {
    const checkId = `later-${++id}`
    const rows = values.map((value, i) => ({
      check_id: checkId,
      workload: 'matmul',
      environment: 'native',
      run: i + 1,
      metric: 'kernel_ms',
      value,
      unit: 'ms',
      better: 'lower',
      scope: 'steady',
      fingerprint: fingerprints.native
    }))
    const r = await compareWithBaseline(rows, {
      path: 'memory',
      store,
      save: true,
      maxOverheadPct: 2,
      alpha: 0.05
    })
    return { ...r, comparison: r.comparisons.find(c => c.metric === 'kernel_ms')! }
  }

  it('the accepted check is left out of the reference, and the report says which checks formed it', async () => {
    seed = 2806
    const store = await history(0.0025, true)
    const { comparison, saved } = await later(store, checkValues(0.0025, 1.05))
    expect(comparison.verdict).toBe('regression')
    expect(saved).toBe(false)
    expect(comparison.history!.checks).toBe(4)
    expect(comparison.history!.reference).toEqual(['stored-1', 'stored-2', 'stored-3', 'stored-4'])
    expect(comparison.history!.left_out).toEqual([{ check: 'stored-5', overhead_pct: expect.any(Number) }])
    expect(comparison.history!.left_out![0]!.overhead_pct).toBeGreaterThan(3)
  })

  it.each([
    [0.0025, 0.95],
    // 0.7 before issue 39: a check left out of the reference at the 95% level only costs the others a degree
    // of freedom now (S1: the screened spread made a true +2% a false regression in 3.2% at a 2% day-to-day sd).
    [0.005, 0.6]
  ])(
    'day-to-day sd %f: a persisting +5% is flagged in ≥ %f of later checks (was 0–0.4%); A/A false regression ≤ 2.5%',
    async (daySd, wanted) => {
      const SIMS = 100
      const LATER = 8
      let flagged = 0
      let aaClean = 0
      let aaAfter = 0
      for (let i = 0; i < SIMS; i++) {
        const shifted = await history(daySd, true)
        const clean = await history(daySd, false)
        const after = await history(daySd, true)
        for (let j = 0; j < LATER; j++) {
          if ((await later(shifted, checkValues(daySd, 1.05))).comparison.verdict === 'regression') flagged++
          if ((await later(clean, checkValues(daySd, 1))).comparison.verdict === 'regression') aaClean++
          if ((await later(after, checkValues(daySd, 1))).comparison.verdict === 'regression') aaAfter++
        }
      }
      expect(flagged / (SIMS * LATER)).toBeGreaterThanOrEqual(wanted)
      expect(aaClean / (SIMS * LATER)).toBeLessThanOrEqual(0.025)
      expect(aaAfter / (SIMS * LATER)).toBeLessThanOrEqual(0.025)
    }
  )

  it('A/A at a day-to-day spread as wide as the limit (2%): false regression ≤ 2.5%', async () => {
    let falseRegression = 0
    const SIMS = 100
    const LATER = 8
    for (let i = 0; i < SIMS; i++) {
      const clean = await history(0.02, false)
      for (let j = 0; j < LATER; j++)
        if ((await later(clean, checkValues(0.02, 1))).comparison.verdict === 'regression') falseRegression++
    }
    expect(falseRegression / (SIMS * LATER)).toBeLessThanOrEqual(0.025)
  })
})
