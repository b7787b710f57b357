/**
 * Array helpers that stay safe for any length: spreading a large array into a call
 * (`push(...a)`, `Math.max(...a)`) passes every element as an argument and overflows the stack at about
 * 10^5 elements (a long workload prints more samples than that). ESLint forbids the spread forms in src/.
 */

/** Appends every element of `items` to `target` (in place); returns target. */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (const x of items) target.push(x)
  return target
}

/** Largest value (-Infinity when empty), like Math.max(...values) without the argument limit. */
export function maxOf(values: readonly number[]): number {
  let m = -Infinity
  for (const v of values) if (v > m || Number.isNaN(v)) m = Number.isNaN(v) ? NaN : v
  return m
}

/** Smallest value (Infinity when empty), like Math.min(...values) without the argument limit. */
export function minOf(values: readonly number[]): number {
  let m = Infinity
  for (const v of values) if (v < m || Number.isNaN(v)) m = Number.isNaN(v) ? NaN : v
  return m
}
