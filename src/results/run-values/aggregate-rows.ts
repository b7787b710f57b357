/** Aggregate in-memory rows (e.g. SampleRecords from results.jsonl) to per-run values. */
import { InputError } from '../../util/errors.js'
import { canonicalParams } from '../../util/params.js'
import { RunAggregator } from './aggregator.js'
import { INTERLEAVE_ALLOWED, isInterleave, type RawRow } from './series.js'

export function aggregateRows(rows: Iterable<RawRow>): RunAggregator {
  const agg = new RunAggregator()
  for (const row of rows) {
    if (row.warmup === true) continue
    if (!Number.isFinite(row.value) || row.value < 0) {
      agg.skippedNonFinite++
      continue
    }
    // results.jsonl comes from a results folder, which may come from an untrusted tree.
    const interleave = row.interleave ?? ''
    if (!isInterleave(interleave)) throw new InputError('interleave', interleave, INTERLEAVE_ALLOWED)
    const isNew = agg.add(
      row.workload,
      row.environment,
      String(row.run),
      row.metric,
      row.value,
      row.unit ?? '',
      row.scope ?? '',
      canonicalParams(row.params),
      row.better ?? '',
      row.iteration,
      interleave
    )
    if (isNew && row.fingerprint !== undefined)
      agg.noteFingerprint(row.environment, row.fingerprint, row.workload)
    if (isNew && row.gpu !== undefined) agg.noteGpu(row.gpu)
  }
  return agg
}
