/**
 * Compare a candidate arm with a baseline arm, metric by metric, and decide verdicts.
 *
 * overhead = candidate/baseline − 1 for lower-is-better metrics (time, latency) and baseline/candidate − 1
 * for higher-is-better ones (throughput), so a positive overhead always means the candidate is worse.
 * The steps are separate so other callers (the baseline store, main.ts) can reuse them:
 *   measureComparison — every statistic of one pair of per-run series (p_adjusted = unadjusted p);
 *   decide            — Holm across the gating comparisons, then verdict and reason per comparison;
 *   overallVerdict    — one verdict for the report.
 */
import type { Analysis, Comparison, Direction, MetricScope, MetricVerdict } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { knownMetric } from './known-metrics.js'
import type { ArmSeries, PartialFingerprint, RawRow, RunAggregator } from './run-values.js'
import { describeModes, findModes } from './modality.js'
import { aggregateRows, isStartupMetric } from './run-values.js'
import type { BootstrapOptions, Interval } from './stats/index.js'
import {
  describe,
  holm,
  mannWhitneyU,
  minimumDetectableEffect,
  outliers,
  ratioIntervals,
  runsNeeded,
  tost,
  welchTTest
} from './stats/index.js'
import { appendAll } from '../util/arrays.js'

// ---- direction ----

/** Time units: a duration is lower-is-better, the one direction a unit states by itself. */
const TIME_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'sec', 'seconds', 'min'])

/** How to declare a direction, for the error that refuses an undeclared one. */
export const DECLARE_DIRECTION =
  'a declared direction: a \'better\' column (lower|higher) in the CSV, or "better" on each workload sample; ' +
  'only time units (ms, s, us, ns) imply lower'

/**
 * Which way is better for a metric: as declared (`better` on the samples or the CSV), else lower for a
 * time unit. Never guessed from the metric's name: anything else is refused with a named error, so a
 * throughput is never silently treated as a time.
 */
export function metricDirection(
  series: Pick<ArmSeries, 'workload' | 'metric' | 'unit' | 'better'>,
  other?: Pick<ArmSeries, 'better'>
): { direction: Direction; source: 'declared' | 'unit' } {
  const declared = series.better ?? other?.better
  if (other?.better !== undefined && series.better !== undefined && other.better !== series.better)
    throw new InputError(
      `better (${series.workload}/${series.metric})`,
      `${other.better} and ${series.better}`,
      'one direction for both arms'
    )
  if (declared !== undefined) return { direction: declared, source: 'declared' }
  const known = knownMetric(series.workload, series.metric)
  if (known !== undefined) return { direction: known.better, source: 'declared' }
  if (TIME_UNITS.has(series.unit.trim().toLowerCase())) return { direction: 'lower', source: 'unit' }
  throw new InputError(
    `better (${series.workload}/${series.metric}, unit '${series.unit}')`,
    '',
    DECLARE_DIRECTION
  )
}

// ---- fingerprints ----

/** `arms`: native vs container of one check. `baseline`: this run vs the stored baseline of the same arm. */
export type FingerprintMode = 'arms' | 'baseline'

const FIELDS_BY_MODE: Record<FingerprintMode, (keyof PartialFingerprint)[]> = {
  arms: ['device', 'gpu_name', 'gpu_uuid', 'driver'],
  baseline: ['device', 'gpu_name', 'gpu_uuid', 'driver', 'image_digest', 'gpu_access', 'stack']
}

/** Fields that differ between two fingerprints; unknown (null/absent) values never count as different. */
export function fingerprintDifferences(
  base: PartialFingerprint | undefined,
  cand: PartialFingerprint | undefined,
  mode: FingerprintMode
): string[] {
  if (base === undefined || cand === undefined) return []
  const out: string[] = []
  for (const field of FIELDS_BY_MODE[mode]) {
    const a = base[field]
    const b = cand[field]
    if (a === undefined || a === null || a === '' || b === undefined || b === null || b === '') continue
    if (a !== b) out.push(`${field}: ${a} vs ${b}`)
  }
  return out
}

