/**
 * Blocks of the interleaved schedule (issue 28): adjacent A/B processes are analysed as pairs, so a host-wide
 * state shared by both arms cancels, robustly to a block that straddles a change of state, without turning a
 * real difference into "equivalent". The data are the issue's own: a default check beside a busy neighbour,
 * TPOT per process in one of two states (2.84 or 3.17 ms), state changes shared by both arms.
 */
import { measureComparison, decide } from '../../src/analyze/compare/index.js'
import { sequentialLook } from '../../src/analyze/sequential.js'
import { SequentialController, stopNote } from '../../src/analyze/sequential-check.js'
import type { ArmSeries } from '../../src/results/run-values/index.js'
import { keptBlocks, pairedTest, blockMean } from '../../src/analyze/stats/index.js'
import type { Comparison, SampleRecord } from '../../src/types/index.js'
import { series } from './helpers.js'
import { sampleRecord } from '../helpers/sample-record.js'

const opts = { baselineEnv: 'native', candidateEnv: 'container', maxOverheadPct: 2, alpha: 0.05 }

/** The per-pair container/native ratios of the issue's default check, percent (ten within ±1.2%, two straddling a flip). */
const ISSUE_PAIRS = [0.27, -0.08, -0.37, -1.13, -0.15, -0.21, 0.19, 5.93, -0.99, -0.14, 10.51, 0.02]
/** Which state each block's baseline process was in (the state changed in blocks of about a minute). */
const STATE = [0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0].map(s => (s === 0 ? 2.84 : 3.17))

function arms(pcts: readonly number[], levels: readonly number[] = STATE): [ArmSeries, ArmSeries] {
  const base = levels.map(l => l)
  const cand = levels.map((l, i) => l * (1 + pcts[i]! / 100))
  return [
    series('native', 'tpot_ms', base, { workload: 'llm' }),
    series('container', 'tpot_ms', cand, { workload: 'llm' })
  ]
}

function compare(base: ArmSeries, cand: ArmSeries): Comparison {
  return decide([measureComparison(base, cand, opts)], { alpha: 0.05, maxOverheadPct: 2 })[0]!
}

/** The same runs with no common run label: the two-sample analysis the landed main did. */
function unpaired(cand: ArmSeries): ArmSeries {
  return { ...cand, runs: cand.runs.map(r => `x${r}`) }
}

