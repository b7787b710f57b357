/**
 * `analyze` on a samples.csv whose blocks took turns request by request (interleave = turns): the host's state
 * flips in the middle of half the blocks, and the verdict is what the blocks' iteration pairs say (+0.5%,
 * equivalent at 2%), not what the per-process medians say (±5% blocks, undecided).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { analyzeCommand } from '../../src/entry/cli/analyze.js'
import { SAMPLE_CSV_COLUMNS, sampleCsvRow } from '../../src/results/store.js'
import { flippingCheck } from '../analyze/turns-data.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-analyze-turns-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function analyse(turns: boolean): ReturnType<typeof analyzeCommand> {
  const input = join(dir, `samples-${turns}.csv`)
  const lines = [SAMPLE_CSV_COLUMNS.join(','), ...flippingCheck(turns).map(sampleCsvRow)]
  writeFileSync(input, lines.join('\n') + '\n')
  return analyzeCommand({ input, format: 'json', maxOverheadPct: 2, alpha: 0.05 })
}

test('turns blocks with mid-block flips: the paired estimate decides', async () => {
  const { analysis } = await analyse(true)
  const c = analysis.comparisons[0]!
  expect(c.ci_method).toBe('paired')
  expect(c.overhead_pct).toBeGreaterThan(0.3)
  expect(c.overhead_pct).toBeLessThan(0.7)
  expect(c.paired!.block_pcts.every(p => Math.abs(p - 0.5) < 0.5)).toBe(true)
  expect(c.verdict).toBe('equivalent')
  expect(analysis.verdict).toBe('equivalent')
})

test('the same requests without the column: per-process medians, blocks off by ±5%, undecided', async () => {
  const { analysis } = await analyse(false)
  const c = analysis.comparisons[0]!
  expect(c.paired!.block_pcts.filter(p => Math.abs(p) > 4)).toHaveLength(5)
  expect(c.verdict).not.toBe('equivalent')
})
