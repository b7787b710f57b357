/**
 * The results writer holds samples in memory and writes them in blocks (150k samples of one process once took
 * ~13 s of the runner's CPU in one write per sample per file). What must still hold: a process's samples are on
 * disk when its run record is, a full buffer goes out on its own, a write failure still surfaces, and a secret
 * registered after a name was first written is masked in every later sample.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ResultsWriter } from '../../src/results/store.js'
import type { SampleRecord } from '../../src/types/index.js'
import { clearSecrets, registerSecret } from '../../src/util/secrets.js'
import { H200_NATIVE } from '../__fixtures__/summaries/build.js'
import { runRecord } from '../helpers/run-record.js'

const params = { size: 64 }
const sample = (i: number, metric = 'kernel_ms'): SampleRecord => ({
  check_id: 'c',
  workload: 'matmul',
  environment: 'native',
  run: 1,
  iteration: i,
  metric,
  value: 1 + i / 1000,
  unit: 'ms',
  better: 'lower',
  scope: 'steady',
  time: '2026-11-27T21:00:00.000Z',
  params,
  fingerprint: H200_NATIVE
})
const run = runRecord({ params })

let dir: string
let writer: ResultsWriter
const lines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'writer-buffer-'))
  writer = ResultsWriter.open(path.join(dir, 'out'))
})
afterEach(() => {
  clearSecrets()
  fs.rmSync(dir, { recursive: true, force: true })
})

test("a process's samples are on disk when its run record is, in order, whole", () => {
  for (let i = 0; i < 10; i++) writer.appendSamples([sample(i)])
  writer.appendRun(run)
  const results = lines(writer.paths.results).map(l => JSON.parse(l) as SampleRecord)
  expect(results.map(r => r.iteration)).toEqual([...Array(10).keys()])
  expect(lines(writer.paths.samples)).toHaveLength(11) // the header and 10 rows
  expect(lines(writer.paths.runs)).toHaveLength(1)
})

test('a full buffer goes out without a flush; the rest waits for one', () => {
  const n = 2000 // ~1 MB of JSON lines: well past one block
  for (let i = 0; i < n; i++) writer.appendSamples([sample(i)])
  const onDisk = lines(writer.paths.results).length
  expect(onDisk).toBeGreaterThan(0)
  expect(onDisk).toBeLessThan(n)
  writer.flush()
  expect(lines(writer.paths.results)).toHaveLength(n)
  expect(lines(writer.paths.samples)).toHaveLength(n + 1)
})

test('reading writeError writes out what waits, so a failure still stops the check', () => {
  writer.appendSamples([sample(1)])
  expect(writer.writeError).toBeNull()
  expect(lines(writer.paths.results)).toHaveLength(1)
  // The results file's handle closed under the writer: the next write fails, and says so.
  const fds = (writer as unknown as { fds: Map<string, number> }).fds
  for (const fd of fds.values()) fs.closeSync(fd)
  writer.appendSamples([sample(2)])
  expect(writer.writeError).toMatch(/^writing (results\.jsonl|samples\.csv) failed: /)
})

test('a secret registered after a metric name was first written is masked in every later sample', () => {
  const name = 'kernel_ms_supersecretvalue'
  writer.appendSamples([sample(1, name)])
  registerSecret('supersecretvalue')
  writer.appendSamples([sample(2, name)])
  writer.flush()
  const metrics = lines(writer.paths.results).map(l => (JSON.parse(l) as SampleRecord).metric)
  expect(metrics[0]).toBe(name)
  expect(metrics[1]).not.toContain('supersecretvalue')
})
