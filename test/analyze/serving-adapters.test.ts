/**
 * Issue 40: the serving benchmarks' own reports beside vLLM's. The fixtures (test/__fixtures__/adapters/README.md)
 * are written in each tool's format as its source writes it, since none can run here without a served model on a
 * GPU; the keys, nesting and value types follow, file by file:
 * - sglang-bench-serving.jsonl: python/sglang/bench_serving.py of sgl-project/sglang (commit 0033168), `benchmark()`:
 *   the `result` dict appended with `json.dumps(result) + "\n"` (request_rate inf written as Python's `Infinity`);
 * - trtllm-bench-report.json: tensorrt_llm/bench/dataclasses/reporting.py of NVIDIA/TensorRT-LLM (commit 0249976),
 *   `ReportUtility.get_statistics_dict`, with `PercentileStats` of tensorrt_llm/bench/dataclasses/statistics.py
 *   (commit 77d7fe1: p50, p90, p95, p99, minimum, maximum, average);
 * - aiperf-profile-export.json: aiperf/common/models/export_models.py (`JsonMetricResult`, `JsonExportData`) and
 *   aiperf/exporters/json_exporter.py of ai-dynamo/aiperf (commit db4f6397);
 * - genai-perf-profile-export.json: genai-perf/genai_perf/metrics/statistics.py (`_add_units`, percentiles
 *   1…99, min, max, std; system metrics avg only) and export_data/json_exporter.py of
 *   triton-inference-server/perf_analyzer (commit 263c5f6e).
 * Each percentile is a metric with its unit and direction; each format, through `analyze`, flags a +5% regression.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readResultFile } from '../../src/results/adapters/index.js'
import type { SampleRow } from '../../src/results/adapters/index.js'
import { InputError } from '../../src/util/errors.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const FIX = join(import.meta.dirname, '..', '__fixtures__', 'adapters')
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-serving-adapters-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const byMetric = (rows: SampleRow[]): Map<string, SampleRow> => new Map(rows.map(r => [r.metric, r]))

test('SGLang bench_serving JSONL: every line a repeat of the run; pNN, mean and median in ms, throughputs higher', () => {
  const rows = readResultFile('sglang-bench-serving', join(FIX, 'sglang-bench-serving.jsonl'))
  expect(new Set(rows.map(r => r.workload))).toEqual(new Set(['sglang-bench-serving']))
  const first = byMetric(rows.filter(r => r.iteration === 0))
  expect(first.get('p99_ttft_ms')).toMatchObject({ value: 261.3, unit: 'ms', better: 'lower' })
  expect(first.get('p95_itl_ms')).toMatchObject({ value: 13.9, unit: 'ms', better: 'lower' })
  expect(first.get('p99_e2e_latency_ms')).toMatchObject({ value: 3498.1, unit: 'ms', better: 'lower' })
  expect(first.get('median_tpot_ms')).toMatchObject({ unit: 'ms', better: 'lower' })
  expect(first.get('output_throughput')).toMatchObject({ value: 1222.8, unit: 'tok/s', better: 'higher' })
  expect(first.get('request_throughput')).toMatchObject({ unit: 'req/s', better: 'higher' })
  // A spread is not a level; the run's own settings and counts are not performance.
  for (const skipped of ['std_ttft_ms', 'concurrency', 'request_rate', 'completed', 'duration'])
    expect(first.has(skipped)).toBe(false)
  expect(rows.filter(r => r.metric === 'p99_ttft_ms').map(r => r.iteration)).toEqual([0, 1])
})

test('SGLang: lines of another setting in one file, and a line without latencies, are refused by line', () => {
  const line = readFileSync(join(FIX, 'sglang-bench-serving.jsonl'), 'utf8').split('\n')[0]!
  const other = line.replace('"max_concurrency": 16', '"max_concurrency": 64')
  const mixed = join(dir, 'mixed.jsonl')
  writeFileSync(mixed, `${line}\n${other}\n`)
  expect(() => readResultFile('sglang-bench-serving', mixed)).toThrow(
    /at line 2.*one benchmark setting a file/
  )
  const bare = join(dir, 'bare.jsonl')
  writeFileSync(bare, '{"completed": 3, "request_throughput": 1.0}\n')
  expect(() => readResultFile('sglang-bench-serving', bare)).toThrow(InputError)
  expect(() => readResultFile('sglang-bench-serving', bare)).toThrow(/at line 1.*p99_ttft_ms/)
})

test('trtllm-bench --report_json: performance.* and streaming_metrics.* percentiles, min/max left out', () => {
  const rows = byMetric(readResultFile('trtllm-bench', join(FIX, 'trtllm-bench-report.json')))
  expect(rows.get('request_latency_percentiles_ms.p99')).toMatchObject({
    value: 31834.66,
    unit: 'ms',
    better: 'lower'
  })
  expect(rows.get('ttft_percentiles.p99')).toMatchObject({ value: 17432.76, unit: 'ms', better: 'lower' })
  expect(rows.get('tpot_percentiles.p90')).toMatchObject({ value: 123.0422, unit: 'ms', better: 'lower' })
  expect(rows.get('tpot_percentiles.average')).toMatchObject({ value: 90.2335 })
  expect(rows.get('gen_tps_percentiles.p50')).toMatchObject({ unit: 'tok/s', better: 'higher' })
  expect(rows.get('avg_ttft_ms')).toMatchObject({ value: 8412.43, better: 'lower' })
  expect(rows.get('system_output_throughput_tok_s')).toMatchObject({
    value: 3939.46,
    unit: 'tok/s',
    better: 'higher'
  })
  expect(rows.get('request_throughput_req_s')).toMatchObject({ unit: 'req/s', better: 'higher' })
  for (const skipped of ['ttft_percentiles.minimum', 'ttft_percentiles.maximum', 'total_latency_ms'])
    expect(rows.has(skipped)).toBe(false)
  expect([...rows.values()].every(r => r.workload === 'trtllm-bench')).toBe(true)
})

test('AIPerf and genai-perf: every avg and percentile of the known metrics, unit from the file', () => {
  for (const file of ['aiperf-profile-export.json', 'genai-perf-profile-export.json']) {
    const rows = byMetric(readResultFile('aiperf', join(FIX, file)))
    for (const p of ['p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99', 'avg'])
      expect(rows.get(`time_to_first_token.${p}`)).toMatchObject({ unit: 'ms', better: 'lower' })
    expect(rows.get('inter_token_latency.p99')).toMatchObject({ unit: 'ms', better: 'lower' })
    expect(rows.get('request_throughput.avg')).toMatchObject({ unit: 'requests/sec', better: 'higher' })
    expect(rows.get('output_token_throughput_per_user.p1')).toMatchObject({
      unit: 'tokens/sec/user',
      better: 'higher'
    })
    // Counts, lengths, min/max and std are not performance levels.
    for (const skipped of [
      'output_sequence_length.avg',
      'request_count.avg',
      'time_to_first_token.min',
      'time_to_first_token.std'
    ])
      expect(rows.has(skipped)).toBe(false)
  }
  const aiperf = byMetric(readResultFile('aiperf', join(FIX, 'aiperf-profile-export.json')))
  expect(aiperf.get('time_to_first_token.p99')!.value).toBe(104.6)
})

test('AIPerf: a run with failed requests or a cancelled run is refused', () => {
  const doc = JSON.parse(readFileSync(join(FIX, 'aiperf-profile-export.json'), 'utf8')) as Record<
    string,
    unknown
  >
  const failed = join(dir, 'failed.json')
  writeFileSync(failed, JSON.stringify({ ...doc, error_request_count: { unit: 'requests', avg: 3 } }))
  expect(() => readResultFile('aiperf', failed)).toThrow(/error_request_count\.avg.*failed requests/)
  const cancelled = join(dir, 'cancelled.json')
  writeFileSync(cancelled, JSON.stringify({ ...doc, was_cancelled: true }))
  expect(() => readResultFile('aiperf', cancelled)).toThrow(/was_cancelled/)
})

/** A JSON value with its latencies (by path: ms, ttft, tpot, itl, latency) × `lat` and its rates × `thr`. */
function scaled(value: unknown, lat: number, thr: number, at = ''): unknown {
  if (Array.isArray(value)) return value.map((v, i) => scaled(v, lat, thr, `${at}[${i}]`))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, scaled(v, lat, thr, at === '' ? k : `${at}.${k}`)])
    )
  if (typeof value !== 'number' || !Number.isFinite(value)) return value
  if (/throughput|tok_s|req_s|gen_tps|speed/.test(at)) return value * thr
  if (/_ms|ttft|tpot|itl|latency|time_to/.test(at)) return value * lat
  return value
}

