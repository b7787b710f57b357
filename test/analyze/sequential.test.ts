import { sequentialOptions } from '../../src/analyze/sequential-check.js'
import { seededRandom } from '../../src/plan/schedule.js'
import {
  describeUndecided,
  lookAlpha,
  sequentialLook,
  spentAlpha,
  type SequentialOptions,
  type SequentialSeries
} from '../../src/analyze/sequential.js'

const OPTS: SequentialOptions = {
  maxOverheadPct: 2,
  alphaRegression: 0.025,
  alphaEquivalence: 0.05,
  minRuns: 3,
  maxRuns: 12,
  spendingRegression: 'obrien-fleming',
  spendingEquivalence: 'pocock',
  // These tests are about the looks and their alpha: equivalence from the minimum on. The default (10 processes,
  // compare/mode-exclusion.ts) has its own test below.
  equivalenceMinRuns: 3
}

const series = (
  metric: string,
  baseline: number[],
  candidate: number[],
  direction: 'lower' | 'higher' = 'lower'
): SequentialSeries => ({
  metric,
  direction,
  baseline,
  candidate
})

describe('alpha spending', () => {
  it('spends exactly alpha by the last look and nothing before the first', () => {
    for (const kind of ['pocock', 'obrien-fleming', 'power'] as const) {
      expect(spentAlpha(kind, 0.05, 0)).toBe(0)
      expect(spentAlpha(kind, 0.05, 1)).toBeCloseTo(0.05, 12)
      let total = 0
      for (let n = 3; n <= 12; n++) total += lookAlpha(kind, 0.05, n, 3, 12)
      expect(total).toBeCloseTo(0.05, 12)
    }
  })

  it('matches the Lan–DeMets forms at t = 0.5', () => {
    // O'Brien–Fleming: 2 − 2Φ(1.959964/√0.5) = 2 − 2Φ(2.771808) = 0.005575; Pocock: 0.05·ln(1 + (e − 1)/2).
    expect(spentAlpha('obrien-fleming', 0.05, 0.5)).toBeCloseTo(0.005575, 5)
    expect(spentAlpha('pocock', 0.05, 0.5)).toBeCloseTo(0.05 * Math.log(1 + (Math.E - 1) / 2), 12)
  })

  it('gives no alpha outside min..max runs', () => {
    expect(lookAlpha('pocock', 0.05, 2, 3, 12)).toBe(0)
    expect(lookAlpha('pocock', 0.05, 13, 3, 12)).toBe(0)
  })
})

describe('sequentialLook', () => {
  const quiet = [100.0, 100.05, 99.95]
  it('decides a quiet A/A pair equivalent at the minimum', () => {
    const r = sequentialLook([series('kernel_ms', quiet, [100.02, 99.97, 100.01])], OPTS)
    expect(r.n).toBe(3)
    expect(r.decided).toBe(true)
    expect(r.metrics[0]!.state).toBe('equivalent')
  })

  it('flags a clear slowdown, and a throughput drop, as regression', () => {
    const slow = sequentialLook([series('kernel_ms', quiet, [110.0, 110.05, 109.97])], OPTS)
    expect(slow.metrics[0]!.state).toBe('regression')
    const fewer = sequentialLook(
      [series('tokens_per_s', [2500, 2501, 2499], [2250, 2251, 2249], 'higher')],
      OPTS
    )
    expect(fewer.metrics[0]!.state).toBe('regression')
  })

  it('calls a clear gain an improvement (decided, never a regression), in either direction', () => {
    const more = sequentialLook(
      [series('tokens_per_s', [2500, 2501, 2499], [2750, 2751, 2749], 'higher')],
      OPTS
    )
    expect(more.metrics[0]!.state).toBe('improvement')
    expect(more.decided).toBe(true)
    const faster = sequentialLook([series('tpot_ms', [3.61, 3.611, 3.612], [3.396, 3.394, 3.398])], OPTS)
    expect(faster.metrics[0]!.state).toBe('improvement')
  })

  it('by default waits for 10 runs per arm before an equivalence (a slow mode of a third of the processes)', () => {
    const { equivalenceMinRuns: _, ...defaults } = OPTS
    const three = sequentialLook([series('kernel_ms', quiet, [100.02, 99.97, 100.01])], defaults)
    expect(three.metrics[0]!.state).toBe('undecided')
    const b = [100.0, 100.05, 99.95, 100.02, 99.98, 100.01, 99.99, 100.03, 99.97, 100.0]
    const ten = sequentialLook(
      [
        series(
          'kernel_ms',
          b,
          b.map(v => v + 0.01)
        )
      ],
      defaults
    )
    expect(ten.metrics[0]!.state).toBe('equivalent')
    // A regression is not held back: the mode argument is about passing.
    const slow = sequentialLook([series('kernel_ms', quiet, [110.0, 110.05, 109.97])], defaults)
    expect(slow.metrics[0]!.state).toBe('regression')
  })

  it('decides nothing before the minimum number of runs', () => {
    const r = sequentialLook([series('kernel_ms', [100, 100.01], [100, 100.01])], OPTS)
    expect(r.decided).toBe(false)
    expect(r.metrics[0]!.state).toBe('undecided')
  })

  it('keeps a noisy metric undecided and says how many runs would decide it', () => {
    const r = sequentialLook(
      [
        series('kernel_ms', quiet, [100, 100.01, 99.99]),
        series('tpot_ms', [2.66, 2.96, 2.67], [2.97, 2.66, 2.96])
      ],
      OPTS
    )
    expect(r.decided).toBe(false)
    expect(r.metrics.map(m => m.state)).toEqual(['equivalent', 'undecided'])
    const need = r.metrics[1]!.runsToDecide
    expect(need).not.toBeNull()
    expect(need!).toBeGreaterThan(3)
    expect(describeUndecided(r)).toEqual([`tpot_ms: undecided (~${need} runs per arm would decide it)`])
  })

  it('uses less alpha per look than a fixed-n test: a borderline fixed-n equivalence waits', () => {
    // TOST p ≈ 0.02 at n = 3: equivalent at α = 0.05 in one look, not at the first look's share.
    const b = [100, 101, 99]
    const c = [100.2, 101.1, 99.3]
    const fixed = sequentialLook([series('m', b, c)], { ...OPTS, minRuns: 3, maxRuns: 3 })
    const seq = sequentialLook([series('m', b, c)], OPTS)
    expect(fixed.metrics[0]!.pEquivalence).toBeLessThan(0.05)
    expect(fixed.metrics[0]!.state).toBe('equivalent')
    expect(seq.metrics[0]!.state).toBe('undecided')
  })
})

