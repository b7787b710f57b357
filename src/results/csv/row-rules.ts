/**
 * What a results row's fields may hold, and the error that locates a bad one. Values are strict
 * decimals (util/number), never negative: durations, rates and counts, and the overhead is a ratio.
 */
import { METRIC_SCOPES } from '../../types/index.js'
import { describeRule, parseNumber } from '../../util/number.js'
import { canonicalParams } from '../../util/params.js'

const VALUE_RULE = { kind: 'real', min: 0 } as const
const VALUE_ALLOWED = `${describeRule(VALUE_RULE)} (a duration, rate or count; the overhead is a ratio of them)`
const ITERATION_RULE = { kind: 'integer', min: 0 } as const
const ITERATION_ALLOWED = `${describeRule(ITERATION_RULE)} or empty`
export const SCOPES_ALLOWED = `${METRIC_SCOPES.map(x => `'${x}'`).join(', ')} or empty`
export const BETTER_ALLOWED = `'lower', 'higher' or empty`

/**
 * A bad row, located by record index (0 = header) and, when the reader knows it, its line; turned into
 * an InputError naming file, line and column.
 */
export class BadRow extends Error {
  constructor(
    readonly record: number,
    readonly line: number | null,
    readonly column: string,
    readonly value: string,
    readonly allowed: string
  ) {
    super(`record ${record}, column ${column}`)
  }
}

/** The row's value, or BadRow. */
export function parseValue(raw: string, record: number, line: number | null): number {
  const parsed = parseNumber(raw, VALUE_RULE)
  if (!parsed.ok) throw new BadRow(record, line, 'value', raw, VALUE_ALLOWED)
  return parsed.value
}

/** An iteration number is a non-negative integer or empty; anything else is BadRow. */
export function checkIteration(it: string, record: number, line: number | null): void {
  if (it !== '' && !parseNumber(it, ITERATION_RULE).ok)
    throw new BadRow(record, line, 'iteration', it, ITERATION_ALLOWED)
}

/** A checked iteration cell as a number (undefined when empty): repeated ones expose duplicated run ids. */
export function iterationOf(it: string): number | undefined {
  return it === '' ? undefined : Number(it)
}

const GPU_ALLOWED = `the index of the GPU the run's process measured on (${describeRule(ITERATION_RULE)}, as samples.csv writes it) or empty`

/** A run's GPU index (samples.csv column gpu): undefined when empty; anything but a whole number is BadRow. */
export function gpuOf(raw: string, record: number, line: number | null): number | undefined {
  const text = raw.trim()
  if (text === '') return undefined
  const parsed = parseNumber(text, ITERATION_RULE)
  if (!parsed.ok) throw new BadRow(record, line, 'gpu', raw, GPU_ALLOWED)
  return parsed.value
}

/** A required text field is non-empty. */
export function requireText(
  value: string,
  column: string,
  allowed: string,
  record: number,
  line: number | null
): void {
  if (value === '') throw new BadRow(record, line, column, value, allowed)
}

/**
 * The configuration key of a row: its params, with a power cap (samples.csv of a power-cap sweep) folded
 * in, so runs at different caps are never pooled into one series.
 */
export function paramsOf(params: string, cap: string): string {
  if (cap === '') return params
  const parsedCap = parseNumber(cap, { kind: 'real', min: 0 })
  const w = parsedCap.ok ? parsedCap.value : Number.NaN
  if (!Number.isFinite(w)) return `${params}${params ? ';' : ''}power_cap_w=${cap}`
  if (params === '') return canonicalParams({ power_cap_w: w })
  try {
    return canonicalParams({ ...(JSON.parse(params) as Record<string, unknown>), power_cap_w: w })
  } catch {
    return `${params};power_cap_w=${w}`
  }
}
