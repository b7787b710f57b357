/**
 * Issue 39's defects (and issue 38's duet offsets), each from the generator scripts/simulate-verdicts.ts uses
 * for its row (scripts/lib/defect-sims.ts), through the production entry points.
 */
import { estimatorFootnote } from '../../src/report/analysis-text.js'
import { keptBlocks, ratioTest } from '../../src/analyze/stats/index.js'
import {
  duet,
  fixedCheck,
  nativeSlowPath,
  rates,
  requestTail,
  sequentialCheck,
  uniform
} from '../../scripts/lib/defect-sims.js'

const gated = (a: ReturnType<typeof fixedCheck>) => a.comparisons.find(c => c.metric === 'tpot_ms')!

describe('S5: a slowdown a minority of requests pays is never equivalent', () => {
  it('10% of container requests ×1.3 (request mean +3%): equivalent in none of 40 fixed checks (was 83–100%)', () => {
    const r = rates(requestTail(0.1, 1.3), 12, 40)
    expect(r.equivalent).toBeLessThanOrEqual(0.05)
    expect(r.covered).toBeGreaterThan(0.85)
  })
  it('the overhead is the ratio of the request means (per-process means, not medians)', () => {
    const c = gated(fixedCheck(requestTail(0.1, 1.3), 12, 5))
    expect(c.overhead_pct).toBeGreaterThan(1.5)
    expect(c.overhead_pct).toBeCloseTo((c.mean_candidate / c.mean_baseline - 1) * 100, 6)
  })
})

describe('S2: a native-only slow path is no regression the screened blocks alone would show', () => {
  it('15% of native processes +10%, candidate mean +1%: far fewer false regressions (was 41% at 12 blocks)', () => {
    expect(rates(nativeSlowPath(1), 12, 60).regression).toBeLessThan(0.2)
  })
  it('where the screened view disagrees, the verdict rests on every block and a note says why', () => {
    let seed = 1
    for (;;) {
      const a = fixedCheck(nativeSlowPath(1), 12, seed++)
      const c = gated(a)
      if (c.paired === undefined || c.paired.left_out === 0) continue
      expect(c.verdict).not.toBe('regression')
      expect(c.paired.screened_pct).toBeGreaterThan(c.overhead_pct)
      if (c.screened_disagrees)
        expect(a.notes?.some(n => /leaving out the \d+ of 12 blocks/.test(n) && /slow path/.test(n))).toBe(
          true
        )
      break
    }
  })
})

describe('S4/S8: every block counts, so the paired test is the exact one', () => {
  it('6 blocks where MAD screening would leave one out: the estimate and interval use all six', () => {
    let seed = 1
    for (;;) {
      const c = gated(fixedCheck(uniform(2, 'normal'), 6, seed++))
      const d = c.paired!.block_pcts.map(p => Math.log1p(p / 100))
      if (keptBlocks(d).length === d.length) continue
      // The ratio of the arms' means over every block, Fieller's interval on 5 df.
      expect(c.paired!.df).toBe(5)
      expect(c.overhead_pct).toBeCloseTo((c.mean_candidate / c.mean_baseline - 1) * 100, 6)
      expect(c.paired!.left_out).toBe(1)
      break
    }
  })
  it('Fieller’s ends are where the paired t of w − θ·b reaches the t quantile', () => {
    const w = [42, 43, 44, 45, 59.5]
    const b = [40, 41, 42, 43, 45]
    const t = ratioTest({ w, b }, 0.98, 1.02, 0.05)
    const tOf = (theta: number): number => {
      const e = w.map((x, i) => x - theta * b[i]!)
      const m = e.reduce((s, x) => s + x, 0) / e.length
      const v = e.reduce((s, x) => s + (x - m) ** 2, 0) / (e.length - 1)
      return m / Math.sqrt(v / e.length)
    }
    expect(tOf(t.ci.high)).toBeCloseTo(-2.776445, 5)
    expect(tOf(t.ci.low)).toBeCloseTo(2.776445, 5)
    expect(t.ratio).toBeCloseTo(233.5 / 211, 12)
  })
})

describe('S9: the interval printed after a sequential stop holds after the stop', () => {
  it('the repeated interval is printed, wider than the nominal one kept beside it', () => {
    const { analysis } = sequentialCheck(uniform(2, 'normal'), 3)
    const c = gated(analysis)
    expect(c.ci95_fixed_n_for_reference).toBeDefined()
    expect(c.ci95.low).toBeLessThan(c.ci95_fixed_n_for_reference!.low)
    expect(c.ci95.high).toBeGreaterThan(c.ci95_fixed_n_for_reference!.high)
    expect(analysis.notes?.some(n => /repeated 95% intervals/.test(n))).toBe(true)
  })
  it('covers +2% after the stop in at least 94% of 50 sequential checks', () => {
    expect(rates(uniform(2, 'normal'), 'sequential', 50).covered).toBeGreaterThanOrEqual(0.94)
  })
})

describe('S10: the footnote under paired rows describes the paired estimator', () => {
  it('paired rows: the ratio of request means over blocks with Fieller’s interval, not the bootstrap', () => {
    const c = gated(fixedCheck(uniform(0, 'normal'), 6, 1))
    const note = estimatorFootnote([c])
    expect(note).toMatch(/Rows marked paired: .*ratio of the request means over every block.*Fieller/)
    expect(note).not.toMatch(/wider of percentile bootstrap/)
    expect(estimatorFootnote([{ ...c, ci_method: 'bootstrap' }])).toMatch(/wider of percentile bootstrap/)
  })
})

describe('issue 38: a duet’s GPU offsets cost degrees of freedom', () => {
  it('blocks on two GPUs, crossed over: two strata, df = blocks − 2', () => {
    const c = gated(fixedCheck(duet(2, 3), 12, 1))
    expect(c.paired!.strata).toBe(2)
    expect(c.paired!.df).toBe(10)
  })
})