// ---- formatting (reasons) ----

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

function formatPct(x: number): string {
  return `${Number(x.toPrecision(3))}%`
}

// ---- one comparison ----

export interface MeasureOptions {
  baselineEnv: string
  candidateEnv: string
  maxOverheadPct: number
  alpha: number
  /** Fingerprint differences that make the pair incomparable (from fingerprintDifferences). */
  incomparable?: string[]
  bootstrap?: BootstrapOptions
}

/**
 * Percentile-bootstrap resamples: 10,000 for the usual 5–15 runs per arm, fewer (≥ 2,000) for many runs so
 * one comparison costs at most ~3·10^5 draws. With many runs the bootstrap and t-delta intervals agree
 * and the wider of the two is reported anyway, so the extra Monte Carlo error does not matter.
 */
export function resamplesFor(n: number): number {
  return Math.max(2000, Math.min(10_000, Math.floor(3e5 / Math.max(1, n))))
}

/** Map a ratio interval (candidate/baseline) to an overhead interval in percent, natural direction. */
function ratioToOverhead(r: Interval, direction: Direction): Interval {
  return direction === 'lower'
    ? { low: (r.low - 1) * 100, high: (r.high - 1) * 100 }
    : { low: (1 / r.high - 1) * 100, high: (1 / r.low - 1) * 100 }
}

const finiteInterval = (i: Interval): boolean => Number.isFinite(i.low) && Number.isFinite(i.high)

/**
 * The wider of the percentile-bootstrap and t-delta intervals: the percentile bootstrap under-covers at
 * the 5–10 runs per arm we usually have, so the gate must never rely on it alone.
 */
function widerInterval(
  boot: Interval,
  tDelta: Interval,
  point: number
): { ci: Interval; method: 'bootstrap' | 't-delta' } {
  const bootOk = finiteInterval(boot)
  const tOk = finiteInterval(tDelta)
  if (bootOk && tOk)
    return tDelta.high - tDelta.low > boot.high - boot.low
      ? { ci: tDelta, method: 't-delta' }
      : { ci: boot, method: 'bootstrap' }
  if (tOk) return { ci: tDelta, method: 't-delta' }
  if (bootOk) return { ci: boot, method: 'bootstrap' }
  return { ci: { low: point, high: point }, method: 'bootstrap' }
}

/**
 * Bounds on mean(candidate) − mean(baseline) that correspond exactly to overhead ∈ (−m, +m) in the
 * metric's natural direction: ±m·b for lower-is-better; b/(1+m) − b … b/(1−m) − b for higher-is-better.
 */
export function equivalenceBounds(meanBase: number, marginPct: number, direction: Direction): Interval {
  const m = marginPct / 100
  if (direction === 'lower') return { low: -m * meanBase, high: m * meanBase }
  return { low: meanBase / (1 + m) - meanBase, high: m >= 1 ? Infinity : meanBase / (1 - m) - meanBase }
}

/** Label of each run for outlier reports: its number, or its 1-based position. */
function runNumbers(series: ArmSeries, indices: number[]): number[] {
  return indices.map(i => {
    const n = Number(series.runs[i])
    return Number.isFinite(n) && series.runs[i]!.trim() !== '' ? n : i + 1
  })
}

/** Start-up phases, info metrics (writable-layer I/O) and derived metrics are reported only; the rest gates. */
function comparisonScope(base: ArmSeries, cand: ArmSeries): MetricScope {
  if (cand.scope === 'startup' || base.scope === 'startup' || isStartupMetric(cand.metric)) return 'startup'
  if (cand.scope === 'info' || base.scope === 'info') return 'info'
  if (cand.scope === 'derived' || base.scope === 'derived') return 'derived'
  return 'steady'
}

/** Both arms constant: a zero-width CI that says more about the timer's resolution than about the arms. */
function constantArmsWarning(db: { n: number; sd: number }, dc: { n: number; sd: number }): string | null {
  if (db.n < 2 || dc.n < 2 || db.sd !== 0 || dc.sd !== 0) return null
  return (
    `every run of both arms gave the same value (zero spread at ${db.n}+${dc.n} runs): the interval has no ` +
    'width, which usually means the timer resolution is coarser than the run-to-run variation; not a ' +
    'regression on its own — time with a finer clock or longer iterations'
  )
}

