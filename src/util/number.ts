/**
 * The one strict number parser: config file values, CLI flags, action inputs and CSV cells all go
 * through it, so `0x10`, `1e3` runs or `Infinity` mean the same (refused) thing everywhere.
 *
 * Rules (written in README, "Numbers"):
 * - decimal digits only: no hex/octal/binary prefixes, no `_` separators, no `Infinity`/`NaN`, no empty;
 * - surrounding blanks are ignored; a leading `+`/`-` is allowed (a `min` bound refuses negatives);
 * - an integer is digits only: `5.0` and `1e3` are refused where a whole number is meant (a count of
 *   runs written as `5.0` is more likely a mistake than intent, and refusing is the safer reading);
 * - a real may have a fraction and an exponent (`0.05`, `1.5e-3`: what Python and our CSV writer emit).
 * Pure: callers turn the `expected` text into their own error naming the input (flag, file:line).
 */

const INTEGER_RE = /^[+-]?\d+$/
const REAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

export type NumberKind = 'integer' | 'real'

export interface NumberRule {
  kind: NumberKind
  /** Smallest allowed value (inclusive unless `minExclusive`). */
  min?: number
  minExclusive?: boolean
  /** Largest allowed value (inclusive). */
  max?: number
}

export type ParsedNumber = { ok: true; value: number } | { ok: false; expected: string }

/** What the rule allows, in words for an error message: "a whole number from 1 to 1000". */
export function describeRule(rule: NumberRule): string {
  const what = rule.kind === 'integer' ? 'a whole number (digits only)' : 'a decimal number'
  const lo =
    rule.min === undefined ? '' : rule.minExclusive === true ? `above ${rule.min}` : `at least ${rule.min}`
  const hi = rule.max === undefined ? '' : `at most ${rule.max}`
  const bounds = [lo, hi].filter(s => s !== '').join(' and ')
  return bounds === '' ? what : `${what} ${bounds}`
}

/** Parse `raw` under `rule`; never throws. */
export function parseNumber(raw: string, rule: NumberRule): ParsedNumber {
  const text = raw.trim()
  const re = rule.kind === 'integer' ? INTEGER_RE : REAL_RE
  const value = Number(text)
  // The words are made only for a failure: CSV cells call this once per row.
  const fail = (): ParsedNumber => ({ ok: false, expected: describeRule(rule) })
  if (!re.test(text) || !Number.isFinite(value)) return fail()
  if (rule.kind === 'integer' && !Number.isSafeInteger(value)) return fail()
  if (rule.min !== undefined && (rule.minExclusive === true ? !(value > rule.min) : !(value >= rule.min)))
    return fail()
  if (rule.max !== undefined && !(value <= rule.max)) return fail()
  // `-0` reads as 0: a sign on zero carries no meaning for a measurement or a count.
  return { ok: true, value: value === 0 ? 0 : value }
}

/** True when `raw` is a plain decimal number (any sign, fraction or exponent) and finite. */
export function isStrictReal(raw: string): boolean {
  return parseNumber(raw, { kind: 'real' }).ok
}
