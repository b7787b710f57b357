/**
 * Issue 52's rows: processes that fall into modes (T1, T2) and clean data, each through the production entry
 * points (scripts/lib/defect-sims.ts: analyzeRecords, the SequentialController, and for T1 the stored native
 * history's guard, analyze/native-modes.ts), with each rate's Monte Carlo standard error. Seeded.
 *
 * Run: npx tsx scripts/simulate-modes.ts [checks=3000] [row-filter] > rows.md   (docs/error-rates.md, "Slow modes")
 */
import {
  candidateSlowPath,
  nativeSlowPath,
  rates,
  SEQUENTIAL_LABEL,
  uniform,
  type Generator,
  type Rates
} from './lib/defect-sims.js'
import { recordedCandidateMode, recordedClean, recordedNativeMode } from './lib/recorded-modes.js'

const SIMS = Number(process.argv[2] ?? 3000)
const filter = process.argv[3] === undefined ? null : new RegExp(process.argv[3])
const HISTORY = { checks: 5, n: 12 }

interface Row {
  name: string
  g: Generator
  how: 'sequential' | number | { minRuns: number; maxRuns: number }
  history?: typeof HISTORY
  bound: string
}

const rows: Row[] = [
  { name: 'T2', g: candidateSlowPath(0.3, 1.1), how: 'sequential', bound: 'equivalent ≤ 5%' },
  { name: 'T2', g: candidateSlowPath(0.3, 1.1), how: 12, bound: 'equivalent ≤ 5%' },
  {
    name: 'T2',
    g: candidateSlowPath(0.15, 1.2),
    how: 'sequential',
    bound: '— (states the share it cannot exclude)'
  },
  {
    name: 'T2, runs 23',
    g: candidateSlowPath(0.15, 1.2),
    how: { minRuns: 23, maxRuns: 24 },
    bound: 'equivalent ≤ 5%'
  },
  { name: 'T1', g: nativeSlowPath(1), how: 'sequential', history: HISTORY, bound: 'false regression ≤ 2.5%' },
  { name: 'T1', g: nativeSlowPath(2), how: 'sequential', history: HISTORY, bound: 'false regression ≤ 2.5%' },
  { name: 'T1', g: nativeSlowPath(1), how: 12, history: HISTORY, bound: 'false regression ≤ 2.5%' },
  { name: 'T1', g: nativeSlowPath(2), how: 12, history: HISTORY, bound: 'false regression ≤ 2.5%' },
  {
    name: 'T1, slow-mode host',
    g: nativeSlowPath(3),
    how: 'sequential',
    history: HISTORY,
    bound: '— (power at +3%)'
  },
  { name: 'clean', g: uniform(0, 'normal'), how: 'sequential', bound: '— (A/A: equivalent, stop)' },
  {
    name: 'clean',
    g: uniform(2, 'normal'),
    how: 'sequential',
    history: HISTORY,
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  },
  { name: 'clean', g: uniform(3, 'normal'), how: 'sequential', history: HISTORY, bound: 'flagged ≥ 95%' },
  // The former default max-runs (12), for comparison: the power at +3% fell short of 95% there (issue 52), which is
  // why the default is 16; the other bounds at 12, measured the same way.
  { name: 'clean, max-runs 12', g: uniform(0, 'normal'), how: { minRuns: 3, maxRuns: 12 }, bound: '— (A/A)' },
  {
    name: 'clean, max-runs 12',
    g: uniform(2, 'normal'),
    how: { minRuns: 3, maxRuns: 12 },
    history: HISTORY,
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  },
  {
    name: 'T2, max-runs 12',
    g: candidateSlowPath(0.3, 1.1),
    how: { minRuns: 3, maxRuns: 12 },
    bound: 'equivalent ≤ 5%'
  },
  {
    name: 'T1, max-runs 12',
    g: nativeSlowPath(2),
    how: { minRuns: 3, maxRuns: 12 },
    history: HISTORY,
    bound: 'false regression ≤ 2.5%'
  },
  {
    name: 'clean, max-runs 12',
    g: uniform(3, 'normal'),
    how: { minRuns: 3, maxRuns: 12 },
    history: HISTORY,
    bound: 'flagged ≥ 95%'
  },
  // The replay of recorded GPU samples (scripts/lib/recorded-modes.ts): the same modes on recorded H100 processes.
  { name: 'T2, replay', g: recordedCandidateMode(0.3, 1.1), how: 'sequential', bound: 'equivalent ≤ 5%' },
  {
    name: 'T1, replay',
    g: recordedNativeMode(1),
    how: 'sequential',
    history: HISTORY,
    bound: 'false regression ≤ 2.5%'
  },
  {
    name: 'T1, replay',
    g: recordedNativeMode(2),
    how: 'sequential',
    history: HISTORY,
    bound: 'false regression ≤ 2.5%'
  },
  {
    name: 'clean, replay',
    g: recordedClean(2),
    how: 'sequential',
    history: HISTORY,
    bound: 'reg ≤ 2.5%, eq ≤ 5%, coverage ≥ 94%'
  },
  { name: 'clean, replay', g: recordedClean(3), how: 'sequential', history: HISTORY, bound: 'flagged ≥ 95%' },
  {
    name: 'clean, replay, max-runs 12',
    g: recordedClean(3),
    how: { minRuns: 3, maxRuns: 12 },
    history: HISTORY,
    bound: 'flagged ≥ 95%'
  }
]

const pct = (p: number): string => `${(100 * p).toFixed(2)}%`
/** A rate with its Monte Carlo standard error (binomial). */
const withSe = (p: number, n: number): string =>
  `${pct(p)} ± ${(100 * Math.sqrt((p * (1 - p)) / n)).toFixed(2)}`
const howText = (how: Row['how']): string =>
  how === 'sequential'
    ? SEQUENTIAL_LABEL
    : typeof how === 'number'
      ? `fixed ${how}`
      : `sequential (${how.minRuns}–${how.maxRuns})`

const out: string[] = [
  `${SIMS} simulated checks per row (\`npx tsx scripts/simulate-modes.ts ${SIMS}\`); max-overhead 2%, alpha 0.05; "± x" is the Monte Carlo standard error. T1 rows and the clean +2% / +3% rows keep a history of 5 accepted checks × 12 native processes of the same generator.`,
  '',
  '| case | generator | check | bound | false regression / flagged | equivalent | CI covers the truth | runs per arm |',
  '| :-- | :-- | :-- | :-- | --: | --: | --: | --: |'
]
let seed = 520_000
for (const r of rows) {
  const s = seed
  seed += SIMS
  if (filter !== null && !filter.test(`${r.name} ${r.g.name}`)) continue
  const t0 = Date.now()
  const x: Rates = rates(r.g, r.how, SIMS, s, r.history)
  out.push(
    `| ${r.name} | ${r.g.name} | ${howText(r.how)} | ${r.bound} | ${withSe(x.regression, SIMS)} | ${withSe(x.equivalent, SIMS)} | ${Number.isNaN(x.covered) ? '–' : pct(x.covered)} | ${x.meanRuns.toFixed(2)} |`
  )
  process.stderr.write(
    `${r.name} ${r.g.name} ${howText(r.how)}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`
  )
}
process.stdout.write(out.join('\n') + '\n')