/** One run's file: the fixture's lines (JSONL) or document, scaled; Python's `Infinity` kept as it wrote it. */
function runFile(text: string, jsonl: boolean, lat: number, thr: number): string {
  const one = (t: string): string =>
    JSON.stringify(scaled(JSON.parse(t.replace(/\bInfinity\b/g, '"INF"')), lat, thr)).replace(
      /"INF"/g,
      'Infinity'
    )
  return jsonl
    ? text
        .split('\n')
        .filter(l => l.trim() !== '')
        .map(one)
        .join('\n')
    : one(text)
}

async function analyze(
  format: string,
  inputs: string[],
  extra: string[] = []
): Promise<{ code: number; json: Record<string, unknown> }> {
  const r = await mainInProcess([
    'analyze',
    '--format-in',
    format,
    '--input',
    inputs.join(','),
    '--format',
    'json',
    ...extra
  ])
  return { code: r.code, json: JSON.parse(r.stdout) as Record<string, unknown> }
}

/** Small run-to-run noise (±0.3%), the same for both arms' run k: the container's runs are +5% slower. */
const NOISE = [1.0, 1.003, 0.997, 1.002, 0.998]

test.each([
  ['sglang-bench-serving', 'sglang-bench-serving.jsonl', 'p99_ttft_ms'],
  ['trtllm-bench', 'trtllm-bench-report.json', 'ttft_percentiles.p99'],
  ['aiperf', 'aiperf-profile-export.json', 'time_to_first_token.p99'],
  ['aiperf', 'genai-perf-profile-export.json', 'inter_token_latency.p99']
])('%s (%s): analyze flags a +5%% regression in the container arm', async (format, fixture, metric) => {
  const text = readFileSync(join(FIX, fixture), 'utf8')
  const inputs: string[] = []
  NOISE.forEach((n, k) => {
    for (const [arm, slower] of [
      ['native', 1],
      ['container', 1.05]
    ] as const) {
      const file = join(dir, `${fixture}-${arm}-${k}`)
      writeFileSync(
        file,
        `${runFile(text, format === 'sglang-bench-serving', n * slower, 1 / (n * slower))}\n`
      )
      inputs.push(`${arm}=${file}`)
    }
  })
  const r = await analyze(format, inputs)
  expect(r.code).toBe(1)
  expect(r.json['verdict']).toBe('regression')
  const comparisons = r.json['comparisons'] as {
    metric: string
    verdict: string
    overhead_pct: number
    unit?: string
  }[]
  const c = comparisons.find(x => x.metric === metric)
  expect(c).toBeDefined()
  expect(c!.verdict).toBe('regression')
  expect(c!.overhead_pct).toBeGreaterThan(4.5)
  expect(c!.overhead_pct).toBeLessThan(5.5)
})

