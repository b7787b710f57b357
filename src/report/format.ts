/** Number, unit and text formatting for the report. Pure; no I/O. */
import { maxOf } from '../util/arrays.js'
import { redact } from '../util/secrets.js'
import { isSecretName } from '../util/secret-names.js'
import { mdCode, mdText } from '../util/text.js'
import type { Comparison, Direction, MetricScope } from '../types/index.js'
import { own } from '../util/own.js'

const DASH = '–'

/** 3 significant digits below 1000; whole numbers with thousands separators above. */
export function fmtNum(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH
  if (x === 0) return '0'
  const abs = Math.abs(x)
  if (abs >= 1000) return Math.round(x).toLocaleString('en-US')
  if (abs < 1e-4) return x.toExponential(2)
  return x.toPrecision(3)
}

/** A configured number (a limit, alpha) as written: 2 not 2.00, 0.05 not 0.0500. */
export function fmtPlain(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(3))) : DASH
}

/** Decimals for a percentage of this magnitude: +0.02%, +3.10%, +12.3%, +250%. */
function pctDecimals(magnitude: number): number {
  if (magnitude >= 100) return 0
  if (magnitude >= 10) return 1
  return 2
}

function signed(x: number, decimals: number): string {
  const s = x.toFixed(decimals)
  // -0.00 reads as a sign error; show it as 0 with a plus like every other non-negative value.
  if (Number(s) === 0) return `+${(0).toFixed(decimals)}`
  return x > 0 ? `+${s}` : s
}

/** Signed percentage, e.g. `+3.10%`. */
export function fmtPct(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH
  return `${signed(x, pctDecimals(Math.abs(x)))}%`
}

/** From +900% on, a percentage reads better as a factor: `320×`, not `+31,900%`. */
const FACTOR_FROM = 10

/** `320×`; for ratios of at least 10. */
function fmtFactor(ratio: number): string {
  return Number.isFinite(ratio) && ratio > 0 ? `${fmtNum(ratio)}×` : '?'
}

/**
 * A ratio (candidate / baseline) as a relative change: `+4.75%`, or `320×` from ten times on.
 * `–` when the ratio is undefined (a zero or negative baseline).
 */
export function fmtRatio(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio) || ratio < 0) return DASH
  return ratio >= FACTOR_FROM ? fmtFactor(ratio) : fmtPct((ratio - 1) * 100)
}

/** The words for an end of an overhead interval that the data do not bound (analyze: ±Infinity). */
export const NOT_BOUNDED_BELOW = 'not bounded below'
export const NOT_BOUNDED_ABOVE = 'not bounded above'

/** An end that is no number, in words; null for a number. */
function boundWords(v: number): string | null {
  if (v === -Infinity) return NOT_BOUNDED_BELOW
  if (v === Infinity) return NOT_BOUNDED_ABOVE
  return Number.isNaN(v) ? 'undefined' : null
}

/** An interval end at `d` decimals, with more where rounding would print −100 (no ratio reaches it). */
function signedBound(v: number, d: number): string {
  let digits = d
  while (digits < 6 && Number(v.toFixed(digits)) <= -100) digits++
  return signed(v, digits)
}

/**
 * Signed percentage with its CI at the same precision, e.g. `+3.10% [+2.60, +3.50]`; from +900% on
 * as factors, e.g. `320× [154×, 441×]`. An end the data do not bound reads in words (`[not bounded below,
 * +417]`), never `?` or `Infinity` (issue 51); every finite end prints above −100.
 */
export function fmtPctCi(x: number, ci: { low: number; high: number }): string {
  if (!Number.isFinite(x)) return DASH
  if (1 + x / 100 >= FACTOR_FROM) {
    const bound = (v: number): string => boundWords(v) ?? fmtFactor(1 + v / 100)
    return `${fmtFactor(1 + x / 100)} [${bound(ci.low)}, ${bound(ci.high)}]`
  }
  const finite = [x, ci.low, ci.high].filter(Number.isFinite).map(Math.abs)
  const d = pctDecimals(maxOf(finite))
  const lo = boundWords(ci.low) ?? signedBound(ci.low, d)
  const hi = boundWords(ci.high) ?? signedBound(ci.high, d)
  return `${signed(x, d)}% [${lo}, ${hi}]`
}

