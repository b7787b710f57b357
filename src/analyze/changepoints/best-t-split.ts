/** The least-squares place of one step in a segment (settle in edivisive.ts), from running means: linear. */
import { f64At, numAt } from '../../util/must.js'

/** Running mean and sum of squared deviations (Welford) of series[from], series[from + step], … for k points. */
function running(
  series: readonly number[],
  from: number,
  count: number,
  step: 1 | -1
): [Float64Array, Float64Array] {
  const means = new Float64Array(count + 1)
  const m2 = new Float64Array(count + 1)
  for (let k = 1; k <= count; k++) {
    const x = numAt(series, from + step * (k - 1))
    const prev = f64At(means, k - 1)
    const delta = x - prev
    const mean = prev + delta / k
    means[k] = mean
    m2[k] = f64At(m2, k - 1) + delta * (x - mean)
  }
  return [means, m2]
}

/**
 * The split of series[start, end) with the largest |t| of splitTest (the least-squares place of one step)
 * and `minSegment` points each side; `keep` wins ties (and is returned when no split fits). Null: none fits.
 */
export function bestTSplit(
  series: readonly number[],
  start: number,
  end: number,
  minSegment: number,
  keep: number | null = null
): number | null {
  const len = end - start
  const [fm, f2] = running(series, start, len, 1)
  const [bm, b2] = running(series, end - 1, len, -1)
  const absT = (index: number): number => {
    const n1 = index - start
    const n2 = end - index
    const df = n1 + n2 - 2
    if (df <= 0) return 0
    // splitTest's pooled variance: (n − 1)·(population sd)² per side.
    const pooled = (((n1 - 1) * f64At(f2, n1)) / n1 + ((n2 - 1) * f64At(b2, n2)) / n2) / df
    const diff = Math.abs(f64At(fm, n1) - f64At(bm, n2))
    const se = Math.sqrt(pooled * (1 / n1 + 1 / n2))
    return se === 0 ? (diff === 0 ? 0 : Infinity) : diff / se
  }
  let best = keep
  let bestT = keep === null ? -1 : absT(keep)
  for (let i = start + minSegment; i <= end - minSegment; i++) {
    const t = absT(i)
    if (t > bestT * (1 + 1e-12)) {
      best = i
      bestT = t
    }
  }
  return best
}
