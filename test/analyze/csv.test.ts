import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { readResultsCsv } from '../../src/results/csv/index.js'
import { InputError } from '../../src/util/errors.js'
import { SAMPLE_CSV_COLUMNS, sampleCsvRow } from '../../src/results/store.js'
import type { SampleRecord } from '../../src/types/index.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-csv-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, text: string): string {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}

const engines = ['auto', 'csv-parse'] as const

describe.each(engines)('reader %s', engine => {
  test('per-run means, units, scopes, extra and fingerprint columns', async () => {
    const p = file(
      `ok-${engine}.csv`,
      [
        'workload,environment,run,iteration,metric,value,unit,scope,gpu_name,driver,throttled',
        'matmul,native,1,0,kernel_ms,41.0,ms,steady,H200,580.1,false',
        'matmul,native,1,1,kernel_ms,43.0,ms,steady,H200,580.1,false',
        'matmul,native,1,2,kernel_ms,40.0,ms,steady,H200,580.1,false',
        'matmul,native,2,0,kernel_ms,42.5,ms,steady,H200,580.1,true',
        'matmul,native,1,0,launch_s,0.5,s,startup,H200,580.1,false',
        'matmul,container,1,0,kernel_ms,41.5,ms,steady,H200,580.1,false',
        'matmul,container,2,0,kernel_ms,41.7,ms,,H200,580.1,false',
        ''
      ].join('\n')
    )
    const r = await readResultsCsv(p, { engine })
    expect(r.rows).toBe(7)
    expect(r.environments).toEqual(['native', 'container'])
    expect(r.extraColumns).toEqual(['throttled'])
    expect(r.extras.native!['2']).toEqual({ throttled: 'true' })
    expect(r.fingerprints.native).toEqual({ gpu_name: 'H200', driver: '580.1' })
    const k = r.series.find(s => s.environment === 'native' && s.metric === 'kernel_ms')!
    expect(k.values).toEqual([124 / 3, 42.5])
    expect(k.iterations).toEqual([3, 1])
    expect(k.unit).toBe('ms')
    const launch = r.series.find(s => s.metric === 'launch_s')!
    expect(launch.scope).toBe('startup')
  })

  test('missing column → InputError naming the file and the column', async () => {
    const p = file(`nocol-${engine}.csv`, 'workload,environment,run,value\nm,native,1,3\n')
    const err = await readResultsCsv(p, { engine }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InputError)
    expect((err as Error).message).toContain(`${p}:1 (header)`)
    expect((err as Error).message).toContain('missing: metric')
  })

  test('non-numeric value → InputError naming file, line and column', async () => {
    const p = file(
      `nan-${engine}.csv`,
      'workload,environment,run,metric,value\nm,native,1,k_ms,1.5\n\nm,native,1,k_ms,abc\n'
    )
    const err = await readResultsCsv(p, { engine }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InputError)
    expect((err as InputError).input).toBe(`${p}:4 column 'value'`)
    expect((err as InputError).value).toBe('abc')
  })

  test('an empty value is missing, not zero', async () => {
    const p = file(`empty-${engine}.csv`, 'workload,environment,run,metric,value\nm,native,1,k_ms,\n')
    await expect(readResultsCsv(p, { engine })).rejects.toThrow(`${p}:2 column 'value'`)
  })

  test('wrong number of fields → InputError with the line', async () => {
    const p = file(`fields-${engine}.csv`, 'workload,environment,run,metric,value\nm,native,1,k_ms,1,extra\n')
    const err = await readResultsCsv(p, { engine }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InputError)
    expect((err as Error).message).toContain(`${p}:2`)
  })

  test('one metric with two units is refused', async () => {
    const p = file(
      `units-${engine}.csv`,
      'workload,environment,run,metric,value,unit\nm,native,1,k,1,ms\nm,native,1,k,2,s\n'
    )
    await expect(readResultsCsv(p, { engine })).rejects.toThrow(`${p}:3 column 'unit'`)
  })

  test('bad scope is refused', async () => {
    const p = file(
      `scope-${engine}.csv`,
      'workload,environment,run,metric,value,scope\nm,native,1,k,1,warm\n'
    )
    await expect(readResultsCsv(p, { engine })).rejects.toThrow(InputError)
  })
})

test('quoted fields (params JSON with commas) go through csv-parse; errors still name the line', async () => {
  const p = file(
    'quoted.csv',
    [
      // Two rows of one run need the iteration column that says they are one process's (issue 51).
      'workload,environment,run,iteration,metric,value,params',
      'llm,native,1,1,tpot_ms,20,"{""batch"":1,""seq"":128}"',
      'llm,native,1,2,tpot_ms,22,"{""batch"":1,""seq"":128}"',
      'llm,native,1,1,tpot_ms,30,"{""batch"":8,""seq"":128}"',
      'llm,container,1,1,tpot_ms,21,"{""batch"":1,""seq"":128}"',
      'llm,container,1,1,tpot_ms,"a,b","{""batch"":8,""seq"":128}"'
    ].join('\r\n')
  )
  const err = await readResultsCsv(p).catch((e: unknown) => e)
  expect((err as InputError).input).toBe(`${p}:6 column 'value'`)
  writeFileSync(p, readFileSync(p, 'utf8').replace('"a,b"', '31'))
  const r = await readResultsCsv(p)
  const native = r.series.filter(s => s.environment === 'native')
  expect(native.map(s => s.params).sort()).toEqual(['{"batch":1,"seq":128}', '{"batch":8,"seq":128}'])
  expect(native.find(s => s.params.includes('"batch":1'))!.values).toEqual([21])
})

