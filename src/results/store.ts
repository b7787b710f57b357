/**
 * Results are appended as they are produced (results.jsonl, samples.csv, runs.jsonl), so a crash, a
 * timeout or a cancel loses nothing already measured.
 */
import type * as fs from 'node:fs'
import * as path from 'node:path'
import { EnvironmentError } from '../util/errors.js'
import { claimFolder } from '../util/owned-folder.js'
import {
  READ_LIMITS,
  UnsafePathError,
  openAppend,
  readUntrusted,
  safeReplace,
  writeAll
} from '../util/safe-fs.js'
import type { RecordSink, RunRecord, SampleRecord } from '../types/index.js'
import { canonicalParams } from '../util/params.js'
import { csvCell } from '../util/text.js'
import { redact, redactDeep, redactName } from '../util/secrets.js'

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
  'stack',
  'interleave'
] as const

/** The power cap travels in its own column (the reader folds it back into the params). */
function paramsWithoutCap(params: Record<string, unknown>): Record<string, unknown> {
  const { power_cap_w: _cap, ...rest } = params
  return rest
}

/** A process's samples share one params object: its canonical form is built once, not per sample. */
const CSV_PARAMS = new WeakMap<SampleRecord['params'], string>()
function csvParams(params: SampleRecord['params']): string {
  let out = CSV_PARAMS.get(params)
  if (out === undefined) CSV_PARAMS.set(params, (out = canonicalParams(paramsWithoutCap(params))))
  return out
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
    csvParams(r.params),
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
    f.stack ?? null,
    r.interleave ?? null
  ]
    .map(csvCell)
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
  /** What each failed process (and each arm's first) printed on stdout/stderr, bounded: the runs' logs. */
  logs: string
}

