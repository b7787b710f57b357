import { buildPlan, runText } from '../../src/plan/schedule.js'
import type { Arm } from '../../src/types/index.js'

const A: Arm = { label: 'native', kind: 'native', image: null }
const B: Arm = { label: 'container', kind: 'container', image: 'x' }

describe('buildPlan', () => {
  it('interleaves A B B A and puts warm-ups first', () => {
    const plan = buildPlan({
      arms: [A, B],
      workloads: ['matmul'],
      runs: 4,
      warmupRuns: 1,
      schedule: 'abba',
      seed: 1
    })
    expect(plan.map(p => `${p.warmup ? 'w' : ''}${p.arm.label[0]}${p.run}`)).toEqual([
      'wn1',
      'wc1',
      'n1',
      'c1',
      'c2',
      'n2',
      'n3',
      'c3',
      'c4',
      'n4'
    ])
    expect(plan.map(p => p.order)).toEqual(plan.map((_, i) => i))
  })
  it('gives every arm the same number of runs and the same mean position (no drift bias)', () => {
    const plan = buildPlan({
      arms: [A, B],
      workloads: ['matmul', 'llm'],
      runs: 10,
      warmupRuns: 0,
      schedule: 'abba',
      seed: 1
    })
    for (const w of ['matmul', 'llm']) {
      const pos = (label: string): number[] =>
        plan.filter(p => p.workload === w && p.arm.label === label).map(p => p.order)
      expect(pos('native')).toHaveLength(10)
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length
      expect(mean(pos('native'))).toBeCloseTo(mean(pos('container')), 6)
    }
  })
  it('random schedule is reproducible from its seed and differs between seeds', () => {
    const mk = (seed: number): string =>
      buildPlan({ arms: [A, B], workloads: ['matmul'], runs: 20, warmupRuns: 0, schedule: 'random', seed })
        .map(p => p.arm.label[0])
        .join('')
    expect(mk(7)).toBe(mk(7))
    expect(mk(7)).not.toBe(mk(8))
    expect(
      mk(7)
        .split('')
        .filter(c => c === 'n')
    ).toHaveLength(20)
  })
})

describe('runText', () => {
  it('names a warm-up as one, and a measured run by its process run label', () => {
    const plan = buildPlan({
      arms: [A, B],
      workloads: ['matmul'],
      runs: 1,
      warmupRuns: 1,
      schedule: 'abba',
      seed: 1
    })
    expect(plan.map(p => runText(p))).toEqual(['warm-up', 'warm-up', 'run 1', 'run 1'])
    // On two lanes the second GPU's process of run 1 is run 2 (plan/steps.ts).
    expect(runText(plan[2]!, 2)).toBe('run 2')
  })
})