/** Every statistic for one pair of series; p_adjusted is the unadjusted gating p until `decide` runs. */
export function measureComparison(base: ArmSeries, cand: ArmSeries, opts: MeasureOptions): Comparison {
  const b = base.values
  const c = cand.values
  const db = describe(b)
  const dc = describe(c)
  const { direction, source } = metricDirection({ ...cand, unit: cand.unit || base.unit }, base)
  const undefinedStats: string[] = []
  const enough = b.length >= 2 && c.length >= 2

  const welch = welchTTest(c, b)
  const mw = mannWhitneyU(c, b)
  if (!welch.defined) undefinedStats.push('welch')
  // Welch's t is undefined when both arms have zero variance. Identical arms: p = 1. Constant but
  // different arms: the limit p = 0 would gate on as few as 2 runs, so the rank test's p gates instead.
  const gateFromMw = enough && !welch.defined && welch.p === 0
  const pGate = gateFromMw ? mw.p : welch.p

  // Ratios need positive locations (times and throughputs are).
  const positive = db.mean > 0 && dc.mean > 0
  const ratioMean = dc.mean / db.mean
  const overhead = positive ? ((direction === 'lower' ? ratioMean : 1 / ratioMean) - 1) * 100 : 0
  let ci: Interval = { low: overhead, high: overhead }
  let ciMedian: Interval = { low: 0, high: 0 }
  let ciMethod: 'bootstrap' | 't-delta' = 'bootstrap'
  let ciMedianMethod: 'bootstrap' | 't-delta' = 'bootstrap'
  let ciBoot: Interval | undefined
  let ciT: Interval | undefined
  if (!positive) undefinedStats.push('overhead_pct', 'ci95', 'ci95_median')
  else {
    const intervals = ratioIntervals(b, c, {
      resamples: resamplesFor(b.length + c.length),
      ...opts.bootstrap
    })
    ciBoot = ratioToOverhead(intervals.mean.bootstrap, direction)
    ciT = ratioToOverhead(intervals.mean.tDelta, direction)
    ;({ ci, method: ciMethod } = widerInterval(ciBoot, ciT, overhead))
    const medPositive = db.median > 0 && dc.median > 0
    const medRatio = intervals.median.estimate
    const medPoint = ((direction === 'lower' ? medRatio : 1 / medRatio) - 1) * 100
    if (medPositive) {
      ;({ ci: ciMedian, method: ciMedianMethod } = widerInterval(
        ratioToOverhead(intervals.median.bootstrap, direction),
        ratioToOverhead(intervals.median.tDelta, direction),
        medPoint
      ))
    } else undefinedStats.push('ci95_median')
    if (!enough) undefinedStats.push('ci95', 'ci95_median')
  }

  let tostP = 1
  if (positive && enough) {
    const bounds = equivalenceBounds(db.mean, opts.maxOverheadPct, direction)
    tostP = tost(c, b, bounds.low, bounds.high).p
  } else undefinedStats.push('tost')

  let mdePct = 0
  if (enough && db.mean !== 0) {
    mdePct = (minimumDetectableEffect(db.sd, db.n, dc.sd, dc.n, opts.alpha) / Math.abs(db.mean)) * 100
  } else undefinedStats.push('mde_pct')

  const out = outliers(b)
  const outC = outliers(c)
  const comparison: Comparison = {
    workload: cand.workload,
    metric: cand.metric,
    baseline_env: opts.baselineEnv,
    candidate_env: opts.candidateEnv,
    n_baseline: db.n,
    n_candidate: dc.n,
    mean_baseline: db.mean,
    mean_candidate: dc.mean,
    median_baseline: db.median,
    median_candidate: dc.median,
    overhead_pct: overhead,
    ci95: ci,
    welch: { t: welch.t, df: welch.df, p: welch.p, defined: welch.defined },
    mann_whitney: { u: mw.u, p: mw.p, method: mw.method },
    tost: { margin_pct: opts.maxOverheadPct, p: tostP, equivalent: tostP < opts.alpha },
    p_adjusted: pGate,
    mde_pct: mdePct,
    verdict: 'inconclusive',
    unit: cand.unit || base.unit,
    direction,
    direction_source: source,
    scope: comparisonScope(base, cand),
    sd_baseline: db.sd,
    sd_candidate: dc.sd,
    ci95_median: ciMedian,
    ci_method: ciMethod,
    ci95_median_method: ciMedianMethod,
    runs_needed: null,
    outliers: { baseline: runNumbers(base, out.any), candidate: runNumbers(cand, outC.any) },
    reason: '',
    p_gate: pGate,
    p_source: gateFromMw ? 'mann-whitney' : 'welch'
  }
  if (ciBoot !== undefined && finiteInterval(ciBoot)) comparison.ci95_bootstrap = ciBoot
  if (ciT !== undefined && finiteInterval(ciT)) comparison.ci95_t_delta = ciT
  if (cand.params !== '') comparison.params = cand.params
  const constant = constantArmsWarning(db, dc)
  if (constant !== null) comparison.warnings = [constant]
  if (undefinedStats.length > 0) comparison.undefined_stats = [...new Set(undefinedStats)]
  if (opts.incomparable !== undefined && opts.incomparable.length > 0)
    comparison.incomparable_fields = opts.incomparable
  return comparison
}

