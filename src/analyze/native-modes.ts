/**
 * A regression claim that does not fire on a native slow mode the history knows (issue 52, T1). Where 15% of
 * native processes take a slow path, a check that drew none of them holds the data of a clean check 1.5% further
 * from the candidate, and no rule that reads that one check alone can tell (docs/error-rates.md). The baseline
 * store keeps the last accepted checks' native processes: a mode frequent enough to matter shows in them (5 × 12
 * processes miss a 15% mode with probability 6e-5). Where it does, the native arm's level is not its mean in this
 * check but its median (which a minority mode does not move) times the arm's mean-to-median factor κ̂, read from
 * the stored and the current processes, each check divided by its own median (scale-free, so a day-to-day
 * level change does not enter). A regression then also needs the candidate's mean above that level × (1 + max)
 * at the one-sided level; else it is inconclusive. Where the history shows no mode, nothing changes.
 */
import { median as ssMedian, mean as ssMean } from 'simple-statistics'
import jStat from 'jstat'
import type { Analysis, Comparison } from '../types/index.js'
import { findModes } from './modality.js'
import { overallVerdict } from './compare/index.js'
import { variance } from './stats/index.js'

/** Stored checks of one native series (each check's per-process values), keyed by seriesKey(workload, params, metric). */
export type NativeHistory = ReadonlyMap<string, readonly (readonly number[])[]>

/** The key of a series in a NativeHistory. */
export const historyKey = (workload: string, params: string, metric: string): string =>
  `${workload}\u0000${params}\u0000${metric}`

/** Fewest stored checks whose processes can show a mode, and fewest processes in all. */
const MIN_CHECKS = 2
const MIN_PROCESSES = 12

/** What the history says about the native arm of one series: its slow mode, if any, and κ̂'s parts. */
export interface NativeMode {
  /** Share of the stored processes in the slow group. */
  share: number
  /** Slow group's median over the main group's, as a factor (> 1 = slower for lower-is-better). */
  gap: number
  /** Stored processes, each divided by its check's median. */
  normalized: number[]
  /** Spread of the main group (relative). */
  coreSd: number
}

/** The slow mode of a stored native series (worse side, a minority), or null when the stored processes show none. */
export function nativeMode(
  checks: readonly (readonly number[])[],
  direction: 'lower' | 'higher'
): NativeMode | null {
  const usable = checks.filter(v => v.length >= 2 && v.every(x => x > 0))
  const normalized = usable.flatMap(v => {
    const m = ssMedian([...v])
    return v.map(x => x / m)
  })
  if (usable.length < MIN_CHECKS || normalized.length < MIN_PROCESSES) return null
  const modes = findModes(normalized)
  if (modes === null) return null
  const [slow, main] = direction === 'lower' ? [modes.high, modes.low] : [modes.low, modes.high]
  if (slow.length === 0 || slow.length >= main.length) return null
  const coreSd = main.length >= 2 ? Math.sqrt(variance(main)) / ssMedian(main) : 0
  return { share: slow.length / normalized.length, gap: ssMedian(slow) / ssMedian(main), normalized, coreSd }
}

/** One-sided p of "the candidate's mean is beyond the native level × (1 + max)", the level from median × κ̂. */
export function modeAwareRegressionP(c: Comparison, mode: NativeMode, maxOverheadPct: number): number {
  const nB = c.n_baseline
  const nC = c.n_candidate
  if (nB < 2 || nC < 2 || !(c.median_baseline > 0)) return 1
  // κ̂ pooled over the stored processes and this check's (its mean over its median, weighted by its count).
  const current = c.mean_baseline / c.median_baseline
  const all = [...mode.normalized, ...Array.from({ length: nB }, () => current)]
  const kappa = ssMean(all)
  const level = c.median_baseline * kappa
  // Uncertainty of the level: the median of nB processes (≈ 1.2533 σ/√n for the main mode) and κ̂'s own.
  const seMedian = (1.2533 * mode.coreSd * c.median_baseline) / Math.sqrt(nB)
  const seKappa = Math.sqrt(variance(mode.normalized) / mode.normalized.length) * c.median_baseline
  const seLevel = Math.hypot(seMedian, seKappa)
  const m = maxOverheadPct / 100
  const seCand = c.sd_candidate / Math.sqrt(nC)
  // Lower-is-better: worse = candidate mean above level × (1 + m); higher-is-better: below level / (1 + m).
  const [bound, slope] = c.direction === 'lower' ? [level * (1 + m), 1 + m] : [level / (1 + m), 1 / (1 + m)]
  const se = Math.hypot(seCand, slope * seLevel)
  if (!(se > 0))
    return (c.direction === 'lower' ? c.mean_candidate > bound : c.mean_candidate < bound) ? 0 : 1
  const t = c.direction === 'lower' ? (c.mean_candidate - bound) / se : (bound - c.mean_candidate) / se
  return 1 - jStat.studentt.cdf(t, nC - 1)
}

const fmt = (x: number): string => String(Number(x.toPrecision(3)))

/**
 * The analysis with every gated arms regression re-judged where the stored native processes of its series show a
 * slow mode: it stands only if the mode-aware test also rejects "within max-overhead" at α/2; else inconclusive,
 * with the mode named. Comparisons without such a history are returned as they are.
 */
export function guardNativeModes(
  analysis: Analysis,
  history: NativeHistory,
  opts: { maxOverheadPct: number; alpha: number }
): Analysis {
  let changed = false
  const comparisons = analysis.comparisons.map((c): Comparison => {
    if (c.verdict !== 'regression' || c.scope !== 'steady' || c.history !== undefined) return c
    const checks = history.get(historyKey(c.workload, c.params ?? '', c.metric))
    if (checks === undefined) return c
    const mode = nativeMode(checks, c.direction)
    if (mode === null) return c
    const p = modeAwareRegressionP(c, mode, opts.maxOverheadPct)
    const named =
      `The stored native processes of this series show a slow mode (${fmt(mode.share * 100)}% of ` +
      `${mode.normalized.length} processes ×${fmt(mode.gap)})`
    if (p < opts.alpha / 2) {
      changed = true
      return {
        ...c,
        reason: `${c.reason} ${named}; the candidate is beyond +${opts.maxOverheadPct}% of the native level they imply too (one-sided p=${fmt(p)}).`
      }
    }
    changed = true
    return {
      ...c,
      verdict: 'inconclusive',
      reason:
        `${c.reason.replace(/: regression\.$/, '.')} But ${named.charAt(0).toLowerCase()}${named.slice(1)}: a check that drew ` +
        `few of them reads the native arm fast. Against the native level they imply (this check's median × ` +
        `the mean-to-median factor of stored and current processes), the candidate is not shown beyond ` +
        `+${opts.maxOverheadPct}% (one-sided p=${fmt(p)} ≥ ${opts.alpha / 2}): inconclusive.`
    }
  })
  return changed ? { ...analysis, comparisons, verdict: overallVerdict(comparisons) } : analysis
}
