/** Add an accepted check to a baseline file in memory: its entries and its point of the trend history. */
import { appendHistory } from '../history.js'
import { summarizeCheck } from '../history-compare.js'
import { FINGERPRINT_FIELDS, type PartialFingerprint } from '../../results/index.js'
import { BASELINE_SCHEMA, DEFAULT_KEEP_CHECKS, type BaselineFile, type StoredMetric } from './format.js'
import { baselineKey, factsFor, groupSeries, paramsHash } from './match.js'
import type { AppendOptions, CurrentResults } from './store.js'

/** Add the current check to a baseline file in memory (keeping the last `keep` checks per entry). */
export function appendToBaseline(
  data: BaselineFile,
  current: CurrentResults,
  options: AppendOptions = {}
): { data: BaselineFile; entries: number } {
  const keep = options.keep ?? DEFAULT_KEEP_CHECKS
  const time = current.time ?? new Date().toISOString()
  let touched = 0
  for (const g of groupSeries(current.series, options.environments).values()) {
    const facts = factsFor(current, g.environment, g.workload)
    const key = baselineKey(g.environment, facts, g.workload, g.params)
    const entry = (data.entries[key] ??= {
      key,
      environment: g.environment,
      workload: g.workload,
      params: g.params,
      params_hash: paramsHash(g.params),
      fingerprint: {},
      checks: []
    })
    const fingerprint: PartialFingerprint = {}
    for (const field of FINGERPRINT_FIELDS) if (facts[field] !== undefined) fingerprint[field] = facts[field]
    entry.fingerprint = fingerprint
    const metrics: Record<string, StoredMetric> = {}
    for (const s of g.series) {
      const sum = summarizeCheck(s.values)
      if (sum.n > 0)
        metrics[s.metric] = {
          unit: s.unit,
          ...(s.better ? { better: s.better } : {}),
          scope: s.scope,
          n: sum.n,
          mean: sum.mean,
          sd: sum.sd,
          median: sum.median,
          values: sum.values
        }
    }
    // Re-saving the same check replaces it rather than counting it twice.
    entry.checks = entry.checks.filter(c => c.check_id !== current.check_id)
    // The oldest accepted level (issue 39, S11): a file written before it starts from its stored checks.
    const anchor = (entry.anchor ??= { checks: entry.checks.slice(0, keep) })
    const check = {
      check_id: current.check_id,
      time,
      commit: current.commit ?? null,
      image_digest: fingerprint.image_digest ?? null,
      fingerprint,
      metrics
    }
    entry.checks.push(check)
    if (entry.checks.length > keep) entry.checks = entry.checks.slice(entry.checks.length - keep)
    if (anchor.pinned !== true) {
      const at = anchor.checks.findIndex(c => c.check_id === check.check_id)
      if (at >= 0) anchor.checks[at] = check
      else if (anchor.checks.length < keep) anchor.checks.push(check)
    }
    touched++
  }
  // The same accepted check, as one point per series of the (longer) trend history.
  appendHistory(
    (data.history ??= {}),
    { ...current, time, commit: current.commit ?? null },
    { keep: options.historyKeep, environments: options.environments }
  )
  data.schema = BASELINE_SCHEMA
  data.keep = keep
  data.updated_at = new Date().toISOString()
  return { data, entries: touched }
}
