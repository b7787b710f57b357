/**
 * A whole analysis: pair the series of the baseline arm with those of each candidate arm by
 * (workload, params, metric), measure every pair, then decide them as one Holm family.
 */
import type { Analysis, Comparison } from '../../types/index.js'
import { appendAll, minOf } from '../../util/arrays.js'
import { at, last } from '../../util/must.js'
import { describeModes, describeSharedLevels, findModes, sharedLevels } from '../modality.js'
import { describeFarBlocks, farBlocks } from '../far-blocks.js'
import { onGpu, tookTurns } from '../state-advice.js'
import { describeDisagreement } from './agreement.js'
import type { ArmSeries, PartialFingerprint, RawRow, RunAggregator } from '../../results/index.js'
import { aggregateRows } from '../../results/index.js'
import type { BootstrapOptions } from '../stats/index.js'
import { decide, overallVerdict, type DecideOptions } from './decide.js'
import { fingerprintDifferences } from './fingerprints.js'
import { measureComparison } from './measure.js'
import {
  isGatedTail,
  isTailMetric,
  llmTailBase,
  tailQuantile,
  valuesNeeded,
  type GateMetricSet
} from '../../config/index.js'
import { setting } from '../../util/setting-name.js'

/**
 * A tail metric's scope under gate-metrics: gated where named, shown otherwise — except in a workload that
 * would then gate nothing (a result file with only percentiles): there its tails gate as they did before.
 */
function withTailScope(
  s: ArmSeries,
  gate: GateMetricSet | undefined,
  gatesOtherwise: Set<string>
): ArmSeries {
  if (gate === undefined || !isTailMetric(s.workload, s.metric)) return s
  if (s.scope !== 'steady' && s.scope !== 'tail') return s
  const named = isGatedTail(s.workload, s.metric, gate) || !gatesOtherwise.has(s.workload)
  const scope = named ? 'steady' : 'tail'
  return scope === s.scope ? s : { ...s, scope }
}

/**
 * Where a built-in llm tail rests on too few values per process (issue 52, T3): the fewest requests (TTFT,
 * TPOT) or token gaps (ITL) behind one process's percentile in either arm, read from the per-request series
 * it is a percentile of, and the count it needs. Null where it has enough, or where that series is absent.
 */
function tailSupport(
  tail: ArmSeries,
  arms: readonly (ArmSeries | undefined)[]
): { per_process: number; needed: number } | null {
  const base = llmTailBase(tail.metric)
  const q = tailQuantile(tail.metric)
  if (tail.workload !== 'llm' || base === null || q === null) return null
  const counts = arms.flatMap(a => a?.iterations ?? [])
  if (counts.length === 0) return null
  const perProcess = minOf(counts)
  const needed = valuesNeeded(q)
  return perProcess < needed ? { per_process: perProcess, needed } : null
}

/** The workloads with a gated metric other than a tail percentile. */
function gatedBeyondTails(series: readonly ArmSeries[]): Set<string> {
  return new Set(
    series.filter(s => s.scope === 'steady' && !isTailMetric(s.workload, s.metric)).map(s => s.workload)
  )
}

/** Tells, once per workload, which tail metrics are shown and not gated, and how to gate them. */
function shownTailsNote(series: readonly ArmSeries[]): string[] {
  const byWorkload = new Map<string, Set<string>>()
  for (const s of series) {
    if (s.scope !== 'tail') continue
    let names = byWorkload.get(s.workload)
    if (names === undefined) byWorkload.set(s.workload, (names = new Set()))
    names.add(s.metric)
  }
  return [...byWorkload].map(([w, names]) => {
    const list = [...names].sort()
    return (
      `${w}: tail percentiles ${list.join(', ')} are tested and shown, not gated; ` +
      `${setting('gate-metrics', `${w}/${last(list)}`)} gates one.`
    )
  })
}

