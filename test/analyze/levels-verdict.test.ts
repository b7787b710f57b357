/**
 * Issue 38: an arm whose processes sit at two levels (LLM decode at ~2.84 or ~3.15 ms per token, the GPU's state,
 * docs/evidence/2026-11-27-decode-state.md) must not give a confident regression or improvement that the levels
 * explain. Generated data: native processes at either level, the container at one level in between.
 */
import { analyzeRecords } from '../../src/analyze/index.js'

function rows(env: string, perProcess: number[]) {
  // 20 requests a process, ±0.2% inside it (quiet, as decode is).
  return perProcess.flatMap((level, k) =>
    Array.from({ length: 20 }, (_, i) => ({
      workload: 'llm',
      environment: env,
      run: k + 1,
      metric: 'tpot_ms',
      value: level * (1 + 0.002 * Math.sin(7 * i + k)),
      unit: 'ms',
      scope: 'steady' as const
    }))
  )
}

function compare(native: number[], container: number[]) {
  return analyzeRecords([...rows('native', native), ...rows('container', container)], {
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    maxOverheadPct: 2,
    alpha: 0.05,
    seed: 1
  }).comparisons.find(c => c.metric === 'tpot_ms')!
}

test('native at two levels, the container at one: the "improvement" the levels explain is not claimed', () => {
  const native = [3.15, 3.16, 2.84, 3.15, 3.17, 2.85, 3.16, 3.15]
  const container = [2.95, 2.96, 2.95, 2.94, 2.95, 2.96, 2.95, 2.95]
  const c = compare(native, container)
  expect(c.overhead_pct).toBeLessThan(-3)
  expect(c.multimodal_arms).toEqual(['native'])
  expect(c.levels_gap_pct).toBeGreaterThan(9)
  expect(c.verdict).toBe('inconclusive')
  expect(c.reason).toMatch(/sat at two levels 9\.\d% apart.*turns: true/)
})

test('a difference larger than the gap between the levels is still claimed', () => {
  const native = [3.15, 3.16, 3.08, 3.15, 3.17, 3.08, 3.16, 3.15]
  const container = native.map(v => v * 1.12)
  const c = compare(native, container)
  expect(c.levels_gap_pct).toBeLessThan(12)
  expect(c.verdict).toBe('regression')
})

test('both arms at the same two levels (a state both saw): the paired estimate stands', () => {
  const native = [3.15, 2.84, 3.15, 2.84, 3.16, 2.85, 3.15, 2.84]
  const c = compare(native, [...native])
  expect(c.shared_levels).toBe(true)
  expect(c.levels_gap_pct).toBeUndefined()
})
