/**
 * Runs one case of Apache Otava's own tests (test/__fixtures__/changepoints/otava-tests.json) against our
 * port in `otavaExact` mode, asserting exactly what Otava's test asserts — see the case kinds in
 * scripts/changepoints/otava-tests-extract.py. "analyzed" cases mirror Otava's Series.analyze(): each
 * metric on its own, change points grouped by index (metrics in insertion order within a group).
 */
import {
  changePoints,
  detectInWindow,
  forwardChange,
  splitTest,
  type ChangePoint,
  type Resume
} from '../../src/analyze/changepoints/index.js'

interface Options {
  window: number
  maxP: number
  minMagnitude: number
}

/** One assertion of an Otava test; which fields are present says which assertion it is. */
export interface Assertion {
  afterAppends?: number
  indexes?: number[]
  metric?: string
  group?: number
  change?: number
  index?: number
  groupCount?: number
  groupCountAtLeast?: number
  allMagnitudesAtLeast?: number
  statsFinite?: boolean
  stableRange?: { metric: string; index: number; range: [number, number] }
  statsPrinted?: Record<string, string>
  changePercentShown?: string
  changes?: { metric: string; index: number }[]
  significant?: boolean
  pGreaterThan?: number
  pLessThan?: number
}

export interface OtavaCase {
  source: string
  kind: 'changePoints' | 'detector' | 'significance' | 'analyzed'
  assertions: Assertion[]
  series?: number[]
  window?: number
  maxP?: number
  minMagnitude?: number
  index?: number
  metrics?: Record<string, number[]>
  options?: Options
  appends?: Record<string, number[]>[]
}

export interface OtavaTests {
  repository: string
  commit: string
  cases: OtavaCase[]
  notExtracted: { source: string; reason: string }[]
}

interface Change {
  metric: string
  cp: ChangePoint
}

/** Python's f"{x:+.1f}%" as Otava's report prints a change. */
const shownPercent = (cp: ChangePoint): string => {
  const pct = forwardChange(cp) * 100
  return `${pct >= 0 ? '+' : '-'}${Math.abs(pct).toFixed(1)}%`
}

/** Otava's JSON report fields of a change (TTestStats.to_json, the forward percent with .0f). */
function printed(cp: ChangePoint): Record<string, string> {
  return {
    forward_change_percent: (forwardChange(cp) * 100).toFixed(0),
    magnitude: cp.magnitude.toFixed(6),
    mean_before: cp.meanBefore.toFixed(6),
    mean_after: cp.meanAfter.toFixed(6),
    stddev_before: cp.sdBefore.toFixed(6),
    stddev_after: cp.sdAfter.toFixed(6),
    pvalue: cp.pValue.toFixed(6)
  }
}

/**
 * Otava's Series.analyze, then `steps` of its AnalyzedSeries.append: each append recomputes only the
 * metrics it extends, resuming from their weak change points (incremental, as Otava does).
 */
function analyze(c: OtavaCase, steps: number): { byMetric: Map<string, ChangePoint[]>; groups: Change[][] } {
  const opts = { ...c.options!, otavaExact: true }
  const values = new Map(Object.entries(c.metrics!).map(([m, v]) => [m, [...v]]))
  const byMetric = new Map<string, ChangePoint[]>()
  const weak = new Map<string, number[]>()
  const run = (metric: string, resume?: Resume): void => {
    const r = changePoints(values.get(metric)!, { ...opts, resume })
    byMetric.set(metric, r.changePoints)
    // Otava's merge deletes from the list split returned, so the "weak" points compute_change_points
    // hands back (and append resumes from) are the final change points.
    weak.set(
      metric,
      r.changePoints.map(x => x.index)
    )
  }
  for (const metric of values.keys()) run(metric)
  for (const append of (c.appends ?? []).slice(0, steps))
    for (const [metric, added] of Object.entries(append)) {
      const resume = { newPoints: added.length, weak: weak.get(metric)! }
      values.get(metric)!.push(...added)
      run(metric, resume)
    }
  const all: Change[] = [...byMetric].flatMap(([metric, cps]) => cps.map(cp => ({ metric, cp })))
  // Stable sort by index, like Python's sort + groupby.
  all.sort((a, b) => a.cp.index - b.cp.index)
  const groups: Change[][] = []
  for (const ch of all) {
    const last = groups.at(-1)
    if (last !== undefined && last[0]!.cp.index === ch.cp.index) last.push(ch)
    else groups.push([ch])
  }
  return { byMetric, groups }
}

