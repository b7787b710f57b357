/**
 * Measured work over run time. On several GPUs the processes run side by side, so their measured regions overlap:
 * the real 4 x H100 check (docs/evidence/2026-11-26-h100x4-field/all-gpus) read "133.7 s of 63.4 s (211%)".
 */
import * as fs from 'node:fs'
import { measuredWork, measuredWorkNote } from '../../src/analyze/measured-work.js'
import type { RunRecord } from '../../src/types/index.js'

const runs = (file: string): RunRecord[] =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map(l => JSON.parse(l) as RunRecord)

describe('measuredWork', () => {
  it('counts the GPU time of every GPU that ran side by side (4 x H100, gpus: all)', () => {
    const w = measuredWork(runs('test/__fixtures__/evidence/2026-11-26-h100x4-field/all-gpus/runs.jsonl'))
    expect(w.gpus).toBe(4)
    expect(w.fraction).toBeGreaterThan(0.3)
    expect(w.fraction).toBeLessThan(1)
    expect(measuredWorkNote(w)).toMatch(
      /^Measured work: 133\.7 s of 253\.\d s of GPU time \(4 GPUs × 63\.4 s of run time\) \(53%\) over 24 processes/
    )
  })
  it('one GPU: its run time', () => {
    const w = measuredWork(
      runs('test/__fixtures__/evidence/2026-11-26-h100x4-neighbours/slow/alone-gpu0/runs.jsonl')
    )
    expect(w.gpus).toBe(1)
    expect(measuredWorkNote(w)).toMatch(
      /^Measured work: \d+\.\d s of \d+\.\d s of run time \(\d+%\) over 18 processes/
    )
  })
  it('no note where nothing marked a measured region (commands timed whole, result files)', () => {
    const r = runs('test/__fixtures__/evidence/2026-11-26-h100x4-neighbours/slow/alone-gpu0/runs.jsonl').map(
      x => ({
        ...x,
        measured_s: null
      })
    )
    expect(measuredWorkNote(measuredWork(r))).toBeNull()
  })
})
