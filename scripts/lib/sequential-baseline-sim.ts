/**
 * Issue 52, T9: a sequential check with a stored baseline, through the production steps (scripts/simulate-verdicts.ts
 * prints the row; test/analyze/issue52-sequential-baseline.test.ts checks it on fewer checks). A history of 5
 * accepted fixed-count checks of the same generator goes into an in-memory store (compareWithBaseline, saved as
 * the save rule allows); then one sequential check (3 to the default max-runs blocks, a look after each), compared with the store and
 * decided as check-steps.ts decides it (decideCheck: one Holm family, then the sequential rule's verdicts).
 */
import { compareWithBaseline } from '../../src/analyze/baseline/index.js'
import { analyzeRecords } from '../../src/analyze/compare/index.js'
import { decideCheck } from '../../src/analyze/family.js'
import { SequentialController } from '../../src/analyze/sequential-check.js'
import type { Analysis, Comparison, SampleRecord } from '../../src/types/index.js'
import { memoryStore } from './baseline-sim.js'
import {
  ALPHA,
  MAX,
  analyzeOpts,
  asCheck,
  blockRows,
  checkSamples,
  DEFAULT_MAX_RUNS,
  streamOf,
  type Generator
} from './defect-sims.js'

const STORED = 5
const STORED_BLOCKS = 6

export interface BaselineCheck {
  analysis: Analysis
  baseline: Comparison[]
  runs: number
  /** The sequential rule's last state per comparison key (`<metric>`), candidate `container`. */
  sequentialStates: Map<string, string>
}

const withId = (rows: SampleRecord[], id: string): SampleRecord[] => rows.map(r => ({ ...r, check_id: id }))

/** One sequential check of `g` after `STORED` accepted checks of it, decided as check-steps.ts decides it. */
export async function sequentialCheckWithBaseline(
  g: Generator,
  seed: number,
  maxRuns = DEFAULT_MAX_RUNS,
  gatedWorkloads = 1
): Promise<BaselineCheck> {
  const store = memoryStore()
  const opts = { path: null, maxOverheadPct: MAX, alpha: ALPHA, store, seed }
  for (let k = 0; k < STORED; k++)
    await compareWithBaseline(
      asCheck(withId(checkSamples(g, STORED_BLOCKS, seed * 100 + 1_000_000 + k), `stored-${k}`)),
      { ...opts, save: true }
    )
  const draw = g.check(streamOf(seed))
  const ctl = new SequentialController({
    minRuns: 3,
    maxRuns,
    timeBudgetS: null,
    maxOverheadPct: MAX,
    alpha: ALPHA,
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    // A default check gates two workloads (matmul, llm): the regression budget is split between them.
    gatedWorkloads
  })
  const samples: SampleRecord[] = []
  let run = 0
  for (let i = 0; i < maxRuns; i++) {
    samples.push(...withId(blockRows(g, draw, i), 'current'))
    run = i + 1
    if (ctl.afterBlock({ workload: 'llm', run, samples, elapsedMs: 0, blockMs: 0 }) !== null) break
  }
  const rows = asCheck(samples)
  const fixed = analyzeRecords(rows, analyzeOpts(seed))
  const stored = await compareWithBaseline(rows, { ...opts, save: false })
  const decided = decideCheck(fixed, stored.comparisons, { maxOverheadPct: MAX, alpha: ALPHA }, ctl)
  const sequentialStates = new Map<string, string>()
  for (const s of ctl.summary())
    for (const m of s.metrics) if (m.candidate === 'container') sequentialStates.set(m.key, m.state)
  return { analysis: decided.analysis, baseline: decided.baseline, runs: run, sequentialStates }
}

export interface BaselineRates {
  regression: number
  equivalent: number
  covered: number
  /** Checks whose arm verdict is a claim (equivalent, regression, improvement) the sequential rule did not reach. */
  notSequential: number
  meanRuns: number
  sims: number
}

/** Rates of the arms' gated request-mean comparison over `sims` sequential checks with a stored baseline. */
export async function baselineRates(
  g: Generator,
  sims: number,
  seed0 = 1,
  gatedWorkloads = 1
): Promise<BaselineRates> {
  let regression = 0
  let equivalent = 0
  let covered = 0
  let notSequential = 0
  let runs = 0
  for (let s = 0; s < sims; s++) {
    const r = await sequentialCheckWithBaseline(g, seed0 + s, DEFAULT_MAX_RUNS, gatedWorkloads)
    runs += r.runs
    const arm = r.analysis.comparisons.find(c => c.scope === 'steady' && c.metric === 'tpot_ms')
    if (r.analysis.comparisons.some(c => c.scope === 'steady' && c.verdict === 'regression')) regression++
    if (arm === undefined) continue
    if (arm.verdict === 'equivalent') equivalent++
    if (
      ['equivalent', 'regression', 'improvement'].includes(arm.verdict) &&
      r.sequentialStates.get(arm.metric) !== arm.verdict
    )
      notSequential++
    if (arm.ci95.low <= g.truthPct && arm.ci95.high >= g.truthPct) covered++
  }
  return {
    regression: regression / sims,
    equivalent: equivalent / sims,
    covered: covered / sims,
    notSequential: notSequential / sims,
    meanRuns: runs / sims,
    sims
  }
}
