/** Number formats of the verdict reasons (and of the report, which shows the same figures). */
import type { Comparison } from '../../types/index.js'

const MINUS = '\u2212'

function signed(x: number, digits = 2): string {
  const s = Math.abs(x).toFixed(digits)
  if (Number(s) === 0) return (0).toFixed(digits)
  return (x < 0 ? MINUS : '+') + s
}

/** An interval end: two decimals (more where rounding would print −100, which no ratio reaches), or words. */
function bound(x: number): string {
  if (x === -Infinity) return 'not bounded below'
  if (x === Infinity) return 'not bounded above'
  if (Number.isNaN(x)) return 'undefined'
  let digits = 2
  while (digits < 6 && Number(x.toFixed(digits)) <= -100) digits++
  return signed(x, digits)
}

/** `+0.04% [−0.05, +0.12]`; an end the data do not bound in words, `[not bounded below, +417.00]`. */
export function formatOverhead(c: Pick<Comparison, 'overhead_pct' | 'ci95'>): string {
  return `${signed(c.overhead_pct)}% [${bound(c.ci95.low)}, ${bound(c.ci95.high)}]`
}

/** p values: 2 significant digits, scientific below 0.0001. */
export function formatP(p: number): string {
  if (p === 0) return '0'
  if (p < 1e-4) return p.toExponential(1)
  return String(Number(p.toPrecision(2)))
}

export function formatPct(x: number): string {
  return `${Number(x.toPrecision(3))}%`
}
