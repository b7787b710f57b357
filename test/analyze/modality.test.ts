import { describeModes, describeSharedLevels, findModes, sharedLevels } from '../../src/analyze/modality.js'
import { seededRandom } from '../../src/plan/schedule.js'
import { analyzeSeries } from '../../src/analyze/compare/index.js'
import { series } from './helpers.js'

function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand())
}

describe('findModes', () => {
  it('finds the two decode modes recorded on an H200 (GPU 0 native, docs/evidence/2026-11-22-h200x2)', () => {
    const tpot = [2.6556, 2.6634, 2.6608, 2.9722]
    const modes = findModes(tpot)
    expect(modes).not.toBeNull()
    expect(modes!.low).toEqual([2.6556, 2.6634, 2.6608])
    expect(modes!.high).toEqual([2.9722])
    expect(modes!.gapRel).toBeGreaterThan(0.1)
    expect(describeModes('llm/tpot_ms', 'native', modes!, 'ms')).toMatch(
      /^llm\/tpot_ms: the native arm is multi-modal — 3 runs near 2.66 ms, 1 run near 2.97 ms \(gap 11\.6% of the median/
    )
  })

  it('leaves one-mode arms alone: the same GPU container arm and matmul', () => {
    expect(findModes([2.9703, 2.9689, 2.9652, 2.9744])).toBeNull()
    expect(findModes([40.91, 40.92, 40.9, 40.93, 40.91])).toBeNull()
    expect(findModes([2.66, 2.97, 2.8])).toBeNull() // too few runs to say
  })

  it('rarely calls normal per-run values multi-modal (CV 0.5%, 4 to 20 runs)', () => {
    const rand = seededRandom(7)
    let hits = 0
    const trials = 3000
    for (let t = 0; t < trials; t++) {
      const n = 4 + (t % 17)
      const xs = Array.from({ length: n }, () => 100 * (1 + 0.005 * normal(rand)))
      if (findModes(xs) !== null) hits++
    }
    expect(hits / trials).toBeLessThan(0.01)
  })

  it('finds a 30/70 mode split in 10 runs most of the time', () => {
    const rand = seededRandom(9)
    let hits = 0
    for (let t = 0; t < 1000; t++) {
      const xs = Array.from(
        { length: 10 },
        (_, i) => 100 * (1 + 0.003 * normal(rand)) * (i % 3 === 0 ? 1.1 : 1)
      )
      if (findModes(xs) !== null) hits++
    }
    expect(hits).toBeGreaterThan(950)
  })
})

describe('sharedLevels', () => {
  // Per-process TPOT medians (ms) of one check on a 4 x H100 host with three other checks running, in run order
  // (docs/evidence/2026-11-26-h100x4-shared-host, call 1, GPU 1): both arms flip between the same two levels.
  const native = [2.887, 3.151, 2.864, 2.828, 2.861, 2.838, 2.835]
  const container = [3.169, 3.2, 2.829, 2.862, 2.857, 2.851, 3.188]

  it('names two arms that sit at the same two levels, with each arm’s levels', () => {
    const shared = sharedLevels(findModes(native)!, findModes(container)!)
    expect(shared).not.toBeNull()
    const note = describeSharedLevels('llm/tpot_ms', ['native', 'container'], shared!, 'ms', false, true)
    expect(note).toMatch(
      /both arms sit at the same two levels \(native 2\.85 and 3\.15 ms, container 2\.85 and 3\.19 ms\)/
    )
    expect(note).toMatch(/measured within blocks/)
    // The advice follows the layout: the duet does not share the level (2026-11-27-layouts-final); turns do.
    expect(note).toMatch(/turns: true \(the default\) measures every process in one state/)
    expect(note).not.toMatch(/gpus: 0,1|side by side\)/)
    expect(describeSharedLevels('llm/tpot_ms', ['native', 'container'], shared!, 'ms', true, true)).toMatch(
      /took turns.*no other job shares its GPUs/
    )
    // A CPU check: the host's state alone, no GPU or decode words.
    for (const turns of [true, false])
      expect(
        describeSharedLevels('matmul/kernel_ms', ['native', 'container'], shared!, 'ms', turns, false)
      ).not.toMatch(/GPU|decode|duet/i)
  })

  it('the analysis gives the advice of the layout the runs were measured in', () => {
    const withTurns = (s: ReturnType<typeof series>): ReturnType<typeof series> => ({
      ...s,
      turns: s.values.map(v => [v, v])
    })
    const noteOf = (turns: boolean): string => {
      const [n, c] = [
        series('native', 'tpot_ms', native, { workload: 'llm' }),
        series('container', 'tpot_ms', container, { workload: 'llm' })
      ]
      const notes =
        analyzeSeries(turns ? [withTurns(n), withTurns(c)] : [n, c], {
          baselineEnv: 'native',
          candidateEnv: 'container',
          maxOverheadPct: 2,
          alpha: 0.05
        }).notes ?? []
      return notes.find(x => x.includes('same two levels')) ?? ''
    }
    expect(noteOf(false)).toMatch(/measured without turns/)
    expect(noteOf(true)).toMatch(/took turns/)
  })

  it('does not pair the levels of an arm that a real overhead moved by a good part of the gap', () => {
    for (const factor of [1.03, 1.1, 0.95]) {
      const moved = container.map(v => v * factor)
      expect(sharedLevels(findModes(native)!, findModes(moved)!)).toBeNull()
    }
  })

  it('the analysis adds the note only where both arms are multi-modal at the same levels', () => {
    const notesFor = (n: number[], c: number[]): string[] =>
      analyzeSeries(
        [
          series('native', 'tpot_ms', n, { workload: 'llm' }),
          series('container', 'tpot_ms', c, { workload: 'llm' })
        ],
        { baselineEnv: 'native', candidateEnv: 'container', maxOverheadPct: 2, alpha: 0.05 }
      ).notes?.filter(x => x.includes('same two levels')) ?? []
    expect(notesFor(native, container)).toHaveLength(1)
    expect(notesFor(native, [3.17, 3.18, 3.19, 3.2, 3.18, 3.19, 3.18])).toHaveLength(0)
    expect(
      notesFor(
        native,
        container.map(v => v * 1.1)
      )
    ).toHaveLength(0)
  })
})
