/**
 * Issue 39's audit, the items of the stored-baseline path and the CSV reader, each from data generated here:
 * S1 (two arms at exactly +2% against their stored checks), S6 (a persisting +5% after one accepted +5%
 * check), S11 (a creep of +0.5% per accepted check) and S7 (two checks' CSV rows concatenated without an
 * iteration column). The rates are checked on fewer histories than scripts/simulate-verdicts.ts runs, with
 * margins for the Monte Carlo error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import seedrandom from 'seedrandom'
import { readResultsCsv } from '../../src/analyze/csv/index.js'
import { aggregateRows } from '../../src/analyze/run-values/index.js'
import { analyzeCommand } from '../../src/entry/cli/analyze.js'
import { InputError } from '../../src/util/errors.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'issue-39-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function gauss(rng: () => number): number {
  let u = 0
  while (u === 0) u = rng()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng())
}

/** S7: one check's rows, one per run (no iteration column), 12 runs per arm, container `factor` × native. */
function oneRowPerRun(rng: () => number, factor: number, day: number): string[] {
  const rows: string[] = []
  for (let r = 1; r <= 12; r++) {
    const host = day * (1 + 0.003 * gauss(rng))
    rows.push(`matmul,native,${r},kernel_ms,${(41 * host * (1 + 0.002 * gauss(rng))).toFixed(5)},ms,lower`)
    rows.push(
      `matmul,container,${r},kernel_ms,${(41 * factor * host * (1 + 0.002 * gauss(rng))).toFixed(5)},ms,lower`
    )
  }
  return rows
}

describe('S7: two checks concatenated into one CSV without an iteration column', () => {
  const HEAD = 'workload,environment,run,metric,value,unit,better'
  const rng = seedrandom.alea('issue-39-S7')
  // Check A: no overhead on a fast day; check B: +5% on a day 3% slower. Merged, each "run" blends both.
  const lines = [HEAD, ...oneRowPerRun(rng, 1, 1), ...oneRowPerRun(rng, 1.05, 1.03)]
  it('is refused with one line naming the run and the fix (was merged, regression, exit 1)', async () => {
    const p = join(dir, 'two-checks-no-iteration.csv')
    writeFileSync(p, lines.join('\n') + '\n')
    const run = analyzeCommand({ input: p, format: 'json', maxOverheadPct: 2, alpha: 0.05 })
    await expect(run).rejects.toThrow(InputError)
    await expect(run).rejects.toThrow(/native matmul\/kernel_ms run 1 \(its rows come back after other runs/)
    await expect(run).rejects.toThrow(/analyse the checks apart, or add an iteration column/)
    // Both readers agree.
    await expect(readResultsCsv(p, { engine: 'csv-parse' })).rejects.toThrow(/run 1 \(its rows come back/)
  })
  it('each check alone still reads, and so do a run’s rows kept together, metrics interleaved', async () => {
    const p = join(dir, 'one-check.csv')
    writeFileSync(p, [HEAD, ...oneRowPerRun(rng, 1.05, 1)].join('\n') + '\n')
    const one = await readResultsCsv(p)
    expect(one.series.find(s => s.environment === 'native')!.values).toHaveLength(12)
    const q = join(dir, 'interleaved-metrics.csv')
    const rows = [HEAD.replace(',better', '')]
    for (let r = 1; r <= 3; r++)
      for (let it = 0; it < 4; it++)
        for (const env of ['native', 'container'])
          rows.push(
            `matmul,${env},${r},kernel_ms,${41 + it / 10},ms`,
            `matmul,${env},${r},tflops_x,${48 - it / 10},ms`
          )
    writeFileSync(q, rows.join('\n') + '\n')
    const read = await readResultsCsv(q)
    expect(read.series.find(s => s.metric === 'kernel_ms' && s.environment === 'native')!.iterations).toEqual(
      [4, 4, 4]
    )
  })
  it('in-memory rows without iterations (results of two checks) are refused too', () => {
    const rec = (run: number, value: number) => ({
      workload: 'matmul',
      environment: 'native',
      run,
      metric: 'kernel_ms',
      value,
      unit: 'ms'
    })
    expect(() => aggregateRows([rec(1, 41), rec(2, 41.1), rec(1, 42), rec(2, 42.1)]).series()).toThrow(
      /run 1 \(its rows come back/
    )
  })
  it('iterations out of order are still read, and a repeated one is still refused', () => {
    const rec = (iteration: number, value: number) => ({
      workload: 'matmul',
      environment: 'native',
      run: 1,
      iteration,
      metric: 'kernel_ms',
      value,
      unit: 'ms'
    })
    const shuffled = [5, 3, 4, 0, 1, 2, 9, 7].map(i => rec(i, 41 + i / 100))
    expect(aggregateRows(shuffled).series()[0]!.iterations).toEqual([8])
    expect(() => aggregateRows([...shuffled, rec(4, 41)]).series()).toThrow(/iteration 4 twice/)
    const ascending = [0, 1, 2, 3, 10, 11, 12].map(i => rec(i, 41))
    expect(() => aggregateRows([...ascending, rec(11, 41)]).series()).toThrow(/iteration 11 twice/)
    expect(aggregateRows([...ascending, rec(5, 41)]).series()[0]!.iterations).toEqual([8])
  })
})
