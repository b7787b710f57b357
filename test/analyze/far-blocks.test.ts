/**
 * Blocks far off the others, on per-block TPOT overheads recorded on 4 x H100 hosts (docs/evidence/2026-11-26-*
 * and 2026-11-27-h100x4-alone), and through the analysis on one check's per-process values.
 */
import { describeFarBlocks, farBlocks, FAR_FROM_MEDIAN } from '../../src/analyze/far-blocks.js'
import { DECODE_STATE_DOC } from '../../src/analyze/state-advice.js'
import { analyzeSeries } from '../../src/analyze/compare/index.js'
import { series } from './helpers.js'

// Beside three other checks (2026-11-26 call 1, GPU 1): three blocks straddled a change of level.
const FLIPPING = [-0.2, 10.2, -0.9, 1.1, 11.1, 9.2, -0.1]
// Quiet checks: alone and beside one other check on hosts whose level stayed put.
const QUIET = [
  [1.1, 0.1, -0.6, -0.1, 0.8],
  [-0.8, -1.2, 0.8, 0.3, 0.0],
  [-0.6, 1.5, 0.4, -0.3, -0.2],
  [-0.0, 0.2, -0.5]
]
// The ~3%-slower image: every block moved alike.
const REAL_OVERHEAD = [
  [1.3, 3.7, 3.4],
  [3.6, 3.2, 3.5, 3.4, 3.7, 3.3]
]