describe('tail percentiles of a result file: shown, gated only when named (issue 39)', () => {
  /** vLLM runs whose container arm has p99/p99.9 latencies +10% and every mean and median unchanged. */
  function tailInputs(): string[] {
    const doc = JSON.parse(readFileSync(join(FIX, 'vllm-bench-serve.json'), 'utf8')) as Record<
      string,
      unknown
    >
    const inputs: string[] = []
    NOISE.forEach((n, k) => {
      for (const [arm, tail] of [
        ['native', 1],
        ['container', 1.1]
      ] as const) {
        const run = Object.fromEntries(
          Object.entries(doc).map(([key, v]) =>
            typeof v !== 'number' || !/_ms$/.test(key)
              ? [key, v]
              : [key, v * n * (/^p9/.test(key) ? tail : 1)]
          )
        )
        const file = join(dir, `vllm-tail-${arm}-${k}.json`)
        writeFileSync(file, JSON.stringify(run))
        inputs.push(`${arm}=${file}`)
      }
    })
    return inputs
  }
  type C = { metric: string; verdict: string; scope: string; overhead_pct: number }

  it('not named: p99_tpot_ms is tested and shown (+10%), the means gate and pass; a note says how to gate it', async () => {
    const r = await analyze('vllm-bench-serve', tailInputs())
    const comparisons = r.json['comparisons'] as C[]
    const p99 = comparisons.find(c => c.metric === 'p99_tpot_ms')!
    expect(p99.scope).toBe('tail')
    expect(p99.overhead_pct).toBeCloseTo(10, 0)
    expect(comparisons.find(c => c.metric === 'mean_tpot_ms')!.scope).toBe('steady')
    expect(r.json['verdict']).not.toBe('regression')
    expect(r.code).toBe(0)
    expect(JSON.stringify(r.json['notes'])).toMatch(
      /vllm-bench-serve: tail percentiles .*p99_tpot_ms.* not gated; (--)?gate-metrics/
    )
  })

  it('named in --gate-metrics: p99_tpot_ms gates and the check fails', async () => {
    const r = await analyze('vllm-bench-serve', tailInputs(), [
      '--gate-metrics',
      'vllm-bench-serve/p99_tpot_ms'
    ])
    const p99 = (r.json['comparisons'] as C[]).find(c => c.metric === 'p99_tpot_ms')!
    expect(p99.scope).toBe('steady')
    expect(p99.verdict).toBe('regression')
    expect(r.json['verdict']).toBe('regression')
    expect(r.code).toBe(1)
  })

  it('refuses a --gate-metrics entry that is not a tail metric, naming the flag (exit 2)', async () => {
    const r = await mainInProcess([
      'analyze',
      '--format-in',
      'vllm-bench-serve',
      '--input',
      tailInputs().join(','),
      '--gate-metrics',
      'vllm-bench-serve/mean_tpot_ms'
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--gate-metrics.*mean_tpot_ms/)
  })
})

describe('result keys named like Object.prototype members (untrusted files)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proto-keys-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  it.each([
    ['vllm-bench-serve', 'vllm-bench-serve.json'],
    ['sglang-bench-serving', 'sglang-bench-serving.jsonl']
  ] as const)('%s: `constructor`, `toString` and `__proto__` are not metrics', (format, fixture) => {
    const text = readFileSync(join(FIX, fixture), 'utf8').trim().split('\n')
    const withKeys = text.map(line =>
      line.replace(/^\{/, '{"constructor": 5, "toString": 6, "__proto__": 7, "hasOwnProperty": 8, ')
    )
    const file = join(dir, fixture)
    writeFileSync(file, withKeys.join('\n') + '\n')
    const rows = readResultFile(format, file)
    expect(rows.length).toBe(readResultFile(format, join(FIX, fixture)).length)
    expect(rows.map(r => r.metric)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(constructor|toString|__proto__|hasOwnProperty)$/)])
    )
    expect(rows.every(r => typeof r.unit === 'string')).toBe(true)
  })
})

test('knownMetric reads own keys only: a metric named `constructor` is not in the table', async () => {
  const { knownMetric } = await import('../../src/results/known-metrics.js')
  expect(knownMetric('llm', 'tpot_ms')).toEqual({ better: 'lower' })
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    expect(knownMetric('llm', name)).toBeUndefined()
    expect(knownMetric(name, 'tpot_ms')).toBeUndefined()
  }
})