export interface AnalyzeOptions {
  baselineEnv: string
  candidateEnv: string
  maxOverheadPct: number
  alpha: number
  /** Fingerprint facts per environment; differing GPU or driver makes the arms incomparable. */
  fingerprints?: Record<string, PartialFingerprint | undefined>
  /** Bootstrap seed (e.g. the check's seed); the same seed always gives the same intervals. */
  seed?: number | string
  bootstrap?: BootstrapOptions
  /**
   * The tail metrics named in gate-metrics (config/tail-metrics.ts). When given, every tail metric's scope
   * follows it (named: `steady`, gated; else `tail`, shown); when absent, the series keep the scope recorded.
   */
  gateMetrics?: GateMetricSet
}

/** Pair series by (workload, params, metric) and measure each pair; no Holm or verdicts yet. */
export function measureSeries(
  series: readonly ArmSeries[],
  opts: AnalyzeOptions
): { comparisons: Comparison[]; notes: string[] } {
  const key = (s: ArmSeries): string => `${s.workload}\u0000${s.params}\u0000${s.metric}`
  const base = new Map<string, ArmSeries>()
  const cand = new Map<string, ArmSeries>()
  const gatesOtherwise = gatedBeyondTails(series)
  const scoped = series.map(s => withTailScope(s, opts.gateMetrics, gatesOtherwise))
  for (const s of scoped) {
    if (s.environment === opts.baselineEnv) base.set(key(s), s)
    else if (s.environment === opts.candidateEnv) cand.set(key(s), s)
  }
  const incomparable = fingerprintDifferences(
    opts.fingerprints?.[opts.baselineEnv],
    opts.fingerprints?.[opts.candidateEnv],
    'arms'
  )
  const gpu = onGpu(opts.fingerprints)
  const comparisons: Comparison[] = []
  const notes: string[] = shownTailsNote([...base.values()].filter(b => cand.has(key(b))))
  const farMetrics: Array<{ what: string; far: NonNullable<ReturnType<typeof farBlocks>>; turns: boolean }> =
    []
  for (const [k, b] of base) {
    const c = cand.get(k)
    if (c === undefined) {
      notes.push(`${b.workload}/${b.metric} was measured in ${opts.baselineEnv} only; not compared.`)
      continue
    }
    const comparison = measureComparison(b, c, {
      baselineEnv: opts.baselineEnv,
      candidateEnv: opts.candidateEnv,
      maxOverheadPct: opts.maxOverheadPct,
      alpha: opts.alpha,
      incomparable,
      bootstrap: opts.seed === undefined ? opts.bootstrap : { ...opts.bootstrap, seed: String(opts.seed) }
    })
    if (isTailMetric(b.workload, b.metric)) {
      const perRequest = (env: Map<string, ArmSeries>): ArmSeries | undefined =>
        env.get(key({ ...b, metric: llmTailBase(b.metric) ?? b.metric }))
      const support = tailSupport(b, [perRequest(base), perRequest(cand)])
      if (support !== null) comparison.tail_support = support
    }
    if (comparison.scope === 'steady') {
      const what = `${b.workload}/${b.metric}${b.params === '' ? '' : ` (${b.params})`}`
      const mb = findModes(b.values)
      const mc = findModes(c.values)
      for (const [arm, series, modes] of [
        [opts.baselineEnv, b, mb],
        [opts.candidateEnv, c, mc]
      ] as const) {
        if (modes === null) continue
        ;(comparison.multimodal_arms ??= []).push(arm)
        notes.push(describeModes(what, arm, modes, series.unit))
      }
      const shared = mb && mc ? sharedLevels(mb, mc) : null
      const turns = tookTurns(b) && tookTurns(c)
      if (shared !== null) {
        comparison.shared_levels = true
        notes.push(
          describeSharedLevels(what, [opts.baselineEnv, opts.candidateEnv], shared, b.unit, turns, gpu)
        )
      } else if (mb || mc) comparison.levels_gap_pct = 100 * Math.max(mb?.gapRel ?? 0, mc?.gapRel ?? 0)
      const far = comparison.paired ? farBlocks(comparison.paired.block_pcts, opts.maxOverheadPct) : null
      if (far !== null) {
        comparison.far_blocks = far.far.length
        farMetrics.push({ what, far, turns })
      }
      if (comparison.screened_disagrees === true) notes.push(describeDisagreement(what, comparison, gpu))
    }
    comparisons.push(comparison)
  }
  // One note for all of them: the causes and the remedy are the same for every metric.
  if (farMetrics.length > 0) notes.push(describeFarBlocks(farMetrics, gpu))
  for (const [k, c] of cand)
    if (!base.has(k))
      notes.push(`${c.workload}/${c.metric} was measured in ${opts.candidateEnv} only; not compared.`)
  steadyFirst(comparisons)
  return { comparisons, notes }
}