// ---- verdicts ----

export interface DecideOptions {
  alpha: number
  maxOverheadPct: number
}

/**
 * Runs per arm at which an effect of max-overhead becomes detectable (alpha two-sided, power 0.8); null
 * when no number of runs would (too noisy) or when the arms already have that many (the estimate then
 * sits near the limit and more runs of the same kind are not the remedy).
 */
function runsToDetect(c: Comparison, opts: DecideOptions): number | null {
  const bounds = equivalenceBounds(c.mean_baseline, opts.maxOverheadPct, c.direction)
  const target = Math.min(Math.abs(bounds.low), Math.abs(bounds.high))
  const n = runsNeeded(c.sd_baseline, c.sd_candidate, target, opts.alpha)
  return n !== null && n > Math.max(c.n_baseline, c.n_candidate) ? n : null
}

/** The power advice of an inconclusive verdict, never "2 runs would detect" at 2 runs. */
function powerAdvice(c: Comparison, max: number): string {
  if (c.runs_needed !== null)
    return `MDE ${formatPct(c.mde_pct)}; ${c.runs_needed} runs per arm would detect ${max}%`
  if (c.mde_pct > 0 && c.mde_pct <= max)
    return `MDE ${formatPct(c.mde_pct)} is already below ${max}%: the estimate sits near the limit`
  return `MDE ${formatPct(c.mde_pct)}`
}

