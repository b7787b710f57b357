/**
 * The stored per-process values of one arm (the native arm, as the check's baseline) for every series this
 * check measured: what native-modes.ts reads a slow mode from (issue 52, T1). Only the entry of the exact key
 * (same GPU, driver, image, access, workload config): another host's processes say nothing about this one's modes.
 */
import { aggregateRows, type RawRow } from '../../results/index.js'
import { historyKey, type NativeHistory } from '../native-modes.js'
import { JsonFileBaselineStore } from './json-file-store.js'
import { baselineKey, factsFor, groupSeries } from './match.js'
import type { CurrentResults } from './store.js'

/** The arm's stored checks per series; empty when the baseline is off, missing or corrupt. */
export async function storedArmHistory(
  path: string | null | undefined,
  rows: Iterable<RawRow>,
  environment: string
): Promise<NativeHistory> {
  const out = new Map<string, number[][]>()
  if (path === null || path === undefined || path === '') return out
  const load = await new JsonFileBaselineStore(path).load()
  if (load.status !== 'ok' || load.data === undefined) return out
  const agg = aggregateRows([...rows])
  const current: CurrentResults = {
    check_id: '',
    series: agg.series(),
    fingerprints: agg.fingerprints,
    stacks: agg.stacks
  }
  for (const g of groupSeries(current.series, [environment]).values()) {
    const key = baselineKey(g.environment, factsFor(current, g.environment, g.workload), g.workload, g.params)
    const entry = load.data.entries[key]
    if (entry === undefined) continue
    for (const s of g.series) {
      const checks = entry.checks.flatMap(c => {
        const m = c.metrics[s.metric]
        return m === undefined || m.values.length === 0 ? [] : [m.values]
      })
      if (checks.length > 0) out.set(historyKey(s.workload, s.params, s.metric), checks)
    }
  }
  return out
}