export function resultPaths(out: string): ResultPaths {
  return {
    out,
    results: path.join(out, 'results.jsonl'),
    samples: path.join(out, 'samples.csv'),
    runs: path.join(out, 'runs.jsonl'),
    telemetry: path.join(out, 'telemetry.csv'),
    report: path.join(out, 'report.md'),
    summary: path.join(out, 'summary.json'),
    logs: path.join(out, 'run-logs.txt')
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

/** Files an earlier run of the tool leaves in the results folder: removed before a new run. */
export function isToolOutput(name: string, st: fs.Stats): boolean {
  if (st.isDirectory()) return name === IO_FOLDER || name.startsWith(WORK_FOLDER_PREFIX)
  return (
    RESULT_FILES.includes(name) ||
    /^paper(-[\w.-]+)?\.csv$/.test(name) ||
    /^\..+\.tmp$/.test(name) ||
    /\.\d+\.tmp$/.test(name)
  )
}

/**
 * Name prefix of a check's work folder (execute/run-folders.ts): without RUNNER_TEMP it lives in the results
 * folder, and a crash leaves it behind.
 */
export const WORK_FOLDER_PREFIX = '.gpu-overhead-work-'
/** The io workload's synthetic dataset and checkpoint folders live here, under the results folder. */
export const IO_FOLDER = 'io'
const RESULT_FILES = [
  'results.jsonl',
  'samples.csv',
  'runs.jsonl',
  'telemetry.csv',
  'report.md',
  'summary.json',
  'power-restore.json',
  'run-logs.txt'
]

/** Why the results folder cannot be used, as one clause. */
function describeOpenError(error: unknown): string {
  if (!(error instanceof UnsafePathError)) return describeWriteError(error)
  if (error.code === 'not-folder') return `a file (not a folder) is in the way (${error.file})`
  return `${error.file} ${error.reason}`
}

/** Samples held in memory before they are written out (see ResultsWriter.buffer). */
const FLUSH_BYTES = 64 * 1024

export class ResultsWriter implements RecordSink {
  /** The first write that failed: later appends are skipped and the runner stops the check. */
  private failure: string | null = null

  /** Append handles, opened once without following a link (util/safe-fs): one open per check, not per sample. */
  private readonly fds = new Map<string, number>()

  private constructor(readonly paths: ResultPaths) {}

  /**
   * Samples wait here per file and go out in blocks of FLUSH_BYTES: one write per sample per file cost 150k
   * samples of one process ~13 s of the runner's CPU (two syscalls each). Everything else the writer does, and
   * reading `writeError`, writes them out first, so each process's samples are on disk when its run record is.
   */
  private readonly pending = new Map<string, string[]>()
  private pendingBytes = 0

  private append(file: string, text: string): void {
    let fd = this.fds.get(file)
    if (fd === undefined) this.fds.set(file, (fd = openAppend(file, { root: this.paths.out })))
    writeAll(fd, text)
  }

  private buffer(file: string, text: string): void {
    let parts = this.pending.get(file)
    if (parts === undefined) this.pending.set(file, (parts = []))
    parts.push(text)
    this.pendingBytes += text.length
    if (this.pendingBytes >= FLUSH_BYTES) this.flush()
  }

  /** Writes out the samples still held in memory (a failure is kept as `writeError`, like any write's). */
  flush(): void {
    if (this.pendingBytes === 0) return
    const files = [...this.pending]
    this.pending.clear()
    this.pendingBytes = 0
    for (const [file, parts] of files) this.guarded(file, () => this.append(file, parts.join('')))
  }

  /**
   * Creates the folder and fresh files (a previous check's results in the same folder are replaced).
   * A folder that cannot be written is an EnvironmentError naming it, before anything runs.
   */
  static open(out: string, root: string = path.dirname(out)): ResultsWriter {
    const paths = resultPaths(out)
    try {
      // Fresh, or an earlier run's folder with its files removed; never a link or foreign content.
      claimFolder(out, { root, removable: isToolOutput })
      safeReplace(paths.results, '')
      safeReplace(paths.runs, '')
      safeReplace(paths.logs, '')
      safeReplace(paths.samples, `${SAMPLE_CSV_COLUMNS.join(',')}\n`)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const fix =
        code === 'ENOSPC' || code === 'EDQUOT'
          ? 'free space there, or choose another out'
          : 'choose another out'
      throw new EnvironmentError(
        `cannot write the results folder ${out} (input 'out'): ${describeOpenError(error)}; ${fix}`
      )
    }
    return new ResultsWriter(paths)
  }

  /** Why writing stopped (e.g. `the disk is full (ENOSPC)`), or null while every write succeeded. */
  get writeError(): string | null {
    this.flush()
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

  appendSamples(raw: SampleRecord[]): void {
    if (raw.length === 0) return
    // The names and units are the workload's (or a result file's) text: no secret is written (util/secrets.ts).
    if (this.failure) return
    const records = raw.map(r => {
      const metric = redactName(r.metric)
      const unit = redactName(r.unit)
      // Copied only where a name changed (a spread of every record cost ~3 µs each on Node 20).
      return metric === r.metric && unit === r.unit ? r : Object.assign({}, r, { metric, unit })
    })
    this.buffer(this.paths.results, records.map(r => `${JSON.stringify(r)}\n`).join(''))
    this.buffer(this.paths.samples, records.map(r => `${sampleCsvRow(r)}\n`).join(''))
  }

  appendLog(header: string, text: string): void {
    this.flush()
    this.guarded(this.paths.logs, () =>
      this.append(this.paths.logs, redact(`=== ${header} ===\n${text.trimEnd()}\n\n`))
    )
  }

  appendRun(run: RunRecord): void {
    this.flush()
    this.guarded(this.paths.runs, () => this.append(this.paths.runs, `${JSON.stringify(redactDeep(run))}\n`))
  }

  /**
   * Replaces `file` whole or not at all (temp file + rename), so a full disk keeps the previous version
   * (the INCOMPLETE placeholder) instead of a torn one. Returns why it failed, or null.
   */
  replaceFile(file: string, text: string): string | null {
    this.flush()
    try {
      safeReplace(file, text, { root: this.paths.out })
      return null
    } catch (error) {
      return `writing ${path.basename(file)} failed: ${describeOpenError(error)}`
    }
  }
}

/** Reads back results.jsonl; a torn last line (crash mid-write) is skipped. */
export function readResults(file: string, opts: { within?: string } = {}): SampleRecord[] {
  const out: SampleRecord[] = []
  // `within`: a folder given to read (aggregate): its file, never a link or hard link out of it.
  const read =
    opts.within === undefined
      ? { maxBytes: READ_LIMITS.results }
      : { maxBytes: READ_LIMITS.results, noFollow: true, within: opts.within, oneLink: true }
  for (const line of readUntrusted(file, read).split('\n')) {
    if (line.trim() === '') continue
    try {
      out.push(JSON.parse(line) as SampleRecord)
    } catch {
      /* torn line */
    }
  }
  return out
}
