/**
 * Issue 28, D7, at full scale (not a timed test): does one outlying night hide a later step, and does a
 * looser max p ever find fewer steps?
 *
 *   npx tsx scripts/changepoints/outlier-step.ts [--histories N] [--out FILE.json]
 *
 * Histories as the statistics audit described them: 100 checks, normal noise CV 1% around 100, a +5% step
 * at check 50–74, and one night ×1.25 at check 12 to 3 before the step (also: after the step; a ×0.8 dip;
 * no outlier, the control). A step counts as found when a change point lies within ±2 checks of it.
 * `lost`: histories where a stricter max p found the step and a looser one did not. Seeded: the same
 * command prints the same table. Figures recorded in docs/trend.md.
 */
import { writeFileSync } from 'node:fs'
import seedrandom from 'seedrandom'
import { changePoints, type ChangePointOptions } from '../../src/analyze/changepoints/index.js'

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? fallback : Number(process.argv[i + 1])
}
const HISTORIES = arg('histories', 1000)
const outIndex = process.argv.indexOf('--out')
const OUT = outIndex < 0 ? null : process.argv[outIndex + 1]!

interface Scenario {
  name: string
  night: number | null
  where: 'before' | 'after'
}
const SCENARIOS: Scenario[] = [
  { name: 'one ×1.25 night before the step', night: 1.25, where: 'before' },
  { name: 'one ×1.25 night after the step', night: 1.25, where: 'after' },
  { name: 'one ×0.8 night before the step', night: 0.8, where: 'before' },
  { name: 'no outlier (control)', night: null, where: 'before' }
]
const MAX_PS = [1e-4, 1e-3, 1e-2]

function history(s: Scenario, i: number): { series: number[]; step: number } {
  const rng = seedrandom(`outlier-step-${s.where}-${s.night}-${i}`)
  const normal = (): number =>
    Math.sqrt(-2 * Math.log(rng() || Number.MIN_VALUE)) * Math.cos(2 * Math.PI * rng())
  const step = 50 + Math.floor(rng() * 25)
  const at =
    s.where === 'before' ? 12 + Math.floor(rng() * (step - 15)) : step + 3 + Math.floor(rng() * (96 - step))
  const series = Array.from({ length: 100 }, (_, k) => 100 * (k >= step ? 1.05 : 1) * (1 + 0.01 * normal()))
  if (s.night !== null) series[at]! *= s.night
  return { series, step }
}

const finds = (h: { series: number[]; step: number }, options: ChangePointOptions): boolean =>
  changePoints(h.series, options).changePoints.some(c => Math.abs(c.index - h.step) <= 2)

const rows: Record<string, unknown>[] = []
const started = Date.now()
for (const s of SCENARIOS) {
  const found = MAX_PS.map(() => 0)
  const otava = MAX_PS.map(() => 0)
  let lost = 0
  for (let i = 0; i < HISTORIES; i++) {
    const h = history(s, i)
    const f = MAX_PS.map(maxP => finds(h, { maxP }))
    f.forEach((x, k) => (found[k]! += x ? 1 : 0))
    if (f.some((x, k) => x && f.slice(k + 1).includes(false))) lost++
    MAX_PS.forEach(
      (maxP, k) => (otava[k]! += finds(h, { maxP, otavaExact: true, minMagnitude: 0.02 }) ? 1 : 0)
    )
  }
  rows.push({ scenario: s.name, histories: HISTORIES, max_p: MAX_PS, found, lost, otava_exact_found: otava })
  console.log(
    `${s.name.padEnd(34)} found ${found.join(' / ')} of ${HISTORIES} at max p ${MAX_PS.join(' / ')}; ` +
      `lost by loosening ${lost}; Otava exact ${otava.join(' / ')}`
  )
}
console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`)
if (OUT !== null)
  writeFileSync(OUT, JSON.stringify({ cv: 0.01, length: 100, step: 0.05, rows }, null, 2) + '\n')
