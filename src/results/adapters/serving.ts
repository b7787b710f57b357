/**
 * The summaries of an LLM-serving benchmark's result object (`vllm bench serve`, SGLang's bench_serving):
 * each latency summary (`mean_/median_/pNN_` of TTFT, TPOT, ITL, E2E, in ms, lower is better) and each
 * throughput (its unit, higher is better) becomes one row under its own key; any other key is not read.
 */
import { own } from '../../util/own.js'
import type { JsonSource, SampleRow } from './json-file.js'

/** Which keys of a tool's result object are its summaries, and the workload their rows belong to. */
export interface ServingSummaries {
  workload: string
  /** The tool's name of the end-to-end latency in its keys (`e2el`, `e2e_latency`). */
  e2e: string
  /** Throughput keys and their units. */
  throughput: Record<string, string>
  /** A null value is the metric missing (a JSON Lines file's NaN, json-file.ts readLines), not a bad latency. */
  nullIsAbsent: boolean
}

/** `mean_`, `median_` or `pNN_` of TTFT, TPOT, ITL or E2E, in ms: `p99_ttft_ms`, `p99.9_itl_ms`. */
function latencyKeyOf(e2e: string): RegExp {
  return new RegExp(`^(mean|median|p\\d{1,2}(?:\\.\\d{1,3})?)_(ttft|tpot|itl|${e2e})_ms$`)
}

/** `top`'s summaries, a row each in key order; `at` is its JSON path (`line 2`, or '' for the document). */
export function servingRows(
  src: JsonSource,
  top: Record<string, unknown>,
  summaries: ServingSummaries,
  where: { at: string; iteration?: number }
): SampleRow[] {
  const rows: SampleRow[] = []
  const latencyKey = latencyKeyOf(summaries.e2e)
  for (const key of Object.keys(top)) {
    const value = top[key]
    if (summaries.nullIsAbsent && (value === null || value === undefined)) continue
    const latency = latencyKey.test(key)
    const unit = latency ? 'ms' : own(summaries.throughput, key)
    // A throughput the tool left null is not reported; a latency must be a number.
    if (unit === undefined || (!latency && value === null)) continue
    rows.push({
      workload: summaries.workload,
      metric: key,
      value: src.number(value, where.at === '' ? key : `${where.at}.${key}`, latency ? 'milliseconds' : unit),
      unit,
      better: latency ? 'lower' : 'higher',
      ...(where.iteration === undefined ? {} : { iteration: where.iteration })
    })
  }
  return rows
}