/** Otava's AnalyzedSeries.get_stable_range. */
function stableRange(cps: readonly ChangePoint[], index: number, length: number): [number, number] {
  let begin = 0
  for (const cp of cps) {
    if (cp.index > index) break
    begin = cp.index
  }
  let end = length
  for (const cp of [...cps].reverse()) {
    if (cp.index <= index) break
    end = cp.index
  }
  return [begin, end]
}

function checkAnalyzed(c: OtavaCase): void {
  for (const a of c.assertions) {
    const steps = a.afterAppends ?? 0
    const { byMetric, groups } = analyze(c, steps)
    const changes = groups.flat()
    if (a.groupCount !== undefined) expect(groups.length).toBe(a.groupCount)
    if (a.groupCountAtLeast !== undefined) expect(groups.length).toBeGreaterThanOrEqual(a.groupCountAtLeast)
    if (a.group !== undefined && a.index !== undefined) expect(groups[a.group]?.[0]?.cp.index).toBe(a.index)
    if (a.group !== undefined && a.change !== undefined) {
      const ch = groups[a.group]?.[a.change]
      expect(ch?.metric).toBe(a.metric)
      if (a.statsPrinted !== undefined) expect(printed(ch!.cp)).toEqual(a.statsPrinted)
    }
    if (a.group === undefined && a.metric !== undefined && a.indexes !== undefined)
      expect(byMetric.get(a.metric)!.map(x => x.index)).toEqual(a.indexes)
    if (a.allMagnitudesAtLeast !== undefined)
      for (const ch of changes) expect(ch.cp.magnitude).toBeGreaterThanOrEqual(a.allMagnitudesAtLeast)
    if (a.statsFinite === true)
      for (const ch of changes)
        for (const v of [
          ch.cp.pValue,
          ch.cp.magnitude,
          ch.cp.meanBefore,
          ch.cp.meanAfter,
          forwardChange(ch.cp)
        ])
          expect(Number.isFinite(v)).toBe(true)
    if (a.stableRange !== undefined) {
      const { metric, index, range } = a.stableRange
      const length = c.metrics![metric]!.length
      expect(stableRange(byMetric.get(metric)!, index, length)).toEqual(range)
    }
    if (a.changePercentShown !== undefined)
      expect(changes.map(ch => shownPercent(ch.cp))).toContain(a.changePercentShown)
    if (a.changes !== undefined)
      expect(changes.map(ch => ({ metric: ch.metric, index: ch.cp.index }))).toEqual(a.changes)
  }
}

export function checkOtavaCase(c: OtavaCase): void {
  expect(c.assertions.length).toBeGreaterThan(0)
  switch (c.kind) {
    case 'changePoints': {
      const got = changePoints(c.series!, {
        window: c.window!,
        maxP: c.maxP!,
        minMagnitude: c.minMagnitude!,
        otavaExact: true
      }).changePoints.map(x => x.index)
      for (const a of c.assertions) expect(got).toEqual(a.indexes)
      return
    }
    case 'detector': {
      const got = detectInWindow(c.series!, c.maxP!, { correct: false }).map(x => x.index)
      for (const a of c.assertions) expect(got).toEqual(a.indexes)
      return
    }
    case 'significance': {
      const s = c.series!
      const { pValue } = splitTest(s.slice(0, c.index), s.slice(c.index))
      for (const a of c.assertions) {
        // Otava's is_significant: p <= max p.
        if (a.significant !== undefined) expect(pValue <= c.maxP!).toBe(a.significant)
        if (a.pGreaterThan !== undefined) expect(pValue).toBeGreaterThan(a.pGreaterThan)
        if (a.pLessThan !== undefined) expect(pValue).toBeLessThan(a.pLessThan)
      }
      return
    }
    case 'analyzed':
      checkAnalyzed(c)
      return
  }
}
