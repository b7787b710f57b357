/**
 * Results are appended as they are produced (results.jsonl, samples.csv, runs.jsonl), so a crash, a
 * timeout or a cancel loses nothing already measured.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { RunRecord, SampleRecord } from '../types.js'

export const SAMPLE_CSV_COLUMNS = [
  'workload',
  'environment',
  'run',
  'iteration',
  'metric',
  'value',
  'unit',
  'scope',
  'throttled',
  'time',
  'gpu_name',
  'gpu_uuid',
  'driver',
  'image_digest',
  'gpu_access'
] as const

export function csvField(value: string | number | boolean | null | undefined): string {
  const s = value === null || value === undefined ? '' : String(value)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function sampleCsvRow(r: SampleRecord): string {
  const f = r.fingerprint
  return [
    r.workload,
    r.environment,
    r.run,
    r.iteration,
    r.metric,
    r.value,
    r.unit,
    r.scope,
    r.throttled ? 'true' : 'false',
    r.time,
    f.gpu_name,
    f.gpu_uuid,
    f.driver,
    f.image_digest,
    f.gpu_access
  ]
    .map(csvField)
    .join(',')
}

export interface ResultPaths {
  out: string
  results: string
  samples: string
  runs: string
  telemetry: string
  report: string
  summary: string
}

export function resultPaths(out: string): ResultPaths {
  return {
    out,
    results: path.join(out, 'results.jsonl'),
    samples: path.join(out, 'samples.csv'),
    runs: path.join(out, 'runs.jsonl'),
    telemetry: path.join(out, 'telemetry.csv'),
    report: path.join(out, 'report.md'),
    summary: path.join(out, 'summary.json')
  }
}

export class ResultsWriter {
  private constructor(readonly paths: ResultPaths) {}

  /** Creates the folder and fresh files (a previous check's results in the same folder are replaced). */
  static open(out: string): ResultsWriter {
    const paths = resultPaths(out)
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(paths.results, '')
    fs.writeFileSync(paths.runs, '')
    fs.writeFileSync(paths.samples, `${SAMPLE_CSV_COLUMNS.join(',')}\n`)
    return new ResultsWriter(paths)
  }

  appendSamples(records: SampleRecord[]): void {
    if (records.length === 0) return
    fs.appendFileSync(this.paths.results, records.map(r => `${JSON.stringify(r)}\n`).join(''))
    fs.appendFileSync(this.paths.samples, records.map(r => `${sampleCsvRow(r)}\n`).join(''))
  }

  appendRun(run: RunRecord): void {
    fs.appendFileSync(this.paths.runs, `${JSON.stringify(run)}\n`)
  }
}

/** Reads back results.jsonl; a torn last line (crash mid-write) is skipped. */
export function readResults(file: string): SampleRecord[] {
  const out: SampleRecord[] = []
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      out.push(JSON.parse(line) as SampleRecord)
    } catch {
      /* torn line */
    }
  }
  return out
}