describe('farBlocks', () => {
  it('names the blocks that straddled a change of level, in run order', () => {
    expect(farBlocks(FLIPPING, 2)).toEqual({ far: [10.2, 11.1, 9.2], blocks: 7, medianPct: 1.1 })
  })

  it('finds none in quiet checks, nor where a real overhead moved every block', () => {
    for (const b of [...QUIET, ...REAL_OVERHEAD]) expect(farBlocks(b, 2)).toBeNull()
  })

  it('scales with max-overhead: a looser threshold tolerates more spread', () => {
    expect(FAR_FROM_MEDIAN * 5).toBeGreaterThan(11.2)
    expect(farBlocks(FLIPPING, 5)).toBeNull()
    expect(farBlocks([0.1, 0.2, 1.6, 0.0], 0.5)).toEqual({
      far: [1.6],
      blocks: 4,
      medianPct: expect.closeTo(0.15, 9)
    })
  })

  it('a steady large effect is no disagreement: blocks judged as ratios, by their own spread', () => {
    // The default CPU check of issue 42: every block about ×7, ±5% of it (4 of 5 named by the old rule).
    expect(farBlocks([598, 611, 604, 590, 607], 2)).toBeNull()
    expect(farBlocks([593, 611, 600, 604, 590, 606], 2)).toBeNull()
    // Blocks spread wider than the limit, most of them "far": no pair of levels.
    expect(farBlocks([-8.2, 3.1, 9.5, -2.4, 12.0, 0.7, -11.3], 2)).toBeNull()
    // Two levels at ×7 and ×8 (a state change under a large effect) are named.
    expect(farBlocks([600, 601, 700, 599, 602, 703], 2)).toEqual({
      far: [700, 703],
      blocks: 6,
      medianPct: 601.5
    })
  })

  it('needs three finite blocks and a positive threshold', () => {
    expect(farBlocks([0, 12], 2)).toBeNull()
    expect(farBlocks([0, 0.1, 12], 2)).toEqual({ far: [12], blocks: 3, medianPct: 0.1 })
    expect(farBlocks([0, 0.1, Number.NaN, 12], 2)).toBeNull()
    expect(farBlocks(FLIPPING, 0)).toBeNull()
  })

  it('the note gives the blocks, both causes that fit, and what measures every process in one state', () => {
    const note = describeFarBlocks(
      [{ what: 'llm/tpot_ms', far: farBlocks(FLIPPING, 2)!, turns: false }],
      true
    )
    expect(note).toMatch(
      /^llm\/tpot_ms: 3 of 7 blocks lie far off the others \(\+10\.2%, \+11\.1%, \+9\.2%; the blocks' median is \+1\.1%\)\. /
    )
    // This project's page by URL: the user's repository has no docs/ folder.
    expect(DECODE_STATE_DOC).toMatch(/^https:\/\/github\.com\/[^/]+\/gpu-overhead-action\/blob\/main\/docs\//)
    expect(note).toContain(DECODE_STATE_DOC)
    expect(note).toMatch(/host changed state between a block's two processes/)
    expect(note).toMatch(/slow path/)
    // Without turns: turns put every process in one state; the duet does not (2026-11-27-layouts-final).
    expect(note).toMatch(/turns: true \(the default\) measures every process in one state/)
    expect(note).not.toMatch(/gpus: 0,1/)
  })

  it('under turns, the levels point at something else on the GPUs, not at turns', () => {
    const note = describeFarBlocks([{ what: 'llm/tpot_ms', far: farBlocks(FLIPPING, 2)!, turns: true }], true)
    expect(note).toMatch(/took turns/)
    expect(note).toMatch(/no other job shares its GPUs/)
    expect(note).not.toMatch(/turns: true/)
  })

  it('one note for several metrics: the blocks of each, the causes once, the advice per layout', () => {
    const f = farBlocks(FLIPPING, 2)!
    const same = describeFarBlocks(
      [
        { what: 'llm/tpot_ms', far: f, turns: true },
        { what: 'llm/ttft_ms', far: f, turns: true }
      ],
      true
    )
    expect(same.match(/lie far off the others/g)).toHaveLength(2)
    expect(same.match(/host changed state/g)).toHaveLength(1)
    expect(same.match(/took turns/g)).toHaveLength(1)
    const mixed = describeFarBlocks(
      [
        { what: 'llm/tpot_ms', far: f, turns: true },
        { what: 'matmul/kernel_ms', far: f, turns: false }
      ],
      true
    )
    expect(mixed).toMatch(/llm\/tpot_ms: Its processes took turns/)
    expect(mixed).toMatch(/matmul\/kernel_ms: Its processes measured without turns/)
  })

  it('a CPU check (no fingerprint names a GPU) hears of the host alone: no GPU, no decode, no duet', () => {
    for (const turns of [true, false]) {
      const note = describeFarBlocks(
        [{ what: 'matmul/kernel_ms', far: farBlocks(FLIPPING, 2)!, turns }],
        false
      )
      expect(note).toMatch(/host changed state between a block's two processes/)
      expect(note).toMatch(/no other job shares the machine/)
      expect(note).not.toMatch(/GPU|decode|duet/i)
    }
  })
})

describe('the analysis', () => {
  // One default check beside another on 2026-11-27's host (call 3, GPU 0, round 1): per-process TPOT, ms.
  const native = [2.8241, 3.1497, 2.8444, 2.8414, 3.1382, 3.0269]
  const container = [3.0381, 3.1894, 3.1665, 3.181, 2.8591, 3.1513]
  const analyse = (n: number[], c: number[]) =>
    analyzeSeries(
      [
        series('native', 'tpot_ms', n, { workload: 'llm' }),
        series('container', 'tpot_ms', c, { workload: 'llm' })
      ],
      { baselineEnv: 'native', candidateEnv: 'container', maxOverheadPct: 2, alpha: 0.05 }
    )

  it('counts the far blocks on the comparison and adds one note', () => {
    const a = analyse(native, container)
    const c = a.comparisons.find(x => x.metric === 'tpot_ms')!
    expect(c.verdict).toBe('inconclusive')
    expect(c.far_blocks).toBe(3)
    expect(a.notes?.filter(x => x.includes('far off the others'))).toHaveLength(1)
  })

  it('adds nothing where the blocks agree', () => {
    const a = analyse(
      native,
      native.map(v => v * 1.004)
    )
    expect(a.comparisons.find(x => x.metric === 'tpot_ms')!.far_blocks).toBeUndefined()
    expect((a.notes ?? []).some(x => x.includes('far off the others'))).toBe(false)
  })
})
