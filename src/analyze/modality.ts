/**
 * Multi-modal arms: per-run values that fall into two separated groups (e.g. LLM decode processes at either
 * 2.66 or 2.96 ms per token on some H200s). A t-test over such an arm is valid but weak, and a reader should
 * know the arm is not one population. Gap test on the sorted per-run values: split at the largest gap; the arm
 * is multi-modal when that gap is at least MIN_GAP_REL of the median AND at least GAP_TO_SPREAD times the
 * spread inside the two groups (pooled sd; groups of one value contribute none). With few runs this is a
 * screen, not a proof; the note says so by giving the numbers.
 */
import { median as ssMedian } from 'simple-statistics'
import { numAt } from '../util/must.js'
import { variance } from './stats/index.js'
import { stateAdvice } from './state-advice.js'

export const MODALITY_MIN_RUNS = 4
/** A gap smaller than 1% of the median is not a separate mode worth naming, however quiet the groups. */
export const MIN_GAP_REL = 0.01
/** Normal samples of ≤ 30 runs almost never show a gap of 8 within-group sds (checked in the tests). */
export const GAP_TO_SPREAD = 8

export interface Modes {
  /** Per-run values of the lower and upper group, in run order of the input. */
  low: number[]
  high: number[]
  gapRel: number
  /** Gap over the pooled within-group sd (Infinity when both groups have no spread). */
  gapToSpread: number
}

/** The two groups when the values split at a clear gap, else null. */
export function findModes(values: readonly number[]): Modes | null {
  if (values.length < MODALITY_MIN_RUNS) return null
  const sorted = [...values].sort((a, b) => a - b)
  const med = ssMedian(sorted)
  if (!(med > 0)) return null
  // The widest gap between neighbours (the first of equal ones): sorted[split] to sorted[split + 1].
  let split = 0
  let gap = numAt(sorted, 1) - numAt(sorted, 0)
  for (let i = 1; i < sorted.length; i++) {
    const step = numAt(sorted, i) - numAt(sorted, i - 1)
    if (step > gap) {
      split = i - 1
      gap = step
    }
  }
  const low = sorted.slice(0, split + 1)
  const high = sorted.slice(split + 1)
  const ss = (g: number[]): number => (g.length < 2 ? 0 : variance(g) * (g.length - 1))
  const df = Math.max(0, low.length - 1) + Math.max(0, high.length - 1)
  if (df === 0) return null
  const sd = Math.sqrt((ss(low) + ss(high)) / df)
  const gapRel = gap / med
  const gapToSpread = sd === 0 ? Infinity : gap / sd
  if (gapRel < MIN_GAP_REL || gapToSpread < GAP_TO_SPREAD) return null
  const cut = numAt(sorted, split)
  return { low: values.filter(v => v <= cut), high: values.filter(v => v > cut), gapRel, gapToSpread }
}

const fmt = (x: number): string => String(Number(x.toPrecision(3)))

/** One line for the report: which arm, how the runs split, how far apart. */
export function describeModes(what: string, arm: string, modes: Modes, unit: string): string {
  const centre = (g: number[]): string =>
    `${g.length} run${g.length === 1 ? '' : 's'} near ${fmt(ssMedian(g))}${unit ? ` ${unit}` : ''}`
  const ratio = Number.isFinite(modes.gapToSpread)
    ? `${fmt(modes.gapToSpread)}× the spread inside each group`
    : 'no spread inside either group'
  return (
    `${what}: the ${arm} arm is multi-modal — ${centre(modes.low)}, ${centre(modes.high)} ` +
    `(gap ${fmt(modes.gapRel * 100)}% of the median, ${ratio}). Each process lands in one mode, so more runs ` +
    `per arm or a cause removed (see docs/sequential.md) is what decides it, not longer runs.`
  )
}

/**
 * Two arms' levels count as the same when each arm's low and high group medians lie within this share of the
 * smaller gap from the other arm's. An arm shifted by a good part of the gap does not match; a smaller real
 * difference may, which is why the note claims only the levels, and the paired estimate stays the measure.
 */
export const SHARED_LEVEL_TOL = 0.25

export interface SharedLevels {
  /** Each arm's low and high group medians, in the order the arms were given. */
  a: [number, number]
  b: [number, number]
}

/** Both arms split at the same two levels: a state both arms saw over time. */
export function sharedLevels(a: Modes, b: Modes): SharedLevels | null {
  const levels = (m: Modes): [number, number] => [ssMedian(m.low), ssMedian(m.high)]
  const la = levels(a)
  const lb = levels(b)
  const tol = SHARED_LEVEL_TOL * Math.min(la[1] - la[0], lb[1] - lb[0])
  if (!(tol > 0) || Math.abs(la[0] - lb[0]) > tol || Math.abs(la[1] - lb[1]) > tol) return null
  return { a: la, b: lb }
}

/** The note for arms that share their levels: whose state it is and what decides such a metric. */
export function describeSharedLevels(
  what: string,
  arms: [string, string],
  levels: SharedLevels,
  unit: string,
  turns: boolean,
  gpu: boolean
): string {
  const u = unit ? ` ${unit}` : ''
  const at = (l: [number, number]): string => `${fmt(l[0])} and ${fmt(l[1])}${u}`
  return (
    `${what}: both arms sit at the same two levels (${arms[0]} ${at(levels.a)}, ${arms[1]} ${at(levels.b)}): ` +
    `a state of ${gpu ? 'the GPU or ' : ''}the host over time that both arms saw. What the image adds is measured within ` +
    `blocks (the paired estimate); a block whose two processes fell in different levels is what needs more ` +
    `runs. ${stateAdvice(turns, gpu)}`
  )
}
