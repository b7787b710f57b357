/**
 * False change points in pure noise and detection of planted steps, at full scale (not a timed test).
 *
 *   npx tsx scripts/changepoints/noise-calibration.ts [--series N] [--length L] [--out FILE.json]
 *
 * For each noise model (normal, Laplace; CV 1% around 100) and each detector setting, counts the noise
 * series that get any change point; then the share of series with one planted step (1–5%, half way)
 * found within ±2 points of where it was planted. Seeded: the same command prints the same table.
 * Figures recorded in docs/trend.md.
 */
import { writeFileSync } from 'node:fs'
import seedrandom from 'seedrandom'
import { changePoints, type ChangePointOptions } from '../../src/analyze/changepoints/index.js'

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i < 0 ? fallback : Number(process.argv[i + 1])
}
const SERIES = arg('series', 10_000)
const LENGTH = arg('length', 100)
const outIndex = process.argv.indexOf('--out')
const OUT = outIndex < 0 ? null : process.argv[outIndex + 1]!

type Gen = (rng: () => number) => number
const normal: Gen = rng => Math.sqrt(-2 * Math.log(rng() || Number.MIN_VALUE)) * Math.cos(2 * Math.PI * rng())
const laplace: Gen = rng => {
  const u = rng() - 0.5
  return (-Math.sign(u) * Math.log(1 - 2 * Math.abs(u))) / Math.SQRT2 // unit sd
}
const MODELS: [string, Gen][] = [
  ['normal', normal],
  ['laplace', laplace]
]
const SETTINGS: [string, ChangePointOptions][] = [
  ['defaults (p 0.001, 2%, corrected)', {}],
  ['p 0.001 alone (min magnitude 0)', { minMagnitude: 0 }],
  ['Otava exact, p 0.001, 2%', { otavaExact: true, minMagnitude: 0.02 }],
  ['Otava exact, p 0.001 alone', { otavaExact: true, minMagnitude: 0 }]
]
const CV = 0.01
const STEPS = [0.01, 0.02, 0.03, 0.05]

function series(gen: Gen, seed: string, step = 0): number[] {
  const rng = seedrandom(seed)
  return Array.from(
    { length: LENGTH },
    (_, i) => 100 * (1 + (i >= LENGTH / 2 ? step : 0)) * (1 + CV * gen(rng))
  )
}

const rows: Record<string, unknown>[] = []
const started = Date.now()
for (const [model, gen] of MODELS)
  for (const [setting, options] of SETTINGS) {
    let withAny = 0
    let points = 0
    for (let i = 0; i < SERIES; i++) {
      const n = changePoints(series(gen, `${model}-${i}`), options).changePoints.length
      points += n
      if (n > 0) withAny++
    }
    rows.push({ kind: 'noise', model, setting, series: SERIES, length: LENGTH, withAny, points })
    console.log(
      `noise ${model.padEnd(7)} ${setting.padEnd(36)} ${withAny}/${SERIES} series (${points} points)`
    )
  }
const POWER_SERIES = Math.min(SERIES, 1000)
for (const step of STEPS)
  for (const [setting, options] of SETTINGS.slice(0, 3)) {
    let found = 0
    for (let i = 0; i < POWER_SERIES; i++) {
      const cps = changePoints(series(normal, `step-${step}-${i}`, step), options).changePoints
      if (cps.some(c => Math.abs(c.index - LENGTH / 2) <= 2)) found++
    }
    rows.push({ kind: 'step', step, setting, series: POWER_SERIES, length: LENGTH, found })
    console.log(
      `step ${(step * 100).toFixed(0)}% (CV 1%) ${setting.padEnd(36)} found ${found}/${POWER_SERIES}`
    )
  }
console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`)
if (OUT !== null) writeFileSync(OUT, JSON.stringify({ cv: CV, rows }, null, 2) + '\n')
