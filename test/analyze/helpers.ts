import type { ArmSeries } from '../../src/results/run-values/index.js'

export function series(
  environment: string,
  metric: string,
  values: number[],
  options: Partial<Pick<ArmSeries, 'unit' | 'workload' | 'scope' | 'params'>> = {}
): ArmSeries {
  return {
    workload: options.workload ?? 'matmul',
    params: options.params ?? '',
    metric,
    environment,
    unit: options.unit ?? 'ms',
    scope: options.scope ?? 'steady',
    runs: values.map((_, i) => String(i + 1)),
    values,
    iterations: values.map(() => 1)
  }
}

/** Deterministic pseudo-normal noise (Box–Muller on a small LCG) for test data. */
export function noise(seed: number, n: number, mean: number, sd: number): number[] {
  let s = seed >>> 0 || 1
  const u = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return (s + 1) / 4294967297
  }
  return Array.from(
    { length: n },
    () => mean + sd * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())
  )
}

/** Every number anywhere in `value` is finite (what JSON.stringify would otherwise turn into null). */
export function nonFiniteNumbers(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path]
  if (Array.isArray(value)) return value.flatMap((v, i) => nonFiniteNumbers(v, `${path}[${i}]`))
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => nonFiniteNumbers(v, `${path}.${k}`))
  return []
}