/**
 * Issue 28: "+3% at CV 0.5% flagged ≥ 95%" with A/A false regression ≤ 2.5%, for the rule as the check runs it
 * (sequentialOptions: one gated workload, 3–12 runs, the default max-runs then (16 since issue 52), max-overhead
 * 2%), replayed pair by pair on blocks as scripts/simulate-sequential.ts does (its full table:
 * docs/sequential-simulation.md). The O'Brien–Fleming form flagged 94.8% there: 51 of 52 misses ended undecided
 * at 12 runs with one-sided p 0.008–0.02, while its last look tested at 0.0058.
 */
describe('the regression budget is spent where a near-threshold regression is decided', () => {
  const opts = sequentialOptions({
    maxOverheadPct: 2,
    alpha: 0.05,
    minRuns: 3,
    maxRuns: 12,
    gatedWorkloads: 1
  })
  function flaggedShare(effect: number, seed: number, TRIALS: number): number {
    const rand = seededRandom(seed)
    const normal = (): number =>
      Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand())
    let flagged = 0
    for (let t = 0; t < TRIALS; t++) {
      const b: number[] = []
      const c: number[] = []
      for (let n = 1; n <= opts.maxRuns; n++) {
        b.push(100 * (1 + 0.005 * normal()))
        c.push(100 * (1 + 0.005 * normal()) * (1 + effect))
        if (n < opts.minRuns) continue
        const look = sequentialLook([{ ...series('m', b, c), blocks: { w: c, b } }], opts)
        if (look.decided) {
          if (look.metrics[0]!.state === 'regression') flagged++
          break
        }
      }
    }
    return flagged / TRIALS
  }

  it('spends α·t^6: at the first look no more than the O’Brien–Fleming form, at the last far more', () => {
    expect(opts.spendingRegression).toBe('power')
    expect(lookAlpha('power', 0.025, 3, 3, 12)).toBeLessThan(lookAlpha('obrien-fleming', 0.025, 3, 3, 12))
    expect(lookAlpha('power', 0.025, 12, 3, 12)).toBeGreaterThan(0.01)
    expect(lookAlpha('obrien-fleming', 0.025, 12, 3, 12)).toBeLessThan(0.006)
  })

  it('+3% at CV 0.5% is flagged in ≥ 95% of checks; A/A and at-threshold false regressions stay ≤ 2.5%', () => {
    // 2,000 checks (Monte Carlo SE 0.4 points); the O'Brien–Fleming form sat at 94.8–95.5%, this one at 97.3%.
    expect(flaggedShare(0.03, 28, 2000)).toBeGreaterThanOrEqual(0.96)
    expect(flaggedShare(0, 29, 1000)).toBeLessThanOrEqual(0.025)
    expect(flaggedShare(0.02, 30, 1000)).toBeLessThanOrEqual(0.025)
  })
})
