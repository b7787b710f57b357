/** Number formats of the verdict reasons (and of the report, which shows the same figures). */
import type { Comparison } from '../../types/index.js'

const MINUS = '\u2212'

function signed(x: number, digits = 2): string {
  const s = Math.abs(x).toFixed(digits)
  if (Number(s) === 0) return (0).toFixed(digits)
  return (x < 0 ? MINUS : '+') + s
}

/** `+0.04% [−0.05, +0.12]` */
export function formatOverhead(c: Pick<Comparison, 'overhead_pct' | 'ci95'>): string {
  return `${signed(c.overhead_pct)}% [${signed(c.ci95.low)}, ${signed(c.ci95.high)}]`
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
