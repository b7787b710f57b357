/**
 * The simulation's tail rows (scripts/lib/defect-sims.ts, README "Verdict error rates"): a per-process percentile
 * named in gate-metrics is one value per process, gated beside the request mean, and tested on the blocks'
 * log-ratios; S5's slowdown through a gated p99 is flagged, never equivalent.
 */
import {
  checkSamples,
  fixedCheck,
  percentile,
  rates,
  requestTailGated,
  tailScale
} from '../../scripts/lib/defect-sims.js'

describe('tail metrics gated through gate-metrics', () => {
  it('each process reports its p99 once (iteration 0), as the built-in llm does, from its own requests', () => {
    const rows = checkSamples(tailScale(2, 99), 3, 1)
    const tails = rows.filter(r => r.metric === 'tpot_p99_ms')
    expect(tails).toHaveLength(6)
    expect(tails.every(r => r.iteration === 0 && r.scope === 'steady')).toBe(true)
    const own = rows.filter(r => r.metric === 'tpot_ms' && r.environment === 'native' && r.run === 1)
    expect(tails.find(r => r.environment === 'native' && r.run === 1)!.value).toBeCloseTo(
      percentile(
        own.map(r => r.value),
        99
      ),
      12
    )
  })
  it('p99 at the threshold: gated, tested on log-ratios over 12 blocks; its interval covers +2% in most checks', () => {
    const r = rates(tailScale(2, 99), 12, 60)
    expect(r.covered).toBeGreaterThan(0.85)
    const c = fixedCheck(tailScale(2, 99), 12, 7).comparisons.find(x => x.metric === 'tpot_p99_ms')!
    expect(c.scope).toBe('steady')
    expect(c.paired?.blocks).toBe(12)
  })
  it('S5 (10% of requests ×1.3) with p99 gated: flagged in every one of 30 checks, never equivalent', () => {
    const r = rates(requestTailGated(0.1, 1.3, 99), 12, 30)
    expect(r.regression).toBe(1)
    expect(r.equivalent).toBe(0)
    expect(Number.isNaN(r.covered)).toBe(true)
  })
})
