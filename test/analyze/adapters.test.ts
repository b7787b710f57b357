/**
 * Result-format adapters on files recorded from the real tools (test/__fixtures__/adapters/README.md says
 * which tool and version wrote each): values, units and direction as the format declares them, and
 * malformed or oversized files refused with an error naming the file, the format and what was expected.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  parseResultInputs,
  readResultFile,
  readResults,
  RESULT_FILE_LIMITS
} from '../../src/results/adapters/index.js'
import { analyzeCommand } from '../../src/commands/analyze.js'
import { InputError } from '../../src/util/errors.js'

const FIX = join(import.meta.dirname, '..', '__fixtures__', 'adapters')
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-adapters-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function write(name: string, text: string): string {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}

test('hyperfine: every timed run is a sample in seconds, lower is better, per command', () => {
  const rows = readResultFile('hyperfine', join(FIX, 'hyperfine.json'))
  expect(rows).toHaveLength(16)
  expect(new Set(rows.map(r => r.workload))).toEqual(new Set(['sleep 0.01', 'sleep 0.02']))
  expect(rows.every(r => r.metric === 'time' && r.unit === 's' && r.better === 'lower')).toBe(true)
  expect(rows[0]).toMatchObject({ workload: 'sleep 0.01', value: 0.011900245, iteration: 0 })
  const slow = rows.filter(r => r.workload === 'sleep 0.02').map(r => r.value)
  expect(Math.min(...slow)).toBeGreaterThan(0.02) // sleep 0.02 never takes less than 20 ms
  expect(rows[8]).toMatchObject({ workload: 'sleep 0.02', value: 0.021468706 })
})

test('pytest-benchmark: each round of stats.data, in seconds, per test id', () => {
  const rows = readResultFile('pytest-benchmark', join(FIX, 'pytest-benchmark.json'))
  expect(rows).toHaveLength(36)
  expect([...new Set(rows.map(r => r.workload))]).toEqual([
    'test_bench.py::test_fib[8]',
    'test_bench.py::test_fib[12]',
    'test_bench.py::test_sorted'
  ])
  expect(rows.every(r => r.unit === 's' && r.better === 'lower' && r.metric === 'time')).toBe(true)
  expect(rows[0]!.value).toBe(6.202000349730952e-6)
  expect(rows[12]!.value).toBe(5.0304000069445465e-5)
})

test("pytest-benchmark 3.2.2 (Debian 12's, which CI and the examples run): the same fields, read the same", () => {
  const rows = readResultFile('pytest-benchmark', join(FIX, 'pytest-benchmark-3.2.2.json'))
  expect(rows).toHaveLength(36)
  expect([...new Set(rows.map(r => r.workload))]).toEqual([
    'test_bench.py::test_fib[8]',
    'test_bench.py::test_fib[12]',
    'test_bench.py::test_sorted'
  ])
  expect(rows.every(r => r.unit === 's' && r.better === 'lower' && r.metric === 'time')).toBe(true)
  expect(rows.map(r => r.iteration)).toEqual([0, 1, 2].flatMap(() => [...Array(12).keys()]))
  expect(rows[0]!.value).toBe(5.940999471931718e-6)
  expect(rows[12]!.value).toBe(2.886400034185499e-5)
  expect(rows[35]!.value).toBe(1.1782000001403503e-5)
})

test('pytest-benchmark saved without data: the median stands for the run', () => {
  const file = write(
    'pb-nodata.json',
    JSON.stringify({
      benchmarks: [{ fullname: 't.py::test_a', stats: { median: 0.25, mean: 0.3, rounds: 5 } }]
    })
  )
  expect(readResultFile('pytest-benchmark', file)).toEqual([
    { workload: 't.py::test_a', metric: 'time', value: 0.25, unit: 's', better: 'lower', iteration: 0 }
  ])
})

test('vllm bench serve --append-result (several objects) is not one run: refused', () => {
  const text = readFileSync(join(FIX, 'vllm-bench-serve.json'), 'utf8').trim()
  const file = write('vllm-appended.json', `${text}\n${text}\n`)
  expect(() => readResultFile('vllm-bench-serve', file)).toThrow(/\(vllm-bench-serve\)'.*one JSON document/)
})

test('Google Benchmark: repetitions are samples (aggregates skipped), times in time_unit, rates higher', () => {
  const rows = readResultFile('google-benchmark', join(FIX, 'google-benchmark.json'))
  const sort = rows.filter(r => r.workload === 'BM_Sort/256')
  expect(sort.filter(r => r.metric === 'real_time').map(r => r.value)).toEqual([
    1663.0261465439116, 2118.5537316021505, 1666.3459130255192
  ])
  expect(sort.find(r => r.metric === 'real_time')).toMatchObject({ unit: 'ns', better: 'lower' })
  expect(sort.find(r => r.metric === 'cpu_time')).toMatchObject({ unit: 'ns', better: 'lower' })
  expect(sort.find(r => r.metric === 'items_per_second')).toMatchObject({
    unit: 'items/s',
    better: 'higher',
    value: 258714598.7197877
  })
  expect(sort.find(r => r.metric === 'bytes_per_second')).toMatchObject({ unit: 'B/s', better: 'higher' })
  const acc = rows.filter(r => r.workload === 'BM_Accumulate')
  // Unit(kMicrosecond) is honoured; the user counter sum_calls has no direction and is not read.
  expect(acc.map(r => r.metric).sort()).toEqual([
    'cpu_time',
    'cpu_time',
    'cpu_time',
    'real_time',
    'real_time',
    'real_time'
  ])
  expect(acc.every(r => r.unit === 'us')).toBe(true)
  expect(rows.some(r => /_(mean|median|stddev|cv)$/.test(r.workload))).toBe(false)
})

test('Google Benchmark: items_per_second and bytes_per_second are functions of the time: shown, not gated', async () => {
  const rows = readResultFile('google-benchmark', join(FIX, 'google-benchmark.json'))
  const scopes = new Map(rows.map(r => [r.metric, r.scope]))
  expect([...scopes]).toEqual([
    ['real_time', undefined],
    ['cpu_time', undefined],
    ['items_per_second', 'derived'],
    ['bytes_per_second', 'derived']
  ])
  // Through analyze: the two times are the gated family; the rates are shown beside them, never tested again.
  // A file is one run: the recorded file as each arm's two runs, under four names.
  const text = readFileSync(join(FIX, 'google-benchmark.json'), 'utf8')
  const runs = ['n1', 'n2', 'c1', 'c2'].map(n => write(`gb-${n}.json`, text))
  const { analysis } = await analyzeCommand({
    input: runs.map((f, i) => `${i < 2 ? 'native' : 'container'}=${f}`),
    formatIn: 'google-benchmark',
    format: 'json',
    maxOverheadPct: 2,
    alpha: 0.05
  })
  const sort = analysis.comparisons.filter(c => c.workload === 'BM_Sort/256')
  const byMetric = Object.fromEntries(sort.map(c => [c.metric, c]))
  for (const m of ['items_per_second', 'bytes_per_second']) {
    expect(byMetric[m]!.scope).toBe('derived')
    expect(byMetric[m]!.reason).toMatch(/^Derived from a gated metric, shown and not tested again/)
  }
  // The gated (Holm) family of this benchmark: its two times only.
  expect(sort.filter(c => c.scope === 'steady').map(c => c.metric)).toEqual(['real_time', 'cpu_time'])
})

test('Google Benchmark: a file with aggregates only gives the median; an errored benchmark is refused', () => {
  const only = write(
    'gb-aggregates.json',
    JSON.stringify({
      context: {},
      benchmarks: [
        {
          name: 'BM_X_mean',
          run_name: 'BM_X',
          run_type: 'aggregate',
          aggregate_name: 'mean',
          real_time: 9,
          cpu_time: 9,
          time_unit: 'ms'
        },
        {
          name: 'BM_X_median',
          run_name: 'BM_X',
          run_type: 'aggregate',
          aggregate_name: 'median',
          real_time: 7,
          cpu_time: 6,
          time_unit: 'ms'
        }
      ]
    })
  )
  expect(readResultFile('google-benchmark', only)).toEqual([
    { workload: 'BM_X', metric: 'real_time', value: 7, unit: 'ms', better: 'lower', iteration: 0 },
    { workload: 'BM_X', metric: 'cpu_time', value: 6, unit: 'ms', better: 'lower', iteration: 0 }
  ])
  const errored = write(
    'gb-error.json',
    JSON.stringify({
      benchmarks: [
        {
          name: 'BM_Y',
          run_type: 'iteration',
          error_occurred: true,
          error_message: 'x',
          real_time: 0,
          cpu_time: 0,
          time_unit: 'ns'
        }
      ]
    })
  )
  expect(() => readResultFile('google-benchmark', errored)).toThrow(
    /gb-error\.json \(google-benchmark\) at benchmarks\[0\]\.error_occurred/
  )
  const badUnit = write(
    'gb-unit.json',
    JSON.stringify({ benchmarks: [{ name: 'BM_Z', real_time: 1, cpu_time: 1, time_unit: 'fortnight' }] })
  )
  expect(() => readResultFile('google-benchmark', badUnit)).toThrow('allowed: ns, us, ms, s')
})

test('vllm bench serve: latency summaries in ms (lower), throughputs (higher), std and counts not read', () => {
  const rows = readResultFile('vllm-bench-serve', join(FIX, 'vllm-bench-serve.json'))
  const by = Object.fromEntries(rows.map(r => [r.metric, r]))
  expect(Object.keys(by).sort()).toEqual(
    [
      'mean_e2el_ms',
      'mean_itl_ms',
      'mean_tpot_ms',
      'mean_ttft_ms',
      'median_e2el_ms',
      'median_itl_ms',
      'median_tpot_ms',
      'median_ttft_ms',
      'output_throughput',
      'p99.9_e2el_ms',
      'p99.9_itl_ms',
      'p99.9_tpot_ms',
      'p99.9_ttft_ms',
      'p99_e2el_ms',
      'p99_itl_ms',
      'p99_tpot_ms',
      'p99_ttft_ms',
      'request_throughput',
      'total_token_throughput'
    ].sort()
  )
  expect(by.p99_ttft_ms).toMatchObject({
    workload: 'vllm-bench-serve',
    value: 635.37,
    unit: 'ms',
    better: 'lower'
  })
  expect(by.output_throughput).toMatchObject({ value: 35.8, unit: 'tok/s', better: 'higher' })
  expect(by.request_throughput).toMatchObject({ value: 0.24, unit: 'req/s', better: 'higher' })
  const failed = write('vllm-failed.json', JSON.stringify({ completed: 9, failed: 1, mean_ttft_ms: 5 }))
  expect(() => readResultFile('vllm-bench-serve', failed)).toThrow(
    /vllm-failed\.json \(vllm-bench-serve\) at failed': got 1/
  )
  const none = write('vllm-none.json', JSON.stringify({ completed: 3, failed: 0, duration: 1 }))
  expect(() => readResultFile('vllm-bench-serve', none)).toThrow('mean_ttft_ms')
})

test('github-action-benchmark custom JSON: direction from the tool name, units as written', () => {
  const bigger = readResultFile('customBiggerIsBetter', join(FIX, 'customBiggerIsBetter_output.json'))
  expect(bigger).toEqual([
    {
      workload: 'My Custom Bigger Is Better Benchmark - Throughput',
      metric: 'value',
      value: 70,
      unit: 'req/s',
      better: 'higher'
    },
    {
      workload: 'My Custom Bigger Is Better Benchmark - Free Memory',
      metric: 'value',
      value: 150,
      unit: 'Megabytes',
      better: 'higher'
    }
  ])
  const smaller = readResultFile('customSmallerIsBetter', join(FIX, 'customSmallerIsBetter_output2.json'))
  expect(smaller.map(r => [r.workload, r.value, r.unit, r.better])).toEqual([
    ['No instrumentation', 90.9439, 'ns', 'lower'],
    ['Deactivated probe', 445.661, 'ns', 'lower'],
    ['No logging', 1847.38, 'ns', 'lower'],
    ['Binary file', 3886.75, 'ns', 'lower']
  ])
})

describe('malformed and hostile files are refused with a named error', () => {
  const cases: [string, string, string, RegExp][] = [
    [
      'not JSON',
      'hyperfine',
      '{"results": [',
      /\(hyperfine\)': got "\d+ characters"; allowed: one JSON document/
    ],
    [
      'wrong top level',
      'hyperfine',
      '[1,2]',
      /\(hyperfine\)': got "a list"; allowed: an object \(hyperfine --export-json/
    ],
    ['missing list', 'pytest-benchmark', '{"benchmarks": 3}', /at benchmarks': got "3"; allowed: a list/],
    [
      'negative time',
      'hyperfine',
      '{"results":[{"command":"x","times":[0.1,-1]}]}',
      /at results\[0\]\.times\[1\]': got -1; allowed: a finite number ≥ 0 \(seconds\)/
    ],
    [
      'text time',
      'pytest-benchmark',
      '{"benchmarks":[{"fullname":"t","stats":{"data":["1"]}}]}',
      /at benchmarks\[0\]\.stats\.data\[0\]/
    ],
    [
      'failed command',
      'hyperfine',
      '{"results":[{"command":"x","times":[0.1],"exit_codes":[1]}]}',
      /exit_codes\[0\]': got 1; allowed: 0/
    ],
    [
      'control character in a name',
      'customSmallerIsBetter',
      '[{"name":"a\\u001b[31m","unit":"ns","value":1}]',
      /at \[0\]\.name/
    ],
    [
      'over-long name',
      'customBiggerIsBetter',
      JSON.stringify([{ name: 'n'.repeat(201), unit: 'x', value: 1 }]),
      /at most 200 characters/
    ],
    ['no benchmark', 'customBiggerIsBetter', '[]', /at least one benchmark/],
    [
      'deep nesting',
      'hyperfine',
      '['.repeat(5000) + ']'.repeat(5000),
      /got "nesting depth 5000"; allowed: JSON nested at most 32 deep/
    ]
  ]
  test.each(cases)('%s', (name, format, text, message) => {
    const file = write(`bad-${name.replace(/\W+/g, '-')}.json`, text)
    let caught: unknown
    try {
      readResultFile(format, file)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(InputError)
    expect((caught as Error).message).toContain(file)
    expect((caught as Error).message).toMatch(message)
  })

  test('too many values and too large a file', () => {
    const many = write(
      'many.json',
      JSON.stringify({
        results: [{ command: 'x', times: new Array(RESULT_FILE_LIMITS.values + 1).fill(0.1) }]
      })
    )
    expect(() => readResultFile('hyperfine', many)).toThrow(
      `at most ${RESULT_FILE_LIMITS.values} values in one file`
    )
    const big = write('big.json', ' '.repeat(RESULT_FILE_LIMITS.bytes + 1))
    expect(() => readResultFile('hyperfine', big)).toThrow(/big\.json \(hyperfine\)'.*at most 67108864 bytes/)
    expect(() => readResultFile('hyperfine', dir)).toThrow(/not a regular file/)
  })
})

test('inputs: ENV=FILE pairs number runs per arm in order; bad pairs and formats name what is allowed', async () => {
  expect(parseResultInputs(['native=a.json,native=b.json', 'container=c.json'])).toEqual([
    { environment: 'native', file: 'a.json', run: 1 },
    { environment: 'native', file: 'b.json', run: 2 },
    { environment: 'container', file: 'c.json', run: 1 }
  ])
  expect(() => parseResultInputs(['a.json'])).toThrow('ENV=FILE pairs')
  expect(() => parseResultInputs(['native=a.json,native=a.json'])).toThrow('each file once per environment')
  expect(() => parseResultInputs(['na tive=a.json'])).toThrow(InputError)
  await expect(readResults('junit', ['native=a.json'])).rejects.toThrow(
    'input \'--format-in\': got "junit"; allowed: csv, hyperfine, pytest-benchmark, google-benchmark, vllm-bench-serve, sglang-bench-serving, trtllm-bench, aiperf, customSmallerIsBetter, customBiggerIsBetter'
  )
  await expect(readResults('csv', ['native=a.csv'])).rejects.toThrow('one long-format CSV file')
})

test('a unit that changes between runs of one arm is refused, naming the column', async () => {
  const a = write('u1.json', JSON.stringify([{ name: 'b', unit: 'ns', value: 1 }]))
  const b = write('u2.json', JSON.stringify([{ name: 'b', unit: 'ms', value: 1 }]))
  await expect(readResults('customSmallerIsBetter', [`native=${a},native=${b}`])).rejects.toThrow(
    /column 'unit'/
  )
})