/** p-values: `<0.001` below that, else 3 significant digits without trailing zeros. */
export function fmtP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return DASH
  if (p < 0.001) return '<0.001'
  return String(Number(p.toPrecision(3)))
}

const TIME_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1 }

/** Seconds in the most readable of s / ms / µs / ns. */
function fmtSeconds(seconds: number): string {
  const abs = Math.abs(seconds)
  if (abs >= 1 || abs === 0) return `${fmtNum(seconds)} s`
  if (abs >= 1e-3) return `${fmtNum(seconds * 1e3)} ms`
  if (abs >= 1e-6) return `${fmtNum(seconds * 1e6)} µs`
  return `${fmtNum(seconds * 1e9)} ns`
}

/** A value with its unit; durations are rescaled so the number stays between 1 and 1000. */
export function fmtValue(x: number | null | undefined, unit: string): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH
  const scale = own(TIME_UNITS, unit)
  if (scale !== undefined) return fmtSeconds(x * scale)
  if (unit === '%') return `${fmtNum(x)}%`
  // A unit is the workload's or a result file's text: through the one sanitiser like every name shown.
  return unit ? `${fmtNum(x)} ${mdText(unit, 40)}` : fmtNum(x)
}

/** A signed difference with its unit, e.g. `+216 ms`. */
export function fmtDelta(x: number | null | undefined, unit: string): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH
  const body = fmtValue(Math.abs(x), unit)
  return x < 0 ? `-${body}` : `+${body}`
}

/** Enough digits for chart data, where 3 significant digits would flatten a 0.06% spread. */
export function chartNum(x: number): string {
  return String(Number(x.toPrecision(6)))
}

/**
 * Untrusted text in the report, through the one sanitiser (util/text.ts): `cell` and `inline` as inert
 * markdown prose (safe in a table cell), `code` as a code span. Secrets are masked by each.
 */
export const cell = (text: string): string => mdText(text)
export const inline = cell
export const code = (text: string): string => mdCode(text)

/** Masks secrets and token shapes (util/secrets.ts); `extra` are known secret values. */
export { redact }

/** Keys of workload parameters that are never printed: the one secret-name rule (util/secret-names.ts). */
export const isSecretKey = isSecretName

/** How each scope is named next to a verdict that does not gate. */
export const SCOPE_WORD: Record<MetricScope, string> = {
  steady: 'gated',
  startup: 'start-up',
  info: 'info',
  derived: 'derived, shown not tested',
  tail: 'tail, shown (gate-metrics gates it)'
}

/** ↓ lower is better, ↑ higher is better: shown next to every metric so the direction is never implicit. */
export function directionArrow(direction: Direction): string {
  return direction === 'lower' ? '↓' : '↑'
}

/** `kernel_ms ↓` */
export function metricLabel(c: Pick<Comparison, 'metric' | 'direction'>): string {
  return `${c.metric} ${directionArrow(c.direction)}`
}

/**
 * The overhead with its CI, or `–` (one way, everywhere) when no ratio exists: a zero or negative
 * baseline mean, or too few runs.
 */
export function fmtOverheadCi(
  c: Pick<Comparison, 'overhead_pct' | 'ci95' | 'undefined_stats' | 'ci_method' | 'history'>
): string {
  if ((c.undefined_stats ?? []).includes('overhead_pct')) return DASH
  // Paired: the within-block estimate, not the ratio of the two means beside it (see Definitions).
  return `${fmtPctCi(c.overhead_pct, c.ci95)}${c.ci_method === 'paired' ? ' paired' : c.ci_method === undefined || c.history !== undefined ? '' : ' two-sample'}`
}

/** A utilisation percentage, or a dash when none was measured. */
export function fmtUtil(pct: number | null): string {
  return pct === null || !Number.isFinite(pct) ? DASH : `${pct.toFixed(1)}%`
}

/** How a comparison's verdict reads in a table (a regression stands out). */
export const VERDICT_WORDS: Record<Comparison['verdict'], string> = {
  regression: '**regression**',
  improvement: 'improvement',
  equivalent: 'equivalent',
  inconclusive: 'inconclusive',
  incomparable: 'incomparable'
}
