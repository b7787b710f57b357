/**
 * A check against a loaded baseline file, CHECK BY CHECK (history-compare.ts: prediction interval over
 * the stored check means), never by pooling runs of different days into one sample.
 */
import type { BaselineResult, Comparison } from '../../types/index.js'
import { commonUnit, decide, fingerprintDifferences, metricDirection } from '../compare/index.js'
import { InputError } from '../../util/errors.js'
import { compareWithHistory, summarizeCheck, type CheckMetricSummary } from '../history-compare.js'
import type { BaselineFile, StoredCheck, StoredMetric } from './format.js'
import { baselineKey, factsFor, findEntry, groupSeries } from './match.js'
import type { BaselineCompareOptions, CurrentResults } from './store.js'

/** A stored metric's summary; @1 files stored values only, so the summary is computed from them. */
function metricSummary(m: StoredMetric, checkId: string): CheckMetricSummary {
  if (m.n !== undefined && m.mean !== undefined && m.sd !== undefined && m.median !== undefined)
    return { n: m.n, mean: m.mean, sd: m.sd, median: m.median, values: m.values, check_id: checkId }
  return { ...summarizeCheck(m.values), check_id: checkId }
}

/** The stored checks that measured `metric`, oldest first, as summaries; and what they declared. */
function storedHistory(
  checks: readonly StoredCheck[],
  metric: string
): { history: CheckMetricSummary[]; better?: 'lower' | 'higher'; unit: string } | undefined {
  const history: CheckMetricSummary[] = []
  const betters = new Set<'lower' | 'higher'>()
  const units = new Set<string>()
  for (const check of checks) {
    const m = check.metrics[metric]
    if (m === undefined || m.values.length === 0) continue
    history.push(metricSummary(m, check.check_id))
    if (m.better !== undefined) betters.add(m.better)
    if (m.unit.trim() !== '') units.add(m.unit.trim())
  }
  if (history.length === 0) return undefined
  // One metric, one unit and one direction across the stored checks: a mean of ms and s checks, or the last
  // check's direction over earlier ones, would be a made-up reference.
  for (const [what, set] of [
    ['unit', units],
    ['better', betters]
  ] as const)
    if (set.size > 1)
      throw new InputError(
        `${what} (${metric} in the stored baseline)`,
        [...set].join(' and '),
        `one ${what === 'unit' ? 'unit' : 'direction'} per metric in every stored check (the baseline store has checks that disagree; reset the entry)`
      )
  const [better] = betters
  return { history, unit: [...units][0] ?? '', ...(better ? { better } : {}) }
}

/** How far the rolling reference's level sits from the anchor's, as an overhead (%, positive = worse). */
function movedPct(reference: number, anchor: number, direction: 'lower' | 'higher'): number {
  if (!(reference > 0 && anchor > 0)) return 0
  return ((direction === 'lower' ? reference / anchor : anchor / reference) - 1) * 100
}

/**
 * Compare current arms with a loaded baseline file. The exact key is preferred; failing that, an entry
 * of the same arm and workload config recorded under another fingerprint is used and the comparison is
 * incomparable, naming what changed (driver, image digest...), rather than silently skipped.
 */
export function compareWithStored(
  data: BaselineFile,
  current: CurrentResults,
  options: BaselineCompareOptions,
  location: string
): BaselineResult {
  const measured: Comparison[] = []
  const unmatched: string[] = []
  const notes: string[] = []
  for (const g of groupSeries(current.series, options.environments).values()) {
    const facts = factsFor(current, g.environment, g.workload)
    const key = baselineKey(g.environment, facts, g.workload, g.params)
    const found = findEntry(data, g, key)
    if (found === undefined) {
      unmatched.push(`${g.environment}/${g.workload}`)
      continue
    }
    const { entry } = found
    const differences = fingerprintDifferences(entry.fingerprint, facts, 'baseline')
    if (!found.exact && differences.length === 0)
      notes.push(
        `${g.environment}/${g.workload}: stored under another key (${entry.key}) whose known facts match; compared.`
      )
    // The anchor (issue 39, S11): compared too once the rolling reference has moved on from it.
    const anchorChecks = entry.anchor?.checks ?? []
    const rollingIds = entry.checks.map(c => c.check_id).join('\u0000')
    const anchorMoved =
      anchorChecks.length > 0 && anchorChecks.map(c => c.check_id).join('\u0000') !== rollingIds
    for (const cand of g.series) {
      const stored = storedHistory(entry.checks, cand.metric)
      if (stored === undefined) continue
      // The stored checks' unit is the current one's, or the ratio is one of two units (refused, naming both).
      commonUnit(
        {
          workload: cand.workload,
          metric: cand.metric,
          unit: stored.unit,
          environment: 'the stored baseline'
        },
        cand
      )
      const { direction, source } = metricDirection(cand, { better: stored.better })
      const against = (history: CheckMetricSummary[], baselineEnv: string): Comparison =>
        compareWithHistory({
          workload: cand.workload,
          metric: cand.metric,
          unit: cand.unit,
          direction,
          directionSource: source,
          scope: cand.scope,
          params: cand.params,
          baselineEnv,
          candidateEnv: g.environment,
          history,
          current: cand.values,
          maxOverheadPct: options.maxOverheadPct,
          alpha: options.alpha,
          incomparable: differences
        })
      const rolling = against(stored.history, `${g.environment}@baseline`)
      measured.push(rolling)
      const anchor = anchorMoved ? storedHistory(anchorChecks, cand.metric) : undefined
      if (anchor === undefined || anchor.history.length < 2 || rolling.history === undefined) continue
      const fixed = against(anchor.history, `${g.environment}@anchor`)
      if (fixed.history === undefined) continue
      const facts = {
        checks: anchor.history.map((h, i) => h.check_id ?? `anchor check ${i + 1}`),
        moved_pct: movedPct(rolling.mean_baseline, fixed.mean_baseline, direction),
        pinned: entry.anchor?.pinned === true
      }
      rolling.history.anchor = facts
      fixed.history.anchor = facts
      fixed.history.against = 'anchor'
      measured.push(fixed)
    }
  }
  return storedResult(decide(measured, options), unmatched, notes, location)
}

/** The result of a stored comparison: what was compared, or that nothing stored matched; with what was skipped and noted. */
function storedResult(
  comparisons: Comparison[],
  unmatched: string[],
  notes: string[],
  location: string
): BaselineResult {
  if (comparisons.length === 0)
    return {
      status: 'no-match',
      path: location,
      message: `No stored baseline matches this run (${unmatched.join(', ') || 'nothing to compare'}) in ${location}.`,
      comparisons: [],
      saved: false
    }
  const skipped = unmatched.length > 0 ? ` No stored baseline for ${unmatched.join(', ')}.` : ''
  return {
    status: 'compared',
    path: location,
    message: `Compared ${comparisons.length} metric(s) with the baseline in ${location}.${skipped}${notes.length > 0 ? ' ' + notes.join(' ') : ''}`,
    comparisons,
    saved: false
  }
}
