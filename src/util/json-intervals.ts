/**
 * Intervals in JSON. An overhead interval's end that the data do not bound is ±Infinity in memory, which
 * JSON.stringify writes as `null` — read by a consumer as "none" (issue 51). Every JSON the tool writes goes
 * through `toJson`, which writes such an end as the string "unbounded" and adds `bounded: false` with a reason
 * in words; `intervalReviver` reads it back (aggregate reads summary.json).
 */

/** What an unbounded end is written as. */
export const UNBOUNDED = 'unbounded'

type Holder = Record<string, unknown>

const isInterval = (v: unknown): v is { low: number; high: number } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Holder).low === 'number' &&
  typeof (v as Holder).high === 'number' &&
  Object.keys(v).every(k => k === 'low' || k === 'high')

/** Why an interval has an end the data do not bound, and what would bound it; `runsNeeded` when known. */
export function unboundedReason(
  ci: { low: number; high: number },
  runsNeeded?: number | null
): string | null {
  const below = ci.low === -Infinity
  const above = ci.high === Infinity
  if (!below && !above) return null
  const side = below && above ? 'on either side' : below ? 'from below' : 'from above'
  const more =
    typeof runsNeeded === 'number' && runsNeeded > 0
      ? `more runs would: ~${runsNeeded} per arm`
      : 'more runs (or a steadier metric) would'
  return (
    `these runs do not bound the overhead ${side}: the ratio's ${below && !above ? 'numerator' : 'denominator'} ` +
    `is not clearly above zero at this spread, so no number can be given there; ${more}`
  )
}

/** JSON.stringify's replacer for intervals with an unbounded end; every other value as it is. */
function replacer(this: unknown, key: string, value: unknown): unknown {
  if (!isInterval(value)) return value
  const { low, high } = value
  if (Number.isFinite(low) && Number.isFinite(high)) return value
  if (Number.isNaN(low) || Number.isNaN(high)) return value
  const holder = this as Holder | null
  const runs = holder && typeof holder.runs_needed === 'number' ? holder.runs_needed : null
  return {
    low: Number.isFinite(low) ? low : UNBOUNDED,
    high: Number.isFinite(high) ? high : UNBOUNDED,
    bounded: false,
    reason: unboundedReason(value, key === 'ci95' ? runs : null)
  }
}

/** Pretty JSON with a final newline, intervals' unbounded ends written in words (never `null`). */
export function toJson(value: unknown, indent: number | undefined = 2): string {
  return `${JSON.stringify(value, replacer, indent)}\n`
}

/** JSON.parse's reviver that gives an interval's "unbounded" ends back as ±Infinity. */
export function intervalReviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const v = value as Holder
  if (v.bounded !== false || !('low' in v) || !('high' in v)) return value
  if (v.low !== UNBOUNDED && v.high !== UNBOUNDED) return value
  return {
    low: v.low === UNBOUNDED ? -Infinity : v.low,
    high: v.high === UNBOUNDED ? Infinity : v.high
  }
}
