/**
 * `trtllm-bench … throughput|latency --report_json F.json` (tensorrt_llm/bench/dataclasses/reporting.py in
 * NVIDIA/TensorRT-LLM, `ReportUtility.get_statistics_dict`; the percentile objects are `PercentileStats` of
 * tensorrt_llm/bench/dataclasses/statistics.py: p50, p90, p95, p99, minimum, maximum, average). Read:
 * - `performance`: `request_throughput_req_s` (req/s), `system_output_throughput_tok_s`,
 *   `system_total_throughput_tok_s`, `output_throughput_per_user_tok_s`, `output_throughput_per_gpu_tok_s`
 *   (tok/s; higher is better), `avg_request_latency_ms` and `request_latency_percentiles_ms.{p50…p99,average}`
 *   (ms; lower is better);
 * - `streaming_metrics` (with --streaming): `avg_ttft_ms`, `avg_tpot_ms`, `ttft_percentiles.*` and
 *   `tpot_percentiles.*` (ms; lower), `token_output_speed_tok_s` and `gen_tps_percentiles.*` (tok/s per user;
 *   higher).
 * Each becomes one metric of the run named by its path below the section (`ttft_percentiles.p99`); minimum and
 * maximum (one request each) and `total_latency_ms` (the run's length, the inverse of its throughput) are not.
 */
import type { Direction } from '../../types/index.js'
import type { JsonSource, SampleRow } from './json-file.js'

export const TRTLLM_WORKLOAD = 'trtllm-bench'
const STATS = ['p50', 'p90', 'p95', 'p99', 'average'] as const

interface Read {
  unit: string
  better: Direction
}
const LOWER_MS: Read = { unit: 'ms', better: 'lower' }
const PERFORMANCE: Record<string, Read> = {
  request_throughput_req_s: { unit: 'req/s', better: 'higher' },
  system_output_throughput_tok_s: { unit: 'tok/s', better: 'higher' },
  system_total_throughput_tok_s: { unit: 'tok/s', better: 'higher' },
  output_throughput_per_user_tok_s: { unit: 'tok/s', better: 'higher' },
  output_throughput_per_gpu_tok_s: { unit: 'tok/s', better: 'higher' },
  avg_request_latency_ms: LOWER_MS
}
const PERFORMANCE_PERCENTILES: Record<string, Read> = { request_latency_percentiles_ms: LOWER_MS }
const STREAMING: Record<string, Read> = {
  token_output_speed_tok_s: { unit: 'tok/s', better: 'higher' },
  avg_ttft_ms: LOWER_MS,
  avg_tpot_ms: LOWER_MS
}
const STREAMING_PERCENTILES: Record<string, Read> = {
  ttft_percentiles: LOWER_MS,
  tpot_percentiles: LOWER_MS,
  gen_tps_percentiles: { unit: 'tok/s', better: 'higher' }
}

function section(
  src: JsonSource,
  obj: Record<string, unknown>,
  at: string,
  flat: Record<string, Read>,
  percentiles: Record<string, Read>,
  rows: SampleRow[]
): void {
  for (const [key, read] of Object.entries(flat))
    if (obj[key] !== undefined && obj[key] !== null)
      rows.push({
        workload: TRTLLM_WORKLOAD,
        metric: key,
        value: src.number(obj[key], `${at}.${key}`, read.unit),
        ...read
      })
  for (const [key, read] of Object.entries(percentiles)) {
    if (obj[key] === undefined || obj[key] === null) continue
    const stats = src.object(obj[key], `${at}.${key}`, 'p50, p90, p95, p99, minimum, maximum, average')
    for (const stat of STATS)
      if (stats[stat] !== undefined && stats[stat] !== null)
        rows.push({
          workload: TRTLLM_WORKLOAD,
          metric: `${key}.${stat}`,
          value: src.number(stats[stat], `${at}.${key}.${stat}`, read.unit),
          ...read
        })
  }
}

export function trtllmBenchRows(src: JsonSource, doc: unknown): SampleRow[] {
  const top = src.object(
    doc,
    '',
    'one `trtllm-bench --report_json` object: performance, streaming_metrics, …'
  )
  const performance = src.object(
    top.performance,
    'performance',
    'the run’s throughputs and request latencies'
  )
  const rows: SampleRow[] = []
  src.count(Object.keys(performance).length, 'performance')
  section(src, performance, 'performance', PERFORMANCE, PERFORMANCE_PERCENTILES, rows)
  if (top.streaming_metrics !== undefined && top.streaming_metrics !== null) {
    const streaming = src.object(top.streaming_metrics, 'streaming_metrics', 'TTFT, TPOT (with --streaming)')
    src.count(Object.keys(streaming).length, 'streaming_metrics')
    section(src, streaming, 'streaming_metrics', STREAMING, STREAMING_PERCENTILES, rows)
  }
  return src.withLatency(
    rows,
    'performance',
    'no latency',
    'avg_request_latency_ms or request_latency_percentiles_ms (trtllm-bench --report_json)'
  )
}
