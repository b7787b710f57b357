/**
 * Nightly series whose noise is serially correlated (issue 52, T7): AR(1) with lag-1 correlation ρ and a
 * marginal sd of `cv` around 100 (slow host states that neighbouring checks share), optionally with one step of
 * `step` half way. Used by scripts/lib/issue52-tails-sim.ts and test/analyze/issue52-tails.test.ts to measure the
 * bound docs/trend.md states (change points do not correct for ρ: a lag-1 correction was tried and withdrawn).
 */
import seedrandom from 'seedrandom'

const normal = (rng: () => number): number =>
  Math.sqrt(-2 * Math.log(rng() || Number.MIN_VALUE)) * Math.cos(2 * Math.PI * rng())

export function ar1Series(
  seed: string,
  rho: number,
  opts: { length?: number; cv?: number; step?: number } = {}
) {
  const length = opts.length ?? 100
  const cv = opts.cv ?? 0.01
  const rng = seedrandom(seed)
  let e = normal(rng)
  return Array.from({ length }, (_, i) => {
    if (i > 0) e = rho * e + Math.sqrt(1 - rho * rho) * normal(rng)
    return 100 * (1 + (i >= length / 2 ? (opts.step ?? 0) : 0)) * (1 + cv * e)
  })
}
