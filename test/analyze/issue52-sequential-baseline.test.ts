/**
 * Issue 52, T9: with a stored baseline, a sequential check's verdicts are the sequential rule's. The check's
 * analysis step (check-steps.ts `analyzeCheck`, as `run` and the action call it) with a real config, a real
 * baseline file holding 5 accepted checks, and a SequentialController that looked after every block. Before the
 * fix the family step re-decided the arms at fixed-count levels after the controller's downgrade: the check below,
 * a clean +2% (at the threshold) in a check that gates two workloads (the regression budget split between them),
 * stopped at 12 blocks with the sequential rule undecided, and read REGRESSION +2.71% [+2.04, +3.66].
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { compareWithBaseline } from '../../src/analyze/index.js'
import { analyzeCheck, sequentialFor } from '../../src/check-steps.js'
import { loadConfig } from '../../src/config/index.js'
import { initialCheckState } from '../../src/gate/index.js'
import type { SampleRecord } from '../../src/types/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { asCheck, blockRows, checkSamples, streamOf, uniform } from '../../scripts/lib/defect-sims.js'

const IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)
const withId = (rows: SampleRecord[], id: string): SampleRecord[] => rows.map(r => ({ ...r, check_id: id }))

let dir: string
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'issue52-t9-'))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** Seed 4 of scripts/lib/sequential-baseline-sim.ts: a clean +2% check the sequential rule leaves undecided. */
const SEED = 4

it('a check the sequential rule left undecided stays inconclusive with a stored baseline (was: regression)', async () => {
  const g = uniform(2, 'normal')
  const baselinePath = path.join(dir, 'baseline.json')
  const config = loadConfig({
    workspace: dir,
    flags: {
      [Inputs.Image]: IMAGE,
      [Inputs.Device]: 'cpu',
      [Inputs.Python]: '/usr/bin/python3',
      [Inputs.Workloads]: 'llm,matmul',
      [Inputs.Runs]: '3',
      [Inputs.MaxRuns]: '12',
      [Inputs.BaselinePath]: baselinePath
    }
  })
  // The accepted history, stored through the real file store.
  for (let k = 0; k < 5; k++)
    await compareWithBaseline(
      asCheck(withId(checkSamples(g, 6, SEED * 100 + 1_000_000 + k), `stored-${k}`)),
      {
        path: baselinePath,
        save: true,
        maxOverheadPct: config.maxOverheadPct,
        alpha: config.alpha
      }
    )
  const sequential = sequentialFor(config)!
  const draw = g.check(streamOf(SEED))
  const samples: SampleRecord[] = []
  for (let run = 1; run <= 12; run++) {
    samples.push(...withId(blockRows(g, draw, run - 1), 'current'))
    if (sequential.afterBlock({ workload: 'llm', run, samples, elapsedMs: 0, blockMs: 0 }) !== null) break
  }
  const stop = sequential.summary()[0]!
  expect(stop.runs_per_arm).toBe(12)
  expect(stop.metrics.find(m => m.key === 'tpot_ms')?.state).toBe('undecided')

  const state = initialCheckState()
  state.exec = { ...state.exec, samples, complete: true }
  state.sequential = sequential
  await analyzeCheck(config, state)

  // The stored-baseline comparisons were in the family (otherwise this is not the path of T9).
  expect(state.baseline?.comparisons.filter(c => c.scope === 'steady').length).toBeGreaterThan(0)
  const arm = state.analysis!.comparisons.find(c => c.metric === 'tpot_ms' && c.scope === 'steady')!
  expect(arm.verdict).toBe('inconclusive')
  // The printed interval is the repeated one; the truth (+2%) is not beyond the threshold.
  expect(arm.ci95_fixed_n_for_reference).toBeDefined()
  expect(state.analysis!.verdict).toBe('inconclusive')
})
