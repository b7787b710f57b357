/** Steps: what starts at once in lockstep and in a duet, and when a duet applies. */
import { buildPlan } from '../../src/plan/schedule.js'
import { planSteps, resolveLayout, runsPerBlock } from '../../src/plan/index.js'
import type { Lane } from '../../src/types/index.js'
import type { Arm } from '../../src/types/index.js'

const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'container', kind: 'container', image: 'img' }
]
const lanes = (n: number): Lane[] =>
  [...Array(n).keys()].map(i => ({ index: i, uuid: `GPU-${i}`, name: 'X', minor: i }))

describe('resolveLayout', () => {
  it('auto is a duet for two arms on an even number of pinned GPUs, else lockstep', () => {
    expect(resolveLayout('auto', 2, lanes(2))).toBe('duet')
    expect(resolveLayout('auto', 2, lanes(4))).toBe('duet')
    expect(resolveLayout('auto', 2, lanes(3))).toBe('lockstep')
    expect(resolveLayout('auto', 3, lanes(4))).toBe('lockstep')
    expect(resolveLayout('auto', 2, [null])).toBe('lockstep')
    expect(resolveLayout('auto', 2, lanes(1))).toBe('lockstep')
    expect(resolveLayout('lockstep', 2, lanes(4))).toBe('lockstep')
  })
  it('an explicit duet that cannot apply says why and what is allowed', () => {
    expect(() => resolveLayout('duet', 2, lanes(3))).toThrow(
      `input 'gpu-layout': got "duet"; allowed: auto or lockstep: duet needs an even number of GPUs (this check has 3; drop one from gpus)`
    )
    expect(() => resolveLayout('duet', 3, lanes(2))).toThrow(/exactly two arms \(this check has 3\)/)
    expect(() => resolveLayout('duet', 2, [null])).toThrow(/two or more GPUs it can pin/)
  })
})

describe('planSteps', () => {
  const plan = buildPlan({
    arms,
    workloads: ['matmul', 'llm'],
    runs: 4,
    warmupRuns: 1,
    schedule: 'abba',
    seed: 1
  })

  it('lockstep: one slot per step on every lane, the r-th repetition on lane k is run (r−1)·L+k+1', () => {
    const steps = planSteps(plan, lanes(2), 'lockstep')
    expect(steps).toHaveLength(plan.length)
    const s = steps.find(x => !x.slots[0]!.warmup && x.slots[0]!.run === 3)!
    expect(s.processes.map(p => [p.lane?.index, p.run])).toEqual([
      [0, 5],
      [1, 6]
    ])
    expect(runsPerBlock('lockstep', 4)).toBe(4)
  })

  it('duet: a step is a whole block; each GPU runs each arm equally often over two blocks; pairs share a label', () => {
    for (const schedule of ['abba', 'random'] as const) {
      const p = buildPlan({ arms, workloads: ['matmul', 'llm'], runs: 4, warmupRuns: 1, schedule, seed: 7 })
      const steps = planSteps(p, lanes(4), 'duet')
      expect(steps).toHaveLength(p.length / 2)
      const count = new Map<string, number>()
      for (const step of steps) {
        expect(new Set(step.slots.map(x => x.arm.label))).toEqual(new Set(['native', 'container']))
        expect(new Set(step.slots.map(x => `${x.workload}/${x.run}/${x.warmup}`)).size).toBe(1)
        // Four processes on four different GPUs; each pair (0,1), (2,3) holds one of each arm with one label.
        expect(new Set(step.processes.map(x => x.lane!.index)).size).toBe(4)
        for (const pair of [
          [0, 1],
          [2, 3]
        ]) {
          const ps = step.processes.filter(x => pair.includes(x.lane!.index))
          expect(new Set(ps.map(x => x.planned.arm.label)).size).toBe(2)
          expect(new Set(ps.map(x => x.run)).size).toBe(1)
        }
        if (step.slots[0]!.warmup) continue
        for (const x of step.processes) {
          const k = `${x.planned.workload} ${x.planned.arm.label} GPU ${x.lane!.index}`
          count.set(k, (count.get(k) ?? 0) + 1)
        }
      }
      // 4 blocks: every (workload, arm, GPU) twice.
      expect([...count.values()]).toEqual(Array(16).fill(2))
      // Labels per (workload, arm) are 1..8, each once.
      const labels = steps
        .filter(s => !s.slots[0]!.warmup)
        .flatMap(s => s.processes)
        .filter(x => x.planned.workload === 'llm' && x.planned.arm.label === 'container')
        .map(x => x.run)
        .sort((a, b) => a - b)
      expect(labels).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    }
    expect(runsPerBlock('duet', 4)).toBe(2)
  })
})
