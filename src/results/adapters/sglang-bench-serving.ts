/**
 * SGLang's `python3 -m sglang.bench_serving … --output-file F.jsonl` (python/sglang/bench_serving.py in
 * sgl-project/sglang, `benchmark()`): each benchmark appends one JSON line to the file — the run's arguments
 * (backend, dataset_name, request_rate, max_concurrency, random_input_len, …) and its summaries: `mean_`,
 * `median_`, `std_` and `pNN_` of `ttft`, `tpot`, `itl` and `e2e_latency` in milliseconds (lower is better;
 * which percentiles appear depends on the version: p99 everywhere, p95_itl_ms and p90 in newer ones) and
 * `request_throughput` (req/s), `input_throughput`, `output_throughput`, `total_throughput` (tok/s, higher is
 * better). Every summary becomes one metric of the run under its own key; the std is a spread, not a level,
 * and is not read. Lines of one file are repeats of one benchmark (iterations of the run): lines with other
 * arguments are refused, since their summaries are not the same measurement.
 */
import { appendAll } from '../../util/arrays.js'
import type { JsonSource, SampleRow } from './json-file.js'
import { servingRows, type ServingSummaries } from './serving.js'

export const SGLANG_WORKLOAD = 'sglang-bench-serving'
const SUMMARIES: ServingSummaries = {
  workload: SGLANG_WORKLOAD,
  e2e: 'e2e_latency',
  throughput: {
    request_throughput: 'req/s',
    input_throughput: 'tok/s',
    output_throughput: 'tok/s',
    total_throughput: 'tok/s'
  },
  nullIsAbsent: true
}
/** The arguments a line records: lines of one file must agree on them. */
const SETTINGS = [
  'backend',
  'dataset_name',
  'request_rate',
  'max_concurrency',
  'sharegpt_output_len',
  'random_input_len',
  'random_output_len',
  'random_range_ratio'
] as const

export function sglangBenchServingRows(src: JsonSource, doc: unknown): SampleRow[] {
  const lines = src.list(doc, '', 'one `sglang.bench_serving` result a line')
  if (lines.length === 0)
    throw src.error(
      '',
      'no line',
      'at least one JSON line written by python3 -m sglang.bench_serving --output-file'
    )
  const rows: SampleRow[] = []
  let settings: string | null = null
  lines.forEach((raw, i) => {
    const at = `line ${i + 1}`
    const top = src.object(raw, at, 'one `sglang.bench_serving` result object')
    const completed = src.number(top.completed, `${at}.completed`, 'the number of successful requests')
    if (completed === 0) throw src.error(`${at}.completed`, 0, 'at least one successful request')
    const these = JSON.stringify(SETTINGS.map(k => top[k] ?? null))
    if (settings !== null && these !== settings)
      throw src.error(
        at,
        these,
        `the arguments of line 1 (${settings}): one benchmark setting a file (give each request rate or concurrency its own file)`
      )
    settings = these
    src.count(Object.keys(top).length, at)
    appendAll(
      rows,
      src.withLatency(
        servingRows(src, top, SUMMARIES, { at, iteration: i }),
        at,
        'no latency summary',
        'keys such as mean_ttft_ms, p99_ttft_ms, p95_itl_ms (python3 -m sglang.bench_serving --output-file)'
      )
    )
  })
  return rows
}