describe('blocks left out by the MAD–median rule (K = 5), then the paired t-test', () => {
  it('matches a hand computation: one block far off the others is left out', () => {
    // Median 5.5, MAD 2.5, scaled 3.71: 100 is 25 scaled MADs out, 1 and 9 are 1.2.
    expect(keptBlocks([1, 2, 3, 4, 5, 6, 7, 8, 9, 100])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    const t = blockMean([1, 2, 3, 4, 5, 6, 7, 8, 9, 100])!
    expect(t.leftOut).toBe(1)
    expect(t.estimate).toBeCloseTo(5, 12)
    expect(t.mean).toBeCloseTo(14.5, 12)
    expect(t.se).toBeCloseTo(Math.sqrt(7.5 / 9), 12)
    expect(t.df).toBe(8)
  })
  it('leaves nothing out below 6 blocks, nor below 5 kept, nor without a scale: the paired t-test', () => {
    expect(keptBlocks([1, 2, 4, 7, 100])).toEqual([1, 2, 4, 7, 100])
    expect(keptBlocks([0, 0, 0, 0, 1, 50])).toEqual([0, 0, 0, 0, 1, 50])
    expect(keptBlocks([1, 1.1, 0.9, 1, 30, 31, 32])).toEqual([1, 1.1, 0.9, 1, 30, 31, 32])
    // A quarter or more far off is a second population (bimodal processes), not a few straddling blocks.
    const bimodal = [0, 0.1, -0.1, 0.05, 10, -0.05, 0.02, 10, -10, 0.03, -0.02, 10]
    expect(keptBlocks(bimodal)).toEqual(bimodal)
    expect(keptBlocks(bimodal.map((x, i) => (i === 8 ? 0.01 : x)))).toHaveLength(9)
    const t = blockMean([1, 2, 4, 7])!
    expect(t.leftOut).toBe(0)
    const m = 3.5
    const s2 = ((1 - m) ** 2 + (2 - m) ** 2 + (4 - m) ** 2 + (7 - m) ** 2) / 3
    expect(t.se).toBeCloseTo(Math.sqrt(s2 / 4), 12)
    expect(t.df).toBe(3)
  })
  it('at normal data it practically never leaves a block out', () => {
    let seed = 7
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31
    let out = 0
    for (let k = 0; k < 2000; k++) {
      const d = Array.from(
        { length: 12 },
        () => Math.sqrt(-2 * Math.log(rand())) * Math.cos(2 * Math.PI * rand())
      )
      out += 12 - keptBlocks(d).length
    }
    // ≈ 0.3% of blocks: a MAD from 12 values is itself noisy.
    expect(out / (2000 * 12)).toBeLessThan(0.005)
  })
  it('no spread tests nothing', () => {
    expect(pairedTest([0.01, 0.01, 0.01], -0.02, 0.02, 0.05).defined).toBe(false)
  })
})

describe('a state shared by both arms cancels within blocks', () => {
  it('the ten quiet blocks of the issue’s A/A-like check: two samples stay undecided, the blocks decide equivalent', () => {
    const quiet = ISSUE_PAIRS.filter(p => Math.abs(p) < 2)
    const [b, c] = arms(
      quiet,
      STATE.filter((_, i) => Math.abs(ISSUE_PAIRS[i]!) < 2)
    )
    expect(compare(b, unpaired(c)).verdict).toBe('inconclusive')
    const paired = compare(b, c)
    expect(paired.ci_method).toBe('paired')
    expect(paired.p_source).toBe('paired')
    expect(paired.paired?.blocks).toBe(10)
    expect(paired.verdict).toBe('equivalent')
    expect(Math.abs(paired.overhead_pct)).toBeLessThan(0.5)
    expect(paired.ci95.high - paired.ci95.low).toBeLessThan(1)
  })

  it('with its two straddling blocks every block counts (issue 39): undecided, and the screened view is named', () => {
    const [b, c] = arms(ISSUE_PAIRS)
    const paired = compare(b, c)
    expect(paired.paired?.blocks).toBe(12)
    expect(paired.paired?.left_out).toBe(2)
    expect(Math.abs(paired.paired!.screened_pct)).toBeLessThan(0.5)
    expect(paired.overhead_pct).toBeGreaterThan(1)
    expect(paired.verdict).toBe('inconclusive')
  })

  it('a real +3% in every block with the same two straddling blocks is never equivalent', () => {
    const [b, c] = arms(ISSUE_PAIRS.map(p => ((1 + p / 100) * 1.03 - 1) * 100))
    const r = compare(b, c)
    expect(r.verdict).not.toBe('equivalent')
    expect(r.overhead_pct).toBeGreaterThan(3)
    expect(r.paired!.screened_pct).toBeGreaterThan(2.5)
    expect(r.paired!.screened_pct).toBeLessThan(3.5)
  })

  it('a real difference in some blocks only (3 of 12 processes +10%) is never called equivalent', () => {
    const quiet = [0.1, -0.2, 0.15, 0.05, -0.1, 0.2, -0.05, 0.1, 0, -0.15, 0.05, 0.1]
    const pcts = quiet.map((p, i) => ([1, 5, 9].includes(i) ? p + 10 : p))
    const levels = STATE.map(() => 3)
    const [b, c] = arms(pcts, levels)
    const r = compare(b, c)
    // The three slow blocks count: the estimate is the mean of every block (+2.5%), so no equivalence.
    expect(r.overhead_pct).toBeGreaterThan(2)
    expect(r.tost.equivalent).toBe(false)
    expect(r.verdict).not.toBe('equivalent')
  })

  it('the sequential rule uses the blocks too: decided where two samples never decide', () => {
    const quiet = ISSUE_PAIRS.filter(p => Math.abs(p) < 2)
    const [b, c] = arms(
      quiet,
      STATE.filter((_, i) => Math.abs(ISSUE_PAIRS[i]!) < 2)
    )
    const seqOpts = {
      maxOverheadPct: 2,
      alphaRegression: 0.025,
      alphaEquivalence: 0.05,
      minRuns: 3,
      maxRuns: 12,
      spendingRegression: 'obrien-fleming' as const,
      spendingEquivalence: 'pocock' as const
    }
    const blocksOf = { w: c.values, b: b.values }
    const two = sequentialLook(
      [{ metric: 'tpot_ms', direction: 'lower', baseline: b.values, candidate: c.values }],
      seqOpts
    )
    expect(two.metrics[0]!.state).toBe('undecided')
    const blocks = sequentialLook(
      [{ metric: 'tpot_ms', direction: 'lower', baseline: b.values, candidate: c.values, blocks: blocksOf }],
      seqOpts
    )
    expect(blocks.metrics[0]!.state).toBe('equivalent')
  })
})

/** Sample records of one workload, one per (arm, run), as the executor appends them. */
function samples(workload: string, base: number[], cand: number[]): SampleRecord[] {
  const row = (environment: string, run: number, value: number): SampleRecord =>
    sampleRecord({ workload, environment, run, value })
  return [...base.map((v, i) => row('native', i + 1, v)), ...cand.map((v, i) => row('container', i + 1, v))]
}

describe('constant arms decide nothing (D2, D3)', () => {
  const seqOpts = {
    maxOverheadPct: 2,
    alphaRegression: 0.025,
    alphaEquivalence: 0.05,
    minRuns: 3,
    maxRuns: 12,
    spendingRegression: 'obrien-fleming' as const,
    spendingEquivalence: 'pocock' as const
  }
  it.each([
    ['different (25 vs 26: p = 0 by arithmetic)', [25, 25, 25], [26, 26, 26]],
    ['identical (TOST p = 0 by arithmetic)', [25, 25, 25], [25, 25, 25]]
  ])('%s: undecided, said why, with and without blocks', (_name, b, c) => {
    for (const pairs of [undefined, b.map((v, i) => Math.log(c[i]! / v))]) {
      const look = sequentialLook(
        [{ metric: 'kernel_ms', direction: 'lower', baseline: b, candidate: c, ...(pairs ? { pairs } : {}) }],
        seqOpts
      )
      expect(look.metrics[0]!.state).toBe('undecided')
      expect(look.metrics[0]!.why).toBe('no-spread')
    }
  })

  it('a workload with nothing gated (io MB/s, informational) stops after two runs per arm, not the minimum', () => {
    const ctl = new SequentialController({
      minRuns: 3,
      maxRuns: 12,
      timeBudgetS: null,
      maxOverheadPct: 2,
      alpha: 0.05,
      baselineEnv: 'native',
      candidateEnvs: ['container'],
      gatedWorkloads: 1
    })
    const info = samples('io', [900, 910], [880, 890]).map(s => ({ ...s, scope: 'info' as const }))
    const at = (run: number): string | null =>
      ctl.afterBlock({
        workload: 'io',
        run,
        samples: info.filter(s => s.run <= run),
        elapsedMs: 0,
        blockMs: 1
      })
    expect(at(1)).toBeNull()
    expect(at(2)).toBe('nothing-gated')
    // The report says why `runs` (3 here, 4 in README command 1) did not apply (issue 55).
    expect(
      stopNote({ workload: 'io', runs_per_arm: 2, reason: 'nothing-gated', metrics: [], undecided: [] })
    ).toMatch(
      /io stopped after 2 run\(s\) per arm \(no gated metric: 2 runs per arm inform, whatever runs asks; gate-io-throughput: true gates io's MB\/s\)/
    )
  })

  it('D2: a constant first workload no longer stops the check, and a real +4% in the next is caught', () => {
    const ctl = new SequentialController({
      minRuns: 3,
      maxRuns: 12,
      timeBudgetS: null,
      maxOverheadPct: 2,
      alpha: 0.05,
      baselineEnv: 'native',
      candidateEnvs: ['container'],
      gatedWorkloads: 2
    })
    // matmul: a 1 ms timer, both arms constant and 1 ms apart.
    const first = samples('matmul', [25, 25, 25], [26, 26, 26])
    expect(
      ctl.afterBlock({ workload: 'matmul', run: 3, samples: first, elapsedMs: 0, blockMs: 1 })
    ).toBeNull()
    // llm: +4% with 0.5% noise per process.
    const noise = [0.3, -0.4, 0.1, 0.5, -0.2, -0.6, 0.4, 0, -0.3, 0.2, 0.6, -0.1]
    const b = noise.map(n => 100 * (1 + n / 100))
    const c = noise.map((n, i) => 104 * (1 + noise[(i + 5) % 12]! / 100))
    let stop = null
    let n = 3
    for (; n <= 12 && stop === null; n++)
      stop = ctl.afterBlock({
        workload: 'llm',
        run: n,
        samples: [...first, ...samples('llm', b.slice(0, n), c.slice(0, n))],
        elapsedMs: 0,
        blockMs: 1
      })
    expect(stop).toBe('decided')
    const llm = ctl.summary().find(s => s.workload === 'llm')!
    expect(llm.metrics[0]!.state).toBe('regression')
    expect(ctl.summary().find(s => s.workload === 'matmul')!.metrics[0]!.state).toBe('undecided')
  })
})

describe('several gated metrics: the regression claim is Holm-adjusted (D1)', () => {
  it('four metrics each just above +2% at the unadjusted CI are not four chances of a regression', () => {
    const one = (metric: string, shift: number): Comparison => {
      const base = [100, 100.4, 99.7, 100.2, 99.8, 100.1]
      const cand = base.map(
        (v, i) => v * 1.0226 * (1 + [0.2, -0.3, 0.1, 0.3, -0.2, 0][(i + shift) % 6]! / 100)
      )
      return measureComparison(series('native', metric, base), series('container', metric, cand), opts)
    }
    const single = decide([one('a', 0)], { alpha: 0.05, maxOverheadPct: 2 })[0]!
    expect(single.p_regression).toBeLessThan(0.025)
    expect(single.verdict).toBe('regression')
    const four = decide([one('a', 0), one('b', 1), one('c', 2), one('d', 3)], {
      alpha: 0.05,
      maxOverheadPct: 2
    })
    // The same evidence four times: one-sided p ≈ 0.009 each, ×4 by Holm ≈ 0.035 ≥ 0.025.
    expect(four.filter(c => c.verdict === 'regression')).toHaveLength(0)
    for (const c of four) {
      expect(c.p_regression_adjusted).toBeGreaterThanOrEqual(c.p_regression!)
      if (c.verdict !== 'regression') expect(c.reason).toMatch(/Holm-adjusted across the gated metrics/)
      else expect(c.p_regression_adjusted).toBeLessThan(0.025)
    }
  })
})

describe('futility', () => {
  it('stops a workload whose undecided metric needs far more than max-runs, from half the budget on, and says so', () => {
    const ctl = new SequentialController({
      minRuns: 3,
      maxRuns: 12,
      timeBudgetS: null,
      maxOverheadPct: 2,
      alpha: 0.05,
      baselineEnv: 'native',
      candidateEnvs: ['container'],
      gatedWorkloads: 1
    })
    // Block ratios of about +2% (on the threshold) spread by ±8%: hundreds of runs per arm would be needed.
    const spread = [8, -7, 6, -8, 7, -6, 8, -7, 6, -8, 7, -6]
    const b = spread.map(() => 100)
    const c = spread.map(s => 102 * (1 + s / 100))
    const reasons: (string | null)[] = []
    for (let n = 3; n <= 12; n++) {
      const reason = ctl.afterBlock({
        workload: 'llm',
        run: n,
        samples: samples('llm', b.slice(0, n), c.slice(0, n)),
        elapsedMs: 0,
        blockMs: 1
      })
      reasons.push(reason)
      if (reason !== null) break
    }
    expect(reasons).toEqual([null, null, null, 'futile'])
    const [stop] = ctl.summary()
    expect(stop!.metrics[0]!.runs_to_decide === null || stop!.metrics[0]!.runs_to_decide > 36).toBe(true)
    expect(stopNote(stop!)).toMatch(
      /after 6 run\(s\) per arm \(futility: the runs needed far exceed max-runs/
    )
  })
})
