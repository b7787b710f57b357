/**
 * `analyze` on a duet check's samples.csv gives the check's answer (issue 39, item 4 of the follow-up): the
 * file carries each process's GPU, so the reader must pool the GPUs as the check does (each GPU a block,
 * multi-gpu.ts) and keep the blocks' GPU strata (issue 38), and the GPU UUIDs, which differ between the arms of
 * a duet by design, must not make the arms incomparable. Data: the duet generator of the simulation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { analyzeRecords } from '../../src/analyze/compare/index.js'
import { pooledRows } from '../../src/analyze/multi-gpu.js'
import { SAMPLE_CSV_COLUMNS, sampleCsvRow } from '../../src/results/store.js'
import { analyzeCommand } from '../../src/commands/analyze.js'
import { readResultsCsv } from '../../src/results/csv/index.js'
import { InputError } from '../../src/util/errors.js'
import type { SampleRecord } from '../../src/types/index.js'
import { checkSamples, duet } from '../../scripts/lib/defect-sims.js'

const UUIDS = ['GPU-aaaa', 'GPU-bbbb']

/** A duet check's rows as the check records them: each process on its GPU, with that GPU's UUID. */
function duetRows(seed: number, blocks: number): SampleRecord[] {
  return checkSamples(duet(2, 3), blocks, seed).map(s => ({
    ...s,
    time: '2026-11-27T00:00:00Z',
    fingerprint: { gpu_name: 'H100', gpu_uuid: UUIDS[s.gpu!]!, driver: '580.159.04' } as never
  }))
}

describe('analyze on a duet samples.csv', () => {
  let dir: string
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'duet-csv-'))))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it.each([1, 2, 3])('gives the check’s overhead, interval, strata and verdict (seed %i)', async seed => {
    const rows = duetRows(seed, 8)
    const file = join(dir, `samples-${seed}.csv`)
    writeFileSync(file, [SAMPLE_CSV_COLUMNS.join(','), ...rows.map(sampleCsvRow)].join('\n') + '\n')
    const opts = { maxOverheadPct: 2, alpha: 0.05 }
    const check = analyzeRecords(pooledRows(rows), {
      ...opts,
      baselineEnv: 'native',
      candidateEnvs: ['container']
    })
    const fromCsv = (await analyzeCommand({ input: file, format: 'json', ...opts })).analysis
    const a = check.comparisons.find(c => c.metric === 'tpot_ms')!
    const b = fromCsv.comparisons.find(c => c.metric === 'tpot_ms')!
    expect(a.paired?.strata).toBe(2)
    expect(b.incomparable_fields).toBeUndefined()
    expect(b.paired?.strata).toBe(2)
    expect(b.paired?.df).toBe(a.paired?.df)
    expect(b.overhead_pct).toBeCloseTo(a.overhead_pct, 9)
    expect(b.ci95.low).toBeCloseTo(a.ci95.low, 9)
    expect(b.ci95.high).toBeCloseTo(a.ci95.high, 9)
    expect(b.verdict).toBe(a.verdict)
    expect(fromCsv.verdict).toBe(check.verdict)
  })

  it('both readers agree, and a gpu cell that is not a GPU index is refused at its line', async () => {
    const rows = duetRows(4, 6)
    const text = [SAMPLE_CSV_COLUMNS.join(','), ...rows.map(sampleCsvRow)].join('\n') + '\n'
    const file = join(dir, 'both.csv')
    writeFileSync(file, text)
    const plain = await readResultsCsv(file)
    const parsed = await readResultsCsv(file, { engine: 'csv-parse' })
    expect(plain.series).toEqual(parsed.series)
    expect(plain.fingerprints).toEqual(parsed.fingerprints)
    expect(plain.series[0]!.gpus).toHaveLength(6)
    const bad = join(dir, 'bad.csv')
    const at = SAMPLE_CSV_COLUMNS.indexOf('gpu')
    const lines = text.split('\n')
    lines[1] = lines[1]!
      .split(',')
      .map((f, i) => (i === at ? 'H100' : f))
      .join(',')
    writeFileSync(bad, lines.join('\n'))
    await expect(readResultsCsv(bad)).rejects.toThrow(InputError)
    await expect(readResultsCsv(bad)).rejects.toThrow(/bad\.csv:2 column 'gpu'/)
  })
})