/** Gating (steady) comparisons first, start-up phases after; otherwise input order (stable sort). */
function steadyFirst(comparisons: Comparison[]): void {
  comparisons.sort((a, b) => Number(a.scope !== 'steady') - Number(b.scope !== 'steady'))
}

/** Holm and verdicts over the measured comparisons, and the overall verdict. */
function decidedAnalysis(
  comparisons: readonly Comparison[],
  opts: DecideOptions & { baselineEnv: string }
): Analysis {
  const decided = decide(comparisons, opts)
  return {
    comparisons: decided,
    verdict: overallVerdict(decided),
    max_overhead_pct: opts.maxOverheadPct,
    alpha: opts.alpha,
    baseline_env: opts.baselineEnv
  }
}

/** Series (one value per run) → full Analysis with Holm, verdicts and the overall verdict. */
export function analyzeSeries(series: readonly ArmSeries[], opts: AnalyzeOptions): Analysis {
  const { comparisons, notes } = measureSeries(series, opts)
  const analysis = decidedAnalysis(comparisons, opts)
  analysis.candidate_env = opts.candidateEnv
  if (notes.length > 0) analysis.notes = notes
  return analysis
}

export interface AnalyzeRecordsOptions {
  baselineEnv: string
  /** Arms compared with the baseline arm (e.g. `container`, `container#2`); one Holm family for all. */
  candidateEnvs: readonly string[]
  maxOverheadPct: number
  alpha: number
  /** Bootstrap seed (the check's seed), so a report can be reproduced exactly. */
  seed?: number | string
  bootstrap?: BootstrapOptions
  /**
   * The tail metrics named in gate-metrics (config/tail-metrics.ts). When given, every tail metric's scope
   * follows it (named: `steady`, gated; else `tail`, shown); when absent, the series keep the scope recorded.
   */
  gateMetrics?: GateMetricSet
}

/**
 * Raw rows (SampleRecords: iterations, start-up phases) → per-run means → one Analysis comparing every
 * candidate arm with the baseline arm. Fingerprints on the rows decide comparability; warm-up rows and
 * non-finite values are skipped (and the latter noted).
 */
export function analyzeRecords(rows: Iterable<RawRow>, opts: AnalyzeRecordsOptions): Analysis {
  const agg: RunAggregator = aggregateRows(rows)
  const series = agg.series()
  const comparisons: Comparison[] = []
  const notes: string[] = []
  for (const candidateEnv of opts.candidateEnvs) {
    if (candidateEnv === opts.baselineEnv) continue
    const measured = measureSeries(series, { ...opts, candidateEnv, fingerprints: agg.fingerprints })
    appendAll(comparisons, measured.comparisons)
    appendAll(notes, measured.notes)
  }
  steadyFirst(comparisons)
  const analysis = decidedAnalysis(comparisons, opts)
  if (opts.candidateEnvs.length === 1) analysis.candidate_env = at(opts.candidateEnvs, 0)
  appendAll(notes, agg.fingerprintConflicts)
  if (agg.skippedNonFinite > 0)
    notes.push(`${agg.skippedNonFinite} row(s) with a negative or non-finite value were skipped.`)
  if (notes.length > 0) analysis.notes = notes
  return analysis
}

/** Raw rows → Analysis of one candidate arm against the baseline arm (see analyzeRecords). */
export function analyzeRows(rows: Iterable<RawRow>, opts: AnalyzeOptions): Analysis {
  if (opts.fingerprints === undefined)
    return analyzeRecords(rows, { ...opts, candidateEnvs: [opts.candidateEnv] })
  const agg: RunAggregator = aggregateRows(rows)
  return analyzeSeries(agg.series(), opts)
}
