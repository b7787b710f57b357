/**
 * Blocks whose two processes took turns request by request on one GPU (SampleRecord.interleave = 'turns'):
 * iteration k of both ran about half a second apart, so the two processes' request means cover the same
 * stretch of time. A host state that flips in the middle of the block moves both means alike, up to one
 * request's share of the step (2.84 vs 3.17 ms, the LLM's TPOT on a shared host); the block's value is the ratio
 * of those means (issue 39, S5: the median of the pairs hid a slowdown a minority of requests pays).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { blockRatios } from '../../src/analyze/compare/index.js'
import { readResultsCsv } from '../../src/results/csv/index.js'
import { aggregateRows, type ArmSeries } from '../../src/results/run-values/index.js'
import { analyzeRecords } from '../../src/analyze/compare/index.js'
import { SequentialController } from '../../src/analyze/sequential-check.js'
import { poolRecords } from '../../src/fleet/pool.js'
import type { ResultSource } from '../../src/fleet/types.js'
import { SAMPLE_CSV_COLUMNS, sampleCsvRow } from '../../src/results/store.js'
import type { SampleRecord } from '../../src/types/index.js'
import { InputError } from '../../src/util/errors.js'
import { CONTAINER, HIGH, LOW, NATIVE, flippingCheck, rows } from './turns-data.js'

function arm(values: number[], turns?: (number[] | null)[]): Pick<ArmSeries, 'runs' | 'values' | 'turns'> {
  return { runs: values.map((_, i) => String(i + 1)), values, ...(turns ? { turns } : {}) }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2
}

describe('blockRatios with turns', () => {
  it('a state flip in the middle of a block: the request means move alike, the medians did not', () => {
    const perRunMedian = Math.log(median(CONTAINER) / median(NATIVE))
    // The per-process medians: −5%, far from the +0.5% every quiet pair shows.
    expect(perRunMedian).toBeLessThan(-0.04)
    const r = blockRatios(arm([mean(NATIVE)], [NATIVE]), arm([mean(CONTAINER)], [CONTAINER]), 'lower')
    expect(r.runs).toEqual(['1'])
    expect(r.d[0]).toBeCloseTo(Math.log(mean(CONTAINER) / mean(NATIVE)), 12)
    // Off by one request's share of the step (the container flipped one pair later), not by half of it.
    expect(Math.abs(r.d[0]! - Math.log(1.005))).toBeLessThan(((HIGH - LOW) / LOW / NATIVE.length) * 1.01)
    // Higher-is-better (a rate): the worse way round, baseline over candidate.
    const h = blockRatios(arm([2]), arm([1.9]), 'higher')
    expect(h.w).toEqual([2])
    expect(h.b).toEqual([1.9])
    expect(h.d[0]).toBeCloseTo(Math.log(2 / 1.9), 12)
  })

  it('pairs runs by label, whatever their order in each arm', () => {
    const base = { runs: ['1', '2'], values: [3, 3] }
    const cand = { runs: ['2', '1'], values: [3.3, 3.015] }
    const r = blockRatios(base, cand, 'lower')
    expect(r.runs).toEqual(['1', '2'])
    expect(r.d[0]).toBeCloseTo(Math.log(1.005), 12)
    expect(r.d[1]).toBeCloseTo(Math.log(1.1), 12)
    expect(r.strata).toEqual(['', ''])
  })

  it('a duet block names its GPUs as its stratum; one GPU is one stratum', () => {
    const runs = ['1', '2', '3', '4', '5', '6']
    const base = { runs, values: [3, 3, 3, 3, 3, 3], gpus: [0, 1, 2, 0, 1, 2] }
    const cand = { runs, values: [3, 3, 3, 3, 3, 3], gpus: [1, 0, 2, 1, 0, 2] }
    expect(blockRatios(base, cand, 'lower').strata).toEqual(['0>1', '1>0', '', '0>1', '1>0', ''])
  })

  it('a stratum of one block makes the blocks one stratum: its offset and its noise cannot be told apart', () => {
    // A 2-GPU duet's first look (3 blocks: 0>1, 1>0, 0>1), and a 4-GPU duet at 6 blocks (two strata of one).
    const three = { runs: ['1', '2', '3'], values: [3, 3, 3], gpus: [0, 1, 0] }
    expect(blockRatios(three, { ...three, gpus: [1, 0, 1] }, 'lower').strata).toEqual(['', '', ''])
    const runs = ['1', '2', '3', '4', '5', '6']
    const base = { runs, values: [3, 3, 3, 3, 3, 3], gpus: [0, 2, 1, 3, 0, 2] }
    const cand = { runs, values: [3, 3, 3, 3, 3, 3], gpus: [1, 3, 0, 2, 1, 3] }
    expect(new Set(blockRatios(base, cand, 'lower').strata)).toEqual(new Set(['']))
  })
})

describe('the aggregator keeps a turns run by iteration', () => {
  it('values in ascending iteration order, null for a run that did not take turns, absent when none did', () => {
    const shuffled = rows('native', 1, NATIVE, true).reverse()
    const series = aggregateRows([...shuffled, ...rows('native', 2, [3, 3.1], false)]).series()
    expect(series[0]!.turns).toEqual([NATIVE, null])
    expect(series[0]!.values).toEqual([mean(NATIVE), 3.05])
    expect(aggregateRows(rows('native', 1, NATIVE, false)).series()[0]).not.toHaveProperty('turns')
  })

  it("an iteration with several rows gives their median; a row without an iteration leaves the run's pairs out", () => {
    // A derived per-token metric (itl_ms) has several rows per request.
    const r = rows('native', 1, [1, 2, 3], true).map(x => ({
      ...x,
      metric: 'itl_ms',
      scope: 'derived' as const
    }))
    const extra = { ...r[0]!, value: 3 }
    expect(aggregateRows([...r, extra]).series()[0]!.turns).toEqual([[2, 2, 3]])
    const untimed = { ...r[2]!, iteration: undefined } as unknown as SampleRecord
    expect(aggregateRows([r[0]!, r[1]!, untimed]).series()[0]).not.toHaveProperty('turns')
  })

  it('rows of one run that disagree on interleave, or an unknown value, are refused', () => {
    const r = rows('native', 1, NATIVE, true)
    const mixed = [...r.slice(0, 3), ...r.slice(3).map(({ interleave: _i, ...x }) => x as SampleRecord)]
    expect(() => aggregateRows(mixed)).toThrow(/column 'interleave'.*allowed: 'turns' as in earlier rows/)
    const bad = r.map(x => ({ ...x, interleave: 'pairs' }))
    expect(() => aggregateRows(bad)).toThrow(InputError)
    expect(() => aggregateRows(bad)).toThrow(/got "pairs"; allowed: 'turns' or empty/)
  })
})

describe('samples.csv carries interleave', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-turns-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (name: string, lines: string[]): string => {
    const p = join(dir, name)
    writeFileSync(p, lines.join('\n') + '\n')
    return p
  }

  it.each(['auto', 'csv-parse'] as const)(
    'round trip through sampleCsvRow and the reader (%s)',
    async engine => {
      expect(SAMPLE_CSV_COLUMNS.at(-1)).toBe('interleave')
      const records = [
        ...rows('native', 1, NATIVE, true),
        ...rows('container', 1, CONTAINER, true),
        ...rows('native', 2, [3, 3.1, 3.2], false),
        ...rows('container', 2, [3, 3.1, 3.2], false)
      ]
      const lines = [SAMPLE_CSV_COLUMNS.join(','), ...records.map(sampleCsvRow)]
      expect(lines[1]!.endsWith(',turns')).toBe(true)
      expect(lines.at(-1)!.endsWith(',')).toBe(true)
      const r = await readResultsCsv(write(`round-${engine}.csv`, lines), { engine })
      expect(r.extraColumns).not.toContain('interleave')
      const native = r.series.find(s => s.environment === 'native')!
      const container = r.series.find(s => s.environment === 'container')!
      expect(native.turns).toEqual([NATIVE, null])
      expect(container.turns).toEqual([CONTAINER, null])
      expect(blockRatios(native, container, 'lower').d[0]).toBeCloseTo(
        Math.log(mean(CONTAINER) / mean(NATIVE)),
        12
      )
    }
  )

  it.each(['auto', 'csv-parse'] as const)(
    'a bad value is refused, naming the allowed ones (%s)',
    async engine => {
      const lines = [
        'workload,environment,run,iteration,metric,value,interleave',
        'llm,native,1,1,tpot_ms,2.84,turns',
        'llm,native,1,2,tpot_ms,2.84,Turns'
      ]
      await expect(readResultsCsv(write(`bad-${engine}.csv`, lines), { engine })).rejects.toThrow(
        /:3 column 'interleave'': got "Turns"; allowed: 'turns' or empty/
      )
    }
  )

  it.each(['auto', 'csv-parse'] as const)('a run whose rows disagree is refused (%s)', async engine => {
    const lines = [
      'workload,environment,run,iteration,metric,value,interleave',
      'llm,native,1,1,tpot_ms,2.84,turns',
      'llm,native,1,2,tpot_ms,2.84,turns',
      'llm,native,1,3,tpot_ms,2.84,'
    ]
    await expect(readResultsCsv(write(`mixed-${engine}.csv`, lines), { engine })).rejects.toThrow(
      /:4 column 'interleave'': got ""; allowed: 'turns' as in earlier rows of this run/
    )
  })
})

describe('the sequential rule reads turns blocks by their request means', () => {
  const controller = (): SequentialController =>
    new SequentialController({
      minRuns: 3,
      maxRuns: 12,
      timeBudgetS: null,
      maxOverheadPct: 2,
      alpha: 0.05,
      baselineEnv: 'native',
      candidateEnvs: ['container'],
      gatedWorkloads: 1
    })

  it('turns or not, the same request means give the same look; never a regression from the flips', () => {
    const turns = controller().look('llm', flippingCheck(true))[0]!.look
    const plain = controller().look('llm', flippingCheck(false))[0]!.look
    expect(turns.metrics[0]!.state).toBe(plain.metrics[0]!.state)
    expect(turns.metrics[0]!.state).not.toBe('regression')
    expect(turns.metrics[0]!.pEquivalence).toBeCloseTo(plain.metrics[0]!.pEquivalence, 12)
  })
})

describe('aggregate (fleet) pools turns blocks and reads them by block', () => {
  it('two folders, each host a block of its own: the overhead is the pairs’ +0.5%', () => {
    const source = (label: string, scale: number): ResultSource => ({
      dir: label,
      label,
      summary: {} as ResultSource['summary'],
      records: flippingCheck(true).map(r => ({ ...r, value: r.value * scale }))
    })
    const pooled = poolRecords([source('a', 1), source('b', 1.03)])
    expect(pooled.every(r => r.interleave === 'turns')).toBe(true)
    const c = analyzeRecords(pooled, {
      baselineEnv: 'native',
      candidateEnvs: ['container'],
      maxOverheadPct: 2,
      alpha: 0.05,
      seed: 1
    }).comparisons[0]!
    expect(c.ci_method).toBe('paired')
    expect(c.paired!.block_pcts).toHaveLength(20)
    expect(c.overhead_pct).toBeCloseTo(0.5, 0)
    expect(c.verdict).toBe('equivalent')
  })
})
