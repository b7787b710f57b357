/**
 * Issue 28, D1: false regressions with several gated metrics, each truly AT the threshold (+2%), in a
 * fixed-count check (12 runs per arm, normal per-run values at CV 0.5%, the production measureComparison +
 * decide, one Holm family). "Before" is the rule that declared a regression from the unadjusted 95% CI
 * (significant after Holm and the CI's lower end above the limit); "now" adds the Holm-adjusted one-sided
 * claim. Not a timed test. Run: npx tsx scripts/simulate-multiplicity.ts [sims=1000] (KS=1,2,4,8 picks the rows)
 */
import { decide, measureComparison } from '../src/analyze/compare/index.js'
import type { ArmSeries } from '../src/results/run-values/index.js'
import { seededRandom } from '../src/plan/schedule.js'

const SIMS = Number(process.argv[2] ?? 1000)
const N = 12
const CV = 0.005
const MAX = 2
const ALPHA = 0.05
const rand = seededRandom(28)

function normal(): number {
  const u = Math.max(rand(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand())
}

function series(env: string, metric: string, values: number[]): ArmSeries {
  return {
    workload: 'sim',
    params: '',
    metric,
    environment: env,
    unit: 'ms',
    better: 'lower',
    scope: 'steady',
    runs: values.map((_, i) => String(i + 1)),
    values,
    iterations: values.map(() => 1)
  }
}

const opts = { baselineEnv: 'native', candidateEnv: 'container', maxOverheadPct: MAX, alpha: ALPHA }
const rows = [
  '| gated metrics, each at +2% (the threshold) | any false regression, unadjusted CI (before) | any false regression, Holm-adjusted claim (now) |',
  '| --: | --: | --: |'
]
for (const k of (process.env.KS ?? '1,2,4,8').split(',').map(Number)) {
  let before = 0
  let now = 0
  for (let s = 0; s < SIMS; s++) {
    const measured = Array.from({ length: k }, (_, m) => {
      const b = Array.from({ length: N }, () => 100 * (1 + CV * normal()))
      const c = Array.from({ length: N }, () => 102 * (1 + CV * normal()))
      return measureComparison(series('native', `m${m}`, b), series('container', `m${m}`, c), {
        ...opts,
        bootstrap: { resamples: 500, seed: String(s) }
      })
    })
    const decided = decide(measured, { alpha: ALPHA, maxOverheadPct: MAX })
    if (decided.some(c => c.p_adjusted < ALPHA && c.ci95.low > MAX)) before++
    if (decided.some(c => c.verdict === 'regression')) now++
  }
  rows.push(`| ${k} | ${((100 * before) / SIMS).toFixed(1)}% | ${((100 * now) / SIMS).toFixed(1)}% |`)
  process.stderr.write(`${k} metrics done\n`)
}
process.stdout.write(
  `${SIMS} simulated fixed-count checks per row, ${N} runs per arm, normal per-run values at CV ${CV * 100}%, max-overhead ${MAX}%, alpha ${ALPHA}:\n\n${rows.join('\n')}\n`
)
