/**
 * `analyze` on a samples.csv whose blocks took turns request by request (interleave = turns): the host's state
 * flips in the middle of half the blocks. Each block is the ratio of its two processes' request means (issue 39),
 * which cover the same stretch of time, so a flip moves a block by one request's share of the step, not by the
 * ±5% the per-process medians showed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { analyzeCommand } from '../../src/commands/analyze.js'
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

test('turns blocks with mid-block flips: each block is the ratio of its request means, off by one request at most', async () => {
  const { analysis } = await analyse(true)
  const c = analysis.comparisons[0]!
  expect(c.ci_method).toBe('paired')
  expect(c.overhead_pct).toBeGreaterThan(0)
  expect(c.overhead_pct).toBeLessThan(1)
  // A flip moves a block by one request's share of the 11.6% step (6 requests), never by half of it (±5%).
  expect(c.paired!.block_pcts.every(p => Math.abs(p - 0.5) < 11.7 / 6 + 0.3)).toBe(true)
  expect(c.verdict).not.toBe('regression')
})

test('the same requests without the column read the same request means, so the same verdict', async () => {
  const turns = (await analyse(true)).analysis.comparisons[0]!
  const plain = (await analyse(false)).analysis.comparisons[0]!
  expect(plain.overhead_pct).toBeCloseTo(turns.overhead_pct, 9)
  expect(plain.verdict).toBe(turns.verdict)
})