test('file not found → InputError for --input', async () => {
  await expect(readResultsCsv(join(dir, 'nope.csv'))).rejects.toThrow("input '--input'")
})

test('both readers agree on a quote-free file with BOM, CRLF, blank lines and interleaved runs', async () => {
  const lines = ['\ufeffworkload,environment,run,iteration,metric,value,unit']
  let x = 1
  for (let i = 0; i < 400; i++) {
    x = (x * 48271) % 2147483647
    const env = i % 3 === 0 ? 'container' : 'native'
    lines.push(`w${i % 2},${env},${(i % 5) + 1},${i},m${i % 4}_ms,${(x / 2147483647) * 100},ms`)
    if (i % 50 === 0) lines.push('')
  }
  const p = file('agree.csv', lines.join('\r\n') + '\r\n')
  const a = await readResultsCsv(p, { engine: 'auto' })
  const b = await readResultsCsv(p, { engine: 'csv-parse' })
  expect(a.columns[0]).toBe('workload')
  expect(a).toEqual(b)
})

// Speed is a benchmark (npm run bench: ~1.2 s for 1,000,000 rows on 2 cores), not a timed test: a loaded
// CI machine must not fail it. This checks that a million rows stream through correctly.
test('1,000,000 rows stream through to 20 per-run medians per arm and metric', async () => {
  const p = join(dir, 'big.csv')
  const out = createWriteStream(p)
  out.write('workload,environment,run,iteration,metric,value,unit,scope\n')
  let rows = 0
  let chunk = ''
  for (const env of ['native', 'container'])
    for (let run = 1; run <= 20; run++)
      for (const metric of ['kernel_ms', 'tflops'])
        for (let it = 0; it < 12_500; it++) {
          chunk += `matmul,${env},${run},${it},${metric},${(41 + ((it * 7919) % 1000) / 1e4).toFixed(5)},${metric === 'tflops' ? 'TFLOP/s' : 'ms'},steady\n`
          if (++rows % 20_000 === 0) {
            if (!out.write(chunk)) await once(out, 'drain')
            chunk = ''
          }
        }
  out.end(chunk)
  await once(out, 'finish')
  expect(rows).toBe(1_000_000)
  const r = await readResultsCsv(p)
  expect(r.rows).toBe(1_000_000)
  expect(r.series).toHaveLength(4)
  expect(r.series.every(s => s.values.length === 20)).toBe(true)
})

test("reads the pipeline's own samples.csv (SAMPLE_CSV_COLUMNS / sampleCsvRow), fingerprints included", async () => {
  const fingerprint = {
    host: 'h',
    device: 'gpu' as const,
    gpu_name: 'NVIDIA H200',
    gpu_uuid: 'GPU-1',
    driver: '580.159.04',
    cuda: '13.0',
    image: null,
    image_digest: null,
    runtime: null,
    runtime_version: null,
    gpu_access: null,
    mig_mode: null,
    persistence_mode: null,
    clocks: null
  }
  const rows: SampleRecord[] = [1, 2].flatMap(run =>
    [0, 1, 2].map(iteration => ({
      check_id: 'c',
      workload: 'matmul',
      environment: 'native',
      run,
      iteration,
      metric: 'kernel_ms',
      value: 41 + iteration / 100,
      unit: 'ms',
      scope: 'steady' as const,
      time: '2026-01-01T00:00:00.000Z',
      throttled: iteration === 2,
      params: {},
      fingerprint: { ...fingerprint, image_digest: run === 2 ? 'sha256:x' : null }
    }))
  )
  const p = file('samples.csv', [SAMPLE_CSV_COLUMNS.join(','), ...rows.map(sampleCsvRow)].join('\n') + '\n')
  const r = await readResultsCsv(p)
  expect(r.series[0]!.values).toEqual([41.01, 41.01])
  expect(r.fingerprints.native).toEqual({
    gpu_name: 'NVIDIA H200',
    gpu_uuid: 'GPU-1',
    driver: '580.159.04',
    image_digest: 'sha256:x',
    device: 'gpu'
  })
  // gpu is read (the run's GPU: several are pooled as the check pools them), not kept as an extra column.
  expect(r.extraColumns).toEqual(['throttled', 'time'])
})

test('a power_cap_w column keeps runs at different caps apart (same run numbers, two series)', async () => {
  const lines = ['workload,environment,run,metric,value,unit,power_cap_w']
  for (const cap of [400, 700])
    for (const run of [1, 2, 3])
      lines.push(`matmul,native,${run},kernel_ms,${cap === 400 ? 60 + run : 41 + run / 10},ms,${cap}`)
  for (const run of [1, 2]) lines.push(`matmul,native,${run},kernel_ms,50,ms,`)
  const r = await readResultsCsv(file('caps.csv', lines.join('\n') + '\n'))
  const byParams = new Map(r.series.map(s => [s.params, s.values]))
  expect(byParams.get('{"power_cap_w":400}')).toEqual([61, 62, 63])
  expect(byParams.get('{"power_cap_w":700}')).toEqual([41.1, 41.2, 41.3])
  expect(byParams.get('')).toEqual([50, 50])
})
