/**
 * `vllm bench serve --save-result` JSON (vllm/benchmarks/serve.py; the older benchmarks/benchmark_serving.py
 * writes the same keys): one object per run with the run's summaries — `mean_/median_/std_/pNN_` of
 * `ttft`, `tpot`, `itl` and `e2el` in milliseconds (lower is better; which appear depends on
 * --percentile-metrics and --metric-percentiles) and `request_throughput` (req/s), `output_throughput` and
 * `total_token_throughput` (tok/s, higher is better). Each summary is one value of the run; the std is a
 * spread, not a level, and is not read. A run with failed requests is refused: its latencies leave out the
 * requests that failed.
 */
import type { JsonSource, SampleRow } from './json-file.js'
import { servingRows, type ServingSummaries } from './serving.js'

export const VLLM_WORKLOAD = 'vllm-bench-serve'
const SUMMARIES: ServingSummaries = {
  workload: VLLM_WORKLOAD,
  e2e: 'e2el',
  throughput: {
    request_throughput: 'req/s',
    request_goodput: 'req/s',
    output_throughput: 'tok/s',
    total_token_throughput: 'tok/s'
  },
  nullIsAbsent: false
}

export function vllmBenchServeRows(src: JsonSource, doc: unknown): SampleRow[] {
  const top = src.object(doc, '', 'one `vllm bench serve --save-result` JSON object')
  const completed = src.number(top.completed, 'completed', 'the number of successful requests')
  if (completed === 0) throw src.error('completed', 0, 'at least one successful request')
  if (top.failed !== undefined && top.failed !== 0)
    throw src.error('failed', top.failed, '0 (a run with failed requests leaves them out of its latencies)')
  src.count(Object.keys(top).length, '')
  return src.withLatency(
    servingRows(src, top, SUMMARIES, { at: '' }),
    '',
    'no latency summary',
    'keys such as mean_ttft_ms, median_tpot_ms, p99_itl_ms (vllm bench serve --save-result)'
  )
}
