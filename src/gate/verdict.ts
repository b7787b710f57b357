/**
 * The gate's verdict rules: an analysis (plus preflight and completeness) → the check's verdict and its
 * headline metric (outcome.ts maps a verdict to the exit code). The CLI, the action and the fleet merge
 * all call these, so the same outcome exits the same way everywhere.
 *
 * Nothing measured is never a pass: a check with no gated comparison that could be decided on data —
 * zero gated samples, an arm with fewer than 2 runs of a gated metric, or a workload that emitted no
 * gated metric at all — is `error`, like an incomplete check.
 */
import type { Analysis, CheckVerdict, Comparison, PreflightResult } from '../types/index.js'

/** Runs per arm below which nothing about a metric can be tested. */
const MIN_RUNS = 2

const gated = (comparisons: readonly Comparison[]): Comparison[] =>
  comparisons.filter(c => c.scope === 'steady')

/** A metric the workflow named to gate (gate-metrics: `workload/metric`). */
export interface NamedGateMetric {
  workload: string
  metric: string
}

const baseName = (metric: string): string => metric.split('@')[0] ?? metric

/**
 * The metrics named in gate-metrics that have no data to gate on: no comparison of that workload and metric
 * (an arm's files left it out, or no file has it), or one with fewer than 2 runs in an arm. A gated metric
 * without data is an error, never a pass.
 */
export function unmeasuredGateMetrics(
  analysis: Pick<Analysis, 'comparisons'> | null,
  named: readonly NamedGateMetric[]
): string[] {
  const comparisons = analysis?.comparisons ?? []
  return named
    .filter(g => {
      const of = comparisons.filter(
        c => c.workload === g.workload && baseName(c.metric) === baseName(g.metric)
      )
      return of.length === 0 || of.some(c => c.n_baseline < MIN_RUNS || c.n_candidate < MIN_RUNS)
    })
    .map(g => {
      const of = comparisons.filter(
        c => c.workload === g.workload && baseName(c.metric) === baseName(g.metric)
      )
      return of.length === 0
        ? `${g.workload}/${g.metric}: not in both arms' results`
        : `${g.workload}/${g.metric}: ${of.map(c => `${c.n_baseline}+${c.n_candidate}`).join(', ')} runs`
    })
}

/**
 * Why the analysis measured nothing that can gate, or null when it did. `workloads`: the workloads the
 * check ran; each must have produced at least one gated comparison. `named`: the metrics gate-metrics names;
 * each must have been measured in both arms.
 */
export function nothingMeasuredReason(
  analysis: Pick<Analysis, 'comparisons'> | null,
  workloads: readonly string[] = [],
  named: readonly NamedGateMetric[] = []
): string | null {
  const unmeasured = unmeasuredGateMetrics(analysis, named)
  if (unmeasured.length > 0)
    return `gate-metrics names metric(s) without ${MIN_RUNS} runs of data in both arms (${unmeasured.join('; ')})`
  const steady = gated(analysis?.comparisons ?? [])
  if (steady.length === 0)
    return 'no gated metric was measured (zero gated samples, or the workloads emitted only informational metrics)'
  const silent = workloads.filter(w => !steady.some(c => c.workload === w))
  if (silent.length > 0) return `workload(s) ${silent.join(', ')} emitted no gated metric`
  const thin = steady.filter(c => c.n_baseline < MIN_RUNS || c.n_candidate < MIN_RUNS)
  if (thin.length === steady.length)
    return `no gated metric has ${MIN_RUNS} runs in both arms (${thin
      .map(c => `${c.workload}/${c.metric}: ${c.n_baseline}+${c.n_candidate}`)
      .join(', ')})`
  return null
}

/**
 * The check's verdict. A failed preflight gate, an incomplete check without a regression, or a check that
 * measured nothing gated is `error`; a regression found before a fault still counts; a gated metric left
 * undecided (neither a regression nor shown equivalent) is `inconclusive`, never `pass`. `workloads`: those
 * that must emit a gated sample; `requireGated` false only for a check of rule-gated workloads alone.
 */
export function checkVerdict(
  analysis: Analysis | null,
  preflight: readonly PreflightResult[],
  complete: boolean,
  workloads: readonly string[] = [],
  requireGated = true,
  named: readonly NamedGateMetric[] = []
): CheckVerdict {
  if (preflight.some(p => p.status === 'fail')) return 'error'
  if (analysis?.verdict === 'regression') return 'regression'
  if (!complete || !analysis) return 'error'
  if (requireGated && nothingMeasuredReason(analysis, workloads) !== null) return 'error'
  if (unmeasuredGateMetrics(analysis, named).length > 0) return 'error'
  if (analysis.verdict === 'incomparable') return 'incomparable'
  // Measured but not decided: never a pass by itself (on-inconclusive says what it does to the step).
  if (analysis.verdict === 'inconclusive' && gated(analysis.comparisons).length > 0) return 'inconclusive'
  return 'pass'
}

const DECIDED = new Set<Comparison['verdict']>(['regression', 'equivalent', 'improvement'])

/**
 * The headline comparison (the action's `overhead-pct` and `p-value`): the worst regression when there is
 * one, else the worst DECIDED gated comparison (equivalent or improvement); null when nothing gated was
 * decided — an inconclusive metric never becomes the headline of a passing check.
 */
export function headlineComparison(comparisons: readonly Comparison[]): Comparison | null {
  const steady = gated(comparisons)
  const regressions = steady.filter(c => c.verdict === 'regression')
  const pool = regressions.length > 0 ? regressions : steady.filter(c => DECIDED.has(c.verdict))
  if (pool.length === 0) return null
  return pool.reduce((a, b) => (b.overhead_pct > a.overhead_pct ? b : a))
}

/** Headline figures of a list of comparisons (a check, or every group of a fleet report). */
export function headlineOf(comparisons: readonly Comparison[]): {
  overhead_pct: number | null
  p_value: number | null
} {
  const c = headlineComparison(comparisons)
  return c === null
    ? { overhead_pct: null, p_value: null }
    : { overhead_pct: c.overhead_pct, p_value: c.p_adjusted }
}

export function headline(analysis: Analysis | null): { overhead_pct: number | null; p_value: number | null } {
  return headlineOf(analysis?.comparisons ?? [])
}
