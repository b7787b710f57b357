import { readFileSync } from 'node:fs'
import { mannWhitneyU } from '../../src/analyze/stats/index.js'

interface Case {
  name: string
  baseline?: number[]
  candidate?: number[]
  baseline_range?: [number, number]
  candidate_range?: [number, number]
  method: 'permutation' | 'scipy-auto' | 'log_ndtr'
  u: number
  p: number
  log10_p?: number
}
const ref = JSON.parse(
  readFileSync(new URL('../__fixtures__/stats/mwu_reference.json', import.meta.url), 'utf8')
) as { cases: Case[] }
const byName = (name: string): Case => ref.cases.find(c => c.name === name)!
const range = ([a, b]: [number, number]): number[] => Array.from({ length: b - a }, (_, i) => a + i)

describe('Mann–Whitney U against SciPy 1.17 (make_mwu_reference.py)', () => {
  test.each(ref.cases.filter(c => c.method !== 'log_ndtr').map(c => [c.name, c] as const))(
    '%s',
    (_name, c) => {
      const r = mannWhitneyU(c.candidate!, c.baseline!)
      expect(r.u).toBe(c.u)
      if (c.method === 'permutation' && !c.name.startsWith('all_tied')) expect(r.method).toBe('permutation')
      // Permutation p is a ratio of counts: exact. Normal-approximation p: agree to 1e-9 relative.
      expect(Math.abs(r.p - c.p)).toBeLessThanOrEqual(1e-9 * c.p + 1e-15)
      expect(r.log10_p).toBeCloseTo(Math.log10(c.p), 6)
    }
  )

  test('issue 17 case 3: constant arms at n = 3 (1.0 vs 1.0300001) cannot reach p < 0.10', () => {
    const c = byName('constant_arms_n3')
    const r = mannWhitneyU(c.candidate!, c.baseline!)
    expect(r.p).toBe(0.1)
    expect(r.method).toBe('permutation')
  })

  test('issue 17 case 7: n = 50/50 separated does not underflow (SciPy 7.07e-18)', () => {
    const r = mannWhitneyU(range([100, 150]), range([0, 50]))
    expect(r.p).toBeGreaterThan(7.0e-18)
    expect(r.p).toBeLessThan(7.1e-18)
  })

  test('below the smallest double the log of p stays finite and matches log_ndtr', () => {
    const c = byName('separated_2000_vs_2000')
    const r = mannWhitneyU(range(c.candidate_range!), range(c.baseline_range!))
    expect(r.p).toBe(0)
    expect(r.log10_p).toBeCloseTo(c.log10_p!, 6)
  })

  test('the permutation distribution is exact: every arrangement of 2 vs 2 with a tie counted once', () => {
    // Mid-ranks of [1,2,2,3] are 1, 2.5, 2.5, 4; the 6 subsets of size 2 give rank sums
    // 3.5, 3.5, 5, 5, 6.5, 6.5; the candidate [2,3] has 6.5 → P(≥) = 2/6, two-sided 4/6.
    expect(mannWhitneyU([2, 3], [1, 2]).p).toBeCloseTo(4 / 6, 15)
  })
})