function verdictAndReason(c: Comparison, opts: DecideOptions): { verdict: MetricVerdict; reason: string } {
  const max = opts.maxOverheadPct
  const effect = formatOverhead(c)
  const undef = new Set(c.undefined_stats ?? [])
  if (c.incomparable_fields !== undefined && c.incomparable_fields.length > 0)
    return {
      verdict: 'incomparable',
      reason: `Fingerprints differ (${c.incomparable_fields.join('; ')}), so ${effect} is not a like-for-like difference: incomparable.`
    }
  if (c.history !== undefined && c.history.checks < 2)
    return {
      verdict: 'inconclusive',
      reason: `${effect} against ${c.history.checks} stored check: the day-to-day spread between checks is unknown until at least 2 (better 5) are stored, so nothing is decided: inconclusive.`
    }
  if (c.history === undefined && (c.n_baseline < 2 || c.n_candidate < 2))
    return {
      verdict: 'inconclusive',
      reason: `Only ${c.n_baseline} baseline and ${c.n_candidate} candidate run(s); at least 2 runs per arm are needed to test anything: inconclusive.`
    }
  if (undef.has('overhead_pct'))
    return {
      verdict: 'inconclusive',
      reason: `A ratio needs positive means (baseline ${c.mean_baseline}, candidate ${c.mean_candidate}), so no overhead can be stated: inconclusive.`
    }
  const pText =
    c.p_source === 'mann-whitney'
      ? `Welch's t is undefined (zero variance in both arms), Mann–Whitney p=${formatP(c.p_adjusted)}`
      : c.p_source === 'prediction-interval'
        ? `prediction interval over ${c.n_baseline} stored check means, ${c.scope === 'steady' ? 'Holm-adjusted ' : ''}p=${formatP(c.p_adjusted)}`
        : c.scope !== 'steady'
          ? `Welch p=${formatP(c.p_adjusted)}`
          : `Holm-adjusted Welch p=${formatP(c.p_adjusted)}`
  const identical = c.welch.defined === false && c.p_gate === 1
  const significant = c.p_adjusted < opts.alpha
  const constant = c.n_baseline >= 2 && c.sd_baseline === 0 && c.sd_candidate === 0
  if (significant && c.ci95.low > max && constant)
    return {
      verdict: 'inconclusive',
      reason: `${effect} is significant (${pText}) but both arms are constant, so the interval has no width: likely timer resolution, not a regression on its own: inconclusive.`
    }
  if (significant && c.ci95.low > max)
    return {
      verdict: 'regression',
      reason: `${effect} exceeds +${max}% even at the CI's favourable end and is significant (${pText}): regression.`
    }
  if (c.tost.equivalent)
    return {
      verdict: 'equivalent',
      reason: identical
        ? `${effect}: both arms are identical (zero variance, Welch's t undefined, p=1) and within ±${max}%: equivalent.`
        : `${effect} is within ±${max}%: equivalent (TOST p=${formatP(c.tost.p)}).`
    }
  if (significant && c.ci95.high < 0)
    return {
      verdict: 'improvement',
      reason: `${effect}: the candidate is significantly better (${pText}) and the whole CI is below 0, beyond what equivalence within ±${max}% covers: improvement.`
    }
  const power = powerAdvice(c, max)
  if (significant)
    return {
      verdict: 'inconclusive',
      reason: `${effect} is significant (${pText}) but its CI reaches below +${max}% and equivalence within ±${max}% is not shown (TOST p=${formatP(c.tost.p)}): inconclusive (${power}).`
    }
  return {
    verdict: 'inconclusive',
    reason: `${effect} is neither significant (${pText}) nor shown within ±${max}% (TOST p=${formatP(c.tost.p)}): inconclusive (${power}).`
  }
}

/**
 * Holm-adjust the gating p values ('steady' scope) together, then give every comparison its verdict and
 * reason. 'startup' and 'info' comparisons keep their unadjusted p, get a verdict for information, and
 * never gate.
 * Returns new objects; the input is not modified.
 */
export function decide(comparisons: readonly Comparison[], opts: DecideOptions): Comparison[] {
  const out = comparisons.map(c => ({ ...c, p_adjusted: c.p_gate ?? c.welch.p }))
  const family = out.filter(c => c.scope === 'steady')
  const adjusted = holm(family.map(c => c.p_adjusted))
  family.forEach((c, i) => (c.p_adjusted = adjusted[i]!))
  for (const c of out) {
    const enough = c.n_baseline >= 2 && c.n_candidate >= 2
    c.runs_needed = null
    let { verdict, reason } = verdictAndReason(c, opts)
    if (
      verdict === 'inconclusive' &&
      enough &&
      c.history === undefined &&
      !(c.undefined_stats ?? []).includes('overhead_pct')
    ) {
      c.runs_needed = runsToDetect(c, opts)
      ;({ verdict, reason } = verdictAndReason(c, opts))
    }
    c.verdict = verdict
    c.reason =
      c.scope === 'startup'
        ? `Start-up phase, reported and never gating: ${reason}`
        : c.scope === 'info'
          ? `Reported for information (${/^(data_read_mb_s|ckpt_write_mb_s)$/.test(c.metric) ? 'bind-mounted data path: the same file system in both arms' : 'container writable layer'}), never gating: ${reason}`
          : c.scope === 'derived'
            ? `Derived from a gated metric, shown and not tested again: ${reason}`
            : reason
  }
  return out
}

