/**
 * Our port against Apache Otava itself:
 * - recorded outputs: Otava's compute_change_points (commit in the fixture) on seeded series of our own,
 *   recorded by scripts/changepoints/otava-reference.py — same indexes, p-values and magnitudes under
 *   `otavaExact`; the default (corrected, reconciled) mode reports a subset, each point significant;
 * - Otava's own tests (test/__fixtures__/changepoints/otava-tests.json, Apache-2.0, see NOTICE there):
 *   every series, setting and expected value those tests assert, parsed from their sources by
 *   scripts/changepoints/otava-tests-extract.py; run by ./otava-own-tests.ts.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { changePoints } from '../../src/analyze/changepoints/index.js'
import { checkOtavaCase, type OtavaTests } from './otava-own-tests.js'

interface Recorded {
  otava_commit: string
  cases: {
    name: string
    window: number
    maxP: number
    minMagnitude: number
    series: number[]
    otava: { index: number; pValue: number; magnitude: number; meanBefore: number; meanAfter: number }[]
  }[]
}

const root = path.resolve(import.meta.dirname, '../..')
const recorded = JSON.parse(
  readFileSync(path.join(root, 'test/__fixtures__/changepoints/otava-outputs.json'), 'utf8')
) as Recorded

/** p from jstat vs SciPy: relative 1e-6, or absolute below 1e-15 where both are ~0. */
function expectP(got: number, want: number): void {
  if (want < 1e-15) expect(got).toBeLessThan(1e-12)
  else expect(Math.abs(got - want) / want).toBeLessThan(1e-6)
}

describe(`recorded outputs of Apache Otava ${recorded.otava_commit.slice(0, 12)}`, () => {
  it('covers steps, noise, drift and the four settings', () => {
    expect(recorded.cases.length).toBeGreaterThanOrEqual(70)
    expect(recorded.cases.some(c => c.otava.length === 0)).toBe(true)
    expect(recorded.cases.some(c => c.otava.length >= 2)).toBe(true)
  })

  for (const c of recorded.cases)
    it(`${c.name} window ${c.window} p ${c.maxP} min ${c.minMagnitude}: Otava's points and statistics`, () => {
      const opts = { window: c.window, maxP: c.maxP, minMagnitude: c.minMagnitude }
      const exact = changePoints(c.series, { ...opts, otavaExact: true }).changePoints
      expect(exact.map(x => x.index)).toEqual(c.otava.map(x => x.index))
      exact.forEach((x, i) => {
        const o = c.otava[i]!
        expectP(x.pValue, o.pValue)
        expect(x.magnitude).toBeCloseTo(o.magnitude, 9)
        expect(x.meanBefore).toBeCloseTo(o.meanBefore, 9)
        expect(x.meanAfter).toBeCloseTo(o.meanAfter, 9)
      })
      // The default mode (corrected p, reconciled, min segment 3) may split drift elsewhere, but every
      // point it reports is significant, large enough and has 3 points each side.
      const ours = changePoints(c.series, opts).changePoints
      ours.forEach((x, i) => {
        expect(x.pValue).toBeLessThanOrEqual(c.maxP)
        expect(x.magnitude).toBeGreaterThan(c.minMagnitude)
        expect(x.index - (ours[i - 1]?.index ?? 0)).toBeGreaterThanOrEqual(3)
        expect((ours[i + 1]?.index ?? c.series.length) - x.index).toBeGreaterThanOrEqual(3)
      })
    })

  it('the default mode keeps the clear steps Otava finds', () => {
    const keep = (name: string): number[] =>
      changePoints(
        recorded.cases.find(c => c.name === name && c.window === 50 && c.minMagnitude === 0.02)!.series
      ).changePoints.map(x => x.index)
    expect(keep('step-0')).toEqual([40])
    expect(keep('two-steps-0')).toEqual([30, 60])
    expect(keep('revert')).toEqual([25, 45])
    expect(keep('noise-0')).toEqual([])
  })
})

const OWN = 'test/__fixtures__/changepoints/otava-tests.json'
const own = JSON.parse(readFileSync(path.join(root, OWN), 'utf8')) as OtavaTests
/** Cases extracted at Otava 1ceb1537a49d; a re-extraction may add cases, never silently lose one. */
const EXTRACTED_CASES = 27

describe(`Apache Otava’s own tests (${own.repository} ${own.commit.slice(0, 12)})`, () => {
  it('is the full extract, with every left-out test named and explained', () => {
    expect(own.repository).toBe('apache/otava')
    expect(own.cases.length).toBeGreaterThanOrEqual(EXTRACTED_CASES)
    for (const s of own.notExtracted) expect(s.reason.length).toBeGreaterThan(0)
    // No case is marked skipped: every one below runs.
    expect(own.cases.filter(c => 'skip' in c)).toEqual([])
  })

  for (const c of own.cases) it(c.source, () => checkOtavaCase(c))
})
