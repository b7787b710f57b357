/**
 * AIPerf's `profile_export_aiperf.json` (aiperf/exporters/json_exporter.py and the `JsonMetricResult` /
 * `JsonExportData` models of aiperf/common/models/export_models.py in ai-dynamo/aiperf) and, in the same shape
 * (AIPerf's models mimic it), genai-perf's `profile_export_genai_perf.json` (genai-perf/genai_perf/export_data/
 * json_exporter.py and metrics/statistics.py in triton-inference-server/perf_analyzer): one object per metric,
 * `{unit, avg, p1, p5, p10, p25, p50, p75, p90, p95, p99, min, max, std}` (system metrics such as the request
 * throughput have `avg` only). The file says a metric's unit, not its direction: the metrics read are those
 * below, whose direction the tools' own metric definitions give (AIPerf's MetricFlags.LARGER_IS_BETTER).
 * Counts, lengths, timestamps, the run's duration and GPU telemetry are not performance of the server and are
 * not read. `avg` and every percentile become a metric (`time_to_first_token.p99`); min and max (one request
 * each) and std (a spread) do not. A run with failed requests or a cancelled run is refused: its latencies
 * leave requests out.
 */
import type { Direction } from '../../types/index.js'
import type { JsonSource, SampleRow } from './json-file.js'

export const AIPERF_WORKLOAD = 'aiperf'
const STAT = /^(avg|p\d{1,2})$/
const DIRECTIONS: Record<string, Direction> = {
  request_latency: 'lower',
  time_to_first_token: 'lower',
  time_to_second_token: 'lower',
  inter_token_latency: 'lower',
  inter_chunk_latency: 'lower',
  request_throughput: 'higher',
  request_goodput: 'higher',
  goodput: 'higher',
  output_token_throughput: 'higher',
  output_token_throughput_per_user: 'higher',
  image_throughput: 'higher'
}

export function aiperfRows(src: JsonSource, doc: unknown): SampleRow[] {
  const top = src.object(
    doc,
    '',
    'profile_export_aiperf.json (or genai-perf’s profile_export_genai_perf.json)'
  )
  if (top.was_cancelled === true)
    throw src.error(
      'was_cancelled',
      true,
      'a run that finished (a cancelled run measured part of its requests)'
    )
  if (top.error_request_count !== undefined && top.error_request_count !== null) {
    const errors = src.object(top.error_request_count, 'error_request_count', '{unit, avg}')
    if (errors.avg !== undefined && errors.avg !== null && errors.avg !== 0)
      throw src.error(
        'error_request_count.avg',
        errors.avg,
        '0 (a run with failed requests leaves them out of its latencies)'
      )
  }
  const rows: SampleRow[] = []
  for (const [metric, better] of Object.entries(DIRECTIONS)) {
    const raw = top[metric]
    if (raw === undefined || raw === null) continue
    const result = src.object(raw, metric, '{unit, avg, p1 … p99, min, max, std}')
    const unit = src.name(result.unit, `${metric}.unit`, 'the metric’s unit, e.g. ms or tokens/sec')
    const stats = Object.keys(result).filter(k => STAT.test(k) && result[k] !== null)
    src.count(stats.length, metric)
    for (const stat of stats)
      rows.push({
        workload: AIPERF_WORKLOAD,
        metric: `${metric}.${stat}`,
        value: src.number(result[stat], `${metric}.${stat}`, unit),
        unit,
        better
      })
  }
  return src.withLatency(
    rows,
    '',
    'no latency metric',
    'request_latency, time_to_first_token or inter_token_latency objects (aiperf profile / genai-perf profile)'
  )
}