/**
 * regression if any gating comparison regressed; else incomparable if any comparison is; else equivalent
 * if every gating comparison is equivalent or an improvement (and there is at least one); else inconclusive.
 */
export function overallVerdict(comparisons: readonly Comparison[]): MetricVerdict {
  const gating = comparisons.filter(c => c.scope === 'steady')
  if (gating.some(c => c.verdict === 'regression')) return 'regression'
  if (comparisons.some(c => c.verdict === 'incomparable')) return 'incomparable'
  if (gating.length > 0 && gating.every(c => c.verdict === 'equivalent' || c.verdict === 'improvement'))
    return 'equivalent'
  return 'inconclusive'
}

// ---- a whole report ----

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
}

/** Pair series by (workload, params, metric) and measure each pair; no Holm or verdicts yet. */
export function measureSeries(
  series: readonly ArmSeries[],
  opts: AnalyzeOptions
): { comparisons: Comparison[]; notes: string[] } {
  const key = (s: ArmSeries): string => `${s.workload}\u0000${s.params}\u0000${s.metric}`
  const base = new Map<string, ArmSeries>()
  const cand = new Map<string, ArmSeries>()
  for (const s of series) {
    if (s.environment === opts.baselineEnv) base.set(key(s), s)
    else if (s.environment === opts.candidateEnv) cand.set(key(s), s)
  }
  const incomparable = fingerprintDifferences(
    opts.fingerprints?.[opts.baselineEnv],
    opts.fingerprints?.[opts.candidateEnv],
    'arms'
  )
  const comparisons: Comparison[] = []
  const notes: string[] = []
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
    if (comparison.scope === 'steady') {
      const what = `${b.workload}/${b.metric}${b.params === '' ? '' : ` (${b.params})`}`
      for (const [arm, series] of [
        [opts.baselineEnv, b],
        [opts.candidateEnv, c]
      ] as const) {
        const modes = findModes(series.values)
        if (modes === null) continue
        ;(comparison.multimodal_arms ??= []).push(arm)
        notes.push(describeModes(what, arm, modes, series.unit))
      }
    }
    comparisons.push(comparison)
  }
  for (const [k, c] of cand)
    if (!base.has(k))
      notes.push(`${c.workload}/${c.metric} was measured in ${opts.candidateEnv} only; not compared.`)
  // Gating (steady) comparisons first, start-up phases after; otherwise input order (stable sort).
  comparisons.sort((a, b) => Number(a.scope !== 'steady') - Number(b.scope !== 'steady'))
  return { comparisons, notes }
}

/** Series (one value per run) → full Analysis with Holm, verdicts and the overall verdict. */
export function analyzeSeries(series: readonly ArmSeries[], opts: AnalyzeOptions): Analysis {
  const { comparisons, notes } = measureSeries(series, opts)
  const decided = decide(comparisons, opts)
  const analysis: Analysis = {
    comparisons: decided,
    verdict: overallVerdict(decided),
    max_overhead_pct: opts.maxOverheadPct,
    alpha: opts.alpha,
    baseline_env: opts.baselineEnv,
    candidate_env: opts.candidateEnv
  }
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
}

/**
 * Raw rows (SampleRecords: iterations, start-up phases) → per-run medians → one Analysis comparing every
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
  comparisons.sort((a, b) => Number(a.scope !== 'steady') - Number(b.scope !== 'steady'))
  const decided = decide(comparisons, opts)
  const analysis: Analysis = {
    comparisons: decided,
    verdict: overallVerdict(decided),
    max_overhead_pct: opts.maxOverheadPct,
    alpha: opts.alpha,
    baseline_env: opts.baselineEnv
  }
  if (opts.candidateEnvs.length === 1) analysis.candidate_env = opts.candidateEnvs[0]!
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
