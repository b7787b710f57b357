/**
 * A check against a loaded baseline file, CHECK BY CHECK (history-compare.ts: prediction interval over
 * the stored check means), never by pooling runs of different days into one sample.
 */
import type { BaselineResult, Comparison } from '../../types/index.js'
import { decide, fingerprintDifferences, metricDirection } from '../compare/index.js'
import { compareWithHistory, summarizeCheck, type CheckMetricSummary } from '../history-compare.js'
import type { BaselineEntry, BaselineFile, StoredMetric } from './format.js'
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
  entry: BaselineEntry,
  metric: string
): { history: CheckMetricSummary[]; better?: 'lower' | 'higher' } | undefined {
  const history: CheckMetricSummary[] = []
  let better: 'lower' | 'higher' | undefined
  for (const check of entry.checks) {
    const m = check.metrics[metric]
    if (m === undefined || m.values.length === 0) continue
    history.push(metricSummary(m, check.check_id))
    better = m.better ?? better
  }
  return history.length === 0 ? undefined : { history, ...(better ? { better } : {}) }
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
    for (const cand of g.series) {
      const stored = storedHistory(entry, cand.metric)
      if (stored === undefined) continue
      const { direction, source } = metricDirection(cand, { better: stored.better })
      measured.push(
        compareWithHistory({
          workload: cand.workload,
          metric: cand.metric,
          unit: cand.unit,
          direction,
          directionSource: source,
          scope: cand.scope,
          params: cand.params,
          baselineEnv: `${g.environment}@baseline`,
          candidateEnv: g.environment,
          history: stored.history,
          current: cand.values,
          maxOverheadPct: options.maxOverheadPct,
          alpha: options.alpha,
          incomparable: differences
        })
      )
    }
  }
  const comparisons = decide(measured, options)
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
