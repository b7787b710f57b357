/**
 * Results are appended as they are produced (results.jsonl, samples.csv, runs.jsonl), so a crash, a
 * timeout or a cancel loses nothing already measured.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { EnvironmentError } from '../util/errors.js'
import type { RecordSink, RunRecord, SampleRecord } from '../types/index.js'
import { canonicalParams } from '../util/params.js'

export const SAMPLE_CSV_COLUMNS = [
  'workload',
  'environment',
  'run',
  'iteration',
  'metric',
  'value',
  'unit',
  'better',
  'scope',
  'params',
  'throttled',
  'time',
  'gpu_name',
  'gpu_uuid',
  'driver',
  'image_digest',
  'gpu_access',
  'device',
  'gpu',
  'power_cap_w',
  'stack'
] as const

export function csvField(value: string | number | boolean | null | undefined): string {
  const s = value === null || value === undefined ? '' : String(value)
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** The power cap travels in its own column (the reader folds it back into the params). */
function paramsWithoutCap(params: Record<string, unknown>): Record<string, unknown> {
  const { power_cap_w: _cap, ...rest } = params
  return rest
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
    r.better,
    r.scope,
    // The baseline key needs the workload's params (and the device), so `analyze --baseline` can find
    // this check's entry in baseline.json from samples.csv alone.
    canonicalParams(paramsWithoutCap(r.params)),
    r.throttled ? 'true' : 'false',
    r.time,
    f.gpu_name,
    f.gpu_uuid,
    f.driver,
    f.image_digest,
    f.gpu_access,
    f.device,
    r.gpu,
    typeof r.params.power_cap_w === 'number' ? r.params.power_cap_w : null,
    f.stack ?? null
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

/** A file system error as one short clause: what happened, with its code. */
export function describeWriteError(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  const what: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EEXIST: 'a file (not a folder) is in the way',
    ENOTDIR: 'a file (not a folder) is in the way',
    EISDIR: 'a folder is where a file should be'
  }
  const known = e?.code ? what[e.code] : undefined
  if (known) return `${known} (${e.code})`
  return e instanceof Error ? e.message : String(error)
}

/**
 * mkdir -p that reports the real cause: a recursive mkdir says ENOENT on a read-only file system, so the
 * first missing folder is created on its own to surface EROFS / EACCES / ENOTDIR.
 */
function makeFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    let first = dir
    while (!fs.existsSync(path.dirname(first)) && path.dirname(first) !== first) first = path.dirname(first)
    fs.mkdirSync(first)
    throw error
  }
  if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' })
}

export class ResultsWriter implements RecordSink {
  /** The first write that failed: later appends are skipped and the runner stops the check. */
  private failure: string | null = null

  private constructor(readonly paths: ResultPaths) {}

  /**
   * Creates the folder and fresh files (a previous check's results in the same folder are replaced).
   * A folder that cannot be written is an EnvironmentError naming it, before anything runs.
   */
  static open(out: string): ResultsWriter {
    const paths = resultPaths(out)
    try {
      makeFolder(out)
      fs.writeFileSync(paths.results, '')
      fs.writeFileSync(paths.runs, '')
      fs.writeFileSync(paths.samples, `${SAMPLE_CSV_COLUMNS.join(',')}\n`)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const fix =
        code === 'ENOSPC' || code === 'EDQUOT'
          ? 'free space there, or choose another out'
          : 'choose another out'
      throw new EnvironmentError(
        `cannot write the results folder ${out} (input 'out'): ${describeWriteError(error)}; ${fix}`
      )
    }
    return new ResultsWriter(paths)
  }

  /** Why writing stopped (e.g. `the disk is full (ENOSPC)`), or null while every write succeeded. */
  get writeError(): string | null {
    return this.failure
  }

  // Appends run inside stream callbacks: a throw there would crash the process, so failures are
  // recorded instead. Once one write failed, nothing more is written (no torn lines after a gap).
  private guarded(file: string, write: () => void): void {
    if (this.failure) return
    try {
      write()
    } catch (error) {
      this.failure = `writing ${path.basename(file)} failed: ${describeWriteError(error)}`
    }
  }

  appendSamples(records: SampleRecord[]): void {
    if (records.length === 0) return
    this.guarded(this.paths.results, () =>
      fs.appendFileSync(this.paths.results, records.map(r => `${JSON.stringify(r)}\n`).join(''))
    )
    this.guarded(this.paths.samples, () =>
      fs.appendFileSync(this.paths.samples, records.map(r => `${sampleCsvRow(r)}\n`).join(''))
    )
  }

  appendRun(run: RunRecord): void {
    this.guarded(this.paths.runs, () => fs.appendFileSync(this.paths.runs, `${JSON.stringify(run)}\n`))
  }

  /**
   * Replaces `file` whole or not at all (temp file + rename), so a full disk keeps the previous version
   * (the INCOMPLETE placeholder) instead of a torn one. Returns why it failed, or null.
   */
  replaceFile(file: string, text: string): string | null {
    const tmp = `${file}.${process.pid}.tmp`
    try {
      fs.writeFileSync(tmp, text)
      fs.renameSync(tmp, file)
      return null
    } catch (error) {
      try {
        fs.rmSync(tmp, { force: true })
      } catch {
        // The folder itself is gone or unwritable: nothing more to clean.
      }
      return `writing ${path.basename(file)} failed: ${describeWriteError(error)}`
    }
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
