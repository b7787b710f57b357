/**
 * Monte Carlo check of the rows that read slightly over their bounds at 400 simulated checks (README, "Verdict
 * error rates"): the same generators with many more checks and seeds of their own, so an excess of a few tenths
 * of a point can be told from noise (SE at 2.5% and 10,000 checks: 0.16 points; at 40,000: 0.08).
 *   npx tsx scripts/simulate-mc-check.ts   # S4/S8 and duet rows, 10,000 (duet: +20,000); tail p99 fixed 6, 8,000; S1, 40,000
 * Prints one JSON line per row.
 */
import { duet, rates, tailScale, uniform } from './lib/defect-sims.js'
import { generator } from './lib/issue39-sim.js'

const line = (o: object): void => void process.stdout.write(JSON.stringify(o) + '\n')

for (const [name, g, n] of [
  ['S4/S8 normal, fixed 12', uniform(2, 'normal'), 12],
  ['S4/S8 normal, fixed 6', uniform(2, 'normal'), 6],
  ['duet, fixed 6', duet(2, 3), 6],
  ['duet, fixed 12', duet(2, 3), 12]
] as const)
  line({ name, ...rates(g, n, 10_000, 50_000_000) })
line({ name: 'duet, fixed 6 (more seeds)', ...rates(duet(2, 3), 6, 20_000, 90_000_000) })
line({ name: 'duet, fixed 12 (more seeds)', ...rates(duet(2, 3), 12, 20_000, 95_000_000) })
line({ name: 'tail p99, fixed 6', ...rates(tailScale(2, 99), 6, 8_000, 60_000_000) })

// S1: two arms at exactly +2% against their own 5 stored checks, one report: exit 1.
const g = generator('issue-39-S1-rerun-b')
const envs = ['native', 'container']
for (const daySd of [0.0025, 0.005, 0.01, 0.02]) {
  const sims = 40_000
  let failed = 0
  for (let i = 0; i < sims; i++) {
    const store = await g.history(daySd, [1, 1, 1, 1, 1], envs)
    const r = await g.check(store, daySd, 1.02, envs, false)
    if (r.comparisons.some(c => c.verdict === 'regression')) failed++
  }
  line({ name: `S1, day-to-day sd ${daySd * 100}%`, exit_1: failed / sims, sims })
}
