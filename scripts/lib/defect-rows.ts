/**
 * Issue 39's rows of scripts/simulate-verdicts.ts (and issue 38's duet offsets): one generator per defect
 * (scripts/lib/defect-sims.ts), each through a fixed-count check (`analyze`) and a sequential one (`run`).
 */
import {
  duet,
  multiMetric,
  nativeSlowPath,
  rates,
  requestTail,
  requestTailGated,
  SEQUENTIAL_LABEL,
  tailScale,
  uniform,
  type Generator
} from './defect-sims.js'

interface Row {
  defect: string
  generator: Generator
  how: 'sequential' | number
  /** What the row must show (issue 39, "Done when"). */
  bound: string
}

export const DEFECT_ROWS: Row[] = [
  { defect: 'S2', generator: nativeSlowPath(1), how: 12, bound: 'false regression ≤ 2.5%' },
  { defect: 'S2', generator: nativeSlowPath(1), how: 'sequential', bound: 'false regression ≤ 2.5%' },
  // What an S2 check is when it drew no slow native process (0.85^n of them): power, not a bound.
  { defect: 'S2 floor', generator: uniform(2.5, 'normal'), how: 12, bound: '— (power at +2.5%)' },
  { defect: 'S2 floor', generator: uniform(2.5, 'normal'), how: 'sequential', bound: '— (power at +2.5%)' },
  { defect: 'S5', generator: requestTail(0.1, 1.3), how: 12, bound: 'equivalent ≤ 5%' },
  { defect: 'S5', generator: requestTail(0.1, 1.3), how: 'sequential', bound: 'equivalent ≤ 5%' },
  { defect: 'S5', generator: requestTail(0.3, 1.1), how: 'sequential', bound: 'equivalent ≤ 5%' },
  // The same slowdown with the per-process p99 / p90 named in gate-metrics (beside the gated request mean).
  {
    defect: 'S5, gate-metrics',
    generator: requestTailGated(0.1, 1.3, 99),
    how: 12,
    bound: 'equivalent ≤ 5%'
  },
  {
    defect: 'S5, gate-metrics',
    generator: requestTailGated(0.1, 1.3, 99),
    how: 'sequential',
    bound: 'equivalent ≤ 5%'
  },
  {
    defect: 'S5, gate-metrics',
    generator: requestTailGated(0.1, 1.3, 90),
    how: 12,
    bound: 'equivalent ≤ 5%'
  },
  // Tail metrics at the threshold, gated through gate-metrics: the log-ratio paired t on per-process percentiles.
  { defect: 'tail', generator: tailScale(2, 99), how: 12, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  { defect: 'tail', generator: tailScale(2, 90), how: 12, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  { defect: 'tail', generator: tailScale(2, 99), how: 6, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  {
    defect: 'tail',
    generator: tailScale(2, 99),
    how: 'sequential',
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  },
  {
    defect: 'tail',
    generator: tailScale(2, 90),
    how: 'sequential',
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  },
  { defect: 'S4/S8', generator: uniform(2, 'normal'), how: 6, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  { defect: 'S4/S8', generator: uniform(2, 't3'), how: 6, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  { defect: 'S4/S8', generator: uniform(2, 'normal'), how: 12, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  { defect: 'S4/S8', generator: multiMetric(2, 2, 8), how: 12, bound: 'reg ≤ 2.5%' },
  { defect: 'S4/S8', generator: multiMetric(2, 0, 8), how: 12, bound: 'eq ≤ 5%' },
  {
    defect: 'S4/S8, S9',
    generator: uniform(2, 'normal'),
    how: 'sequential',
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  },
  { defect: 'S9', generator: uniform(2, 't3'), how: 'sequential', bound: 'coverage ≥ 94%' },
  { defect: 'issue 38', generator: duet(2, 3), how: 6, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  { defect: 'issue 38', generator: duet(2, 3), how: 12, bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%' },
  {
    defect: 'issue 38',
    generator: duet(2, 3),
    how: 'sequential',
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  }
]

const pct = (x: number): string => (Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)}%`)

/** The markdown table and the JSON rows; `progress` is told each row as it ends. */
export function defectTable(
  sims: number,
  progress: (line: string) => void
): { md: string[]; json: unknown[] } {
  const md = [
    '| defect | generator | check | bound | false regression | equivalent | CI covers the truth | runs per arm |',
    '| :-- | :-- | :-- | :-- | --: | --: | --: | --: |'
  ]
  const json: unknown[] = []
  DEFECT_ROWS.forEach((row, i) => {
    const r = rates(row.generator, row.how, sims, 1 + i * 100_000)
    const how = row.how === 'sequential' ? SEQUENTIAL_LABEL : `fixed ${row.how}`
    md.push(
      `| ${row.defect} | ${row.generator.name.replace(/^[^:]+: /, '')} | ${how} | ${row.bound} | ${pct(r.regression)} | ${pct(r.equivalent)} | ${pct(r.covered)} | ${r.meanRuns.toFixed(2)} |`
    )
    json.push({
      defect: row.defect,
      generator: row.generator.name,
      check: how,
      truth_pct: row.generator.truthPct,
      ...r
    })
    progress(`${row.generator.name}, ${how} done`)
  })
  return { md, json }
}
