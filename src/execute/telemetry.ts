/**
 * GPU telemetry sampler: one `nvidia-smi --query-gpu=... -lms N` process per check, its lines parsed
 * as they arrive, appended live to telemetry.csv, and attributed to runs afterwards.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import type { Device, TelemetrySample } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { queryGpuArgs, runNvidiaSmi } from '../tools/nvidia-smi.js'
import { openAppend } from '../util/safe-fs.js'
import { firstLine } from '../util/text.js'
import {
  DEFAULT_TELEMETRY_FIELDS,
  KNOWN_TELEMETRY_FIELDS,
  TELEMETRY_CSV_HEADER,
  isKnownField,
  parseTelemetryLine,
  telemetryCsvRow
} from './telemetry-parse.js'
import { appendAll } from '../util/arrays.js'
import { MAX_LINE_CHARS } from '../util/lines.js'

export * from './telemetry-parse.js'
export * from './telemetry-attribute.js'

export interface TelemetryOptions {
  /** nvidia-smi executable (name on PATH or path). Default `nvidia-smi`. */
  nvidiaSmi?: string
  /** Sampling interval, ms (`-lms`). Default 100. */
  intervalMs?: number
  /** GPUs to sample (`--id`); default every GPU. */
  gpuIndices?: number[]
  /** Query fields; default DEFAULT_TELEMETRY_FIELDS. `index` is added when missing. */
  fields?: readonly string[]
  onSample?: (sample: TelemetrySample) => void
  /** Each warning once, as it happens (dropped fields, garbage lines, early exit). */
  onWarning?: (message: string) => void
  /** telemetry.csv; appended to, header written when the file is new or empty. */
  csvPath?: string
  /** `cpu` gives no sampler. */
  device?: Device
  /** SIGTERM → SIGKILL grace on stop, ms. Default 2000. */
  killGraceMs?: number
}

export type StartResult =
  | { sampler: TelemetrySampler; reason: null; warnings: string[] }
  | { sampler: null; reason: string; warnings: string[] }

export interface SamplerStatus {
  running: boolean
  /** nvidia-smi ended before stop() (crash, driver reset, killed from outside). */
  died_early: boolean
  exit_code: number | null
  signal: string | null
  samples: number
  garbage_lines: number
  bad_values: number
  fields: string[]
  warnings: string[]
}

const INVALID_FIELD_RE = /Field "([^"]+)" is not a valid field to query/i
const OLD_REASONS = 'clocks_throttle_reasons.active'
const NEW_REASONS = 'clocks_event_reasons.active'

function validate(opts: TelemetryOptions): { interval: number; fields: string[]; ids: number[] | null } {
  const interval = opts.intervalMs ?? 100
  if (!Number.isInteger(interval) || interval < 10 || interval > 60_000)
    throw new InputError('telemetry-interval-ms', interval, 'an integer from 10 to 60000')
  const fields = [...(opts.fields ?? DEFAULT_TELEMETRY_FIELDS)]
  for (const f of fields)
    if (!isKnownField(f)) throw new InputError('telemetry-fields', f, KNOWN_TELEMETRY_FIELDS.join(', '))
  if (!fields.includes('index')) fields.unshift('index')
  const ids = opts.gpuIndices ?? null
  if (ids) {
    for (const i of ids)
      if (!Number.isInteger(i) || i < 0) throw new InputError('gpu-indices', i, 'non-negative integers')
    if (ids.length === 0) throw new InputError('gpu-indices', ids, 'at least one GPU index, or leave unset')
  }
  return { interval, fields, ids }
}

type Probe = { ok: true; fields: string[]; ids: number[] | null } | { ok: false; reason: string }

/**
 * One-shot query with the same fields before the loop starts: older drivers reject fields they do
 * not know (power.draw.instant before ~R530, clocks_event_reasons.* before R535), and a rejected
 * field would make the looping process exit at once. Unknown fields are dropped (the old reasons name
 * is tried for the new one), each with a warning.
 */
async function probe(
  smi: string,
  fields: string[],
  ids: number[] | null,
  warn: (m: string) => void
): Promise<Probe> {
  const current = [...fields]
  let byId = ids
  for (let attempt = 0; attempt <= fields.length + 2; attempt++) {
    const r = await runNvidiaSmi(smi, queryGpuArgs(current, { ids: byId }))
    const text = `${r.stdout}\n${r.stderr}`
    if (r.exitCode === 127 && !INVALID_FIELD_RE.test(text))
      return { ok: false, reason: `nvidia-smi not found (${smi}): no GPU telemetry` }
    const invalid = INVALID_FIELD_RE.exec(text)?.[1]
    if (r.exitCode !== 0 && invalid !== undefined && current.includes(invalid) && invalid !== 'index') {
      const at = current.indexOf(invalid)
      if (invalid === NEW_REASONS && !current.includes(OLD_REASONS)) {
        current[at] = OLD_REASONS
        warn(
          `telemetry: this nvidia-smi does not know '${NEW_REASONS}'; using its older name '${OLD_REASONS}'`
        )
      } else {
        current.splice(at, 1)
        warn(`telemetry: this nvidia-smi does not know '${invalid}'; sampling without it`)
      }
      continue
    }
    if (r.exitCode !== 0 && byId !== null && invalid === undefined) {
      // Some builds refuse a list after --id; sample every GPU and filter here instead.
      warn(
        `telemetry: nvidia-smi refused --id=${byId.join(',')} (${firstLine(text, 200)}); sampling every GPU, keeping the ones asked for`
      )
      byId = null
      continue
    }
    if (r.exitCode !== 0)
      return {
        ok: false,
        reason: `nvidia-smi failed (exit ${r.exitCode}): ${firstLine(text, 200)}; no GPU telemetry`
      }
    const parsed = r.stdout
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(l => parseTelemetryLine(l, current, Date.now()))
    const good = parsed.filter(p => p !== null)
    if (good.length === 0)
      return {
        ok: false,
        reason: `nvidia-smi gave no GPU samples: ${firstLine(text, 200) || 'empty output'}`
      }
    if (ids) {
      const seen = new Set(good.map(p => p.sample.gpu_index))
      const missing = ids.filter(i => !seen.has(i))
      if (missing.length === ids.length)
        return {
          ok: false,
          reason: `nvidia-smi shows no GPU ${ids.join(', ')} (it shows ${[...seen].join(', ')})`
        }
      if (missing.length > 0)
        warn(`telemetry: nvidia-smi shows no GPU ${missing.join(', ')}; sampling the others`)
    }
    for (const field of current) {
      if (field === 'index' || field === 'timestamp' || field === 'uuid') continue
      const at = current.indexOf(field)
      const raws = r.stdout
        .split('\n')
        .filter(l => l.trim() !== '')
        .map(l => l.split(',')[at]?.trim() ?? '')
      if (raws.every(v => v.startsWith('[') || v === '' || v === 'N/A'))
        warn(`telemetry: '${field}' reads ${raws[0] || 'empty'} on every GPU here; it will be empty`)
    }
    return { ok: true, fields: current, ids: byId }
  }
  return { ok: false, reason: 'nvidia-smi kept rejecting the telemetry fields; no GPU telemetry' }
}

export class TelemetrySampler {
  private readonly samples: TelemetrySample[] = []
  private readonly warningList: string[] = []
  private buffer = ''
  private garbage = 0
  private badValues = 0
  private stderrTail = ''
  private csvFd: number | null = null
  private exited = false
  private stopping = false
  private stopped: Promise<TelemetrySample[]> | null = null
  private exitCode: number | null = null
  private exitSignal: string | null = null
  private diedEarly = false
  private readonly exitPromise: Promise<void>
  private readonly closePromise: Promise<void>
  private readonly killOnExit = (): void => {
    // The Node process is going away: never leave nvidia-smi behind.
    if (!this.exited) this.child.kill('SIGKILL')
  }

  private constructor(
    private readonly child: ChildProcess,
    readonly fields: readonly string[],
    private readonly ids: ReadonlySet<number> | null,
    private readonly opts: TelemetryOptions,
    initialWarnings: string[]
  ) {
    appendAll(this.warningList, initialWarnings)
    if (opts.csvPath) this.openCsv(opts.csvPath)
    let resolveExit: () => void = () => undefined
    this.exitPromise = new Promise(resolve => (resolveExit = resolve))
    const onExit = (code: number | null, signal: string | null, error?: Error): void => {
      if (this.exited) return
      this.exited = true
      this.exitCode = code
      this.exitSignal = signal
      if (!this.stopping) {
        this.diedEarly = true
        const how = error ? `could not run: ${error.message}` : signal ? `signal ${signal}` : `exit ${code}`
        const why = firstLine(this.stderrTail, 200)
        this.warn(
          `telemetry: nvidia-smi stopped during the check (${how}${why ? `: ${why}` : ''}) after ` +
            `${this.samples.length} samples; runs after ${new Date().toISOString()} have no telemetry`
        )
      }
      resolveExit()
    }
    child.once('exit', (code, signal) => onExit(code, signal))
    // Spawn failure (EACCES, or ENOENT after the probe) may come with no 'exit'.
    child.once('error', error => onExit(null, null, error))
    this.closePromise = new Promise(resolve => child.once('close', () => resolve()))
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (chunk: string) => this.onData(chunk, Date.now()))
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4096)
    })
    process.once('exit', this.killOnExit)
  }

  /** Start sampling, or say why not. Throws InputError for bad options. */
  static async tryStart(opts: TelemetryOptions = {}): Promise<StartResult> {
    const warnings: string[] = []
    const warn = (m: string): void => {
      warnings.push(m)
      opts.onWarning?.(m)
    }
    if (opts.device === 'cpu') return { sampler: null, reason: 'device is cpu: no GPU telemetry', warnings }
    const { interval, fields, ids } = validate(opts)
    const smi = opts.nvidiaSmi ?? 'nvidia-smi'
    const probed = await probe(smi, fields, ids, warn)
    if (!probed.ok) return { sampler: null, reason: probed.reason, warnings }
    const child = spawn(
      smi,
      queryGpuArgs(probed.fields, { ids: probed.ids, loopMs: interval }),
      // Own process group: a cancel (SIGINT/SIGTERM to the job's group) must not kill the sampler before
      // stop() collects it; stop() and the exit hook end it.
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true }
    )
    const sampler = new TelemetrySampler(child, probed.fields, ids ? new Set(ids) : null, opts, warnings)
    return { sampler, reason: null, warnings }
  }

  /** Start sampling; null (reason passed to onWarning) when nvidia-smi is missing or device is cpu. */
  static async start(opts: TelemetryOptions = {}): Promise<TelemetrySampler | null> {
    const result = await TelemetrySampler.tryStart(opts)
    if (result.sampler === null) opts.onWarning?.(result.reason)
    return result.sampler
  }

  private warn(message: string): void {
    this.warningList.push(message)
    try {
      this.opts.onWarning?.(message)
    } catch {
      // A failing listener must not stop sampling.
    }
  }

  private openCsv(path: string): void {
    try {
      this.csvFd = openAppend(path)
      if (fs.fstatSync(this.csvFd).size === 0) fs.writeSync(this.csvFd, TELEMETRY_CSV_HEADER)
    } catch (error) {
      this.csvFd = null
      this.warn(`telemetry: cannot write ${path}: ${(error as Error).message}; samples kept in memory only`)
    }
  }

  /**
   * time_ms is the host's clock when the line arrived (Date.now()), not nvidia-smi's `timestamp`: that
   * one is local time with no zone, at second.millisecond resolution, stamped "when the query was
   * made", and a container's or runner's zone can differ from ours; runs are timed with Date.now(), so
   * arrival time puts samples and runs on one clock. nvidia-smi flushes every interval into the pipe:
   * recorded on an H200, each line arrived 0–1 ms after its own timestamp
   * (test/__fixtures__/telemetry/pipe-arrival.tsv). The timestamp is still kept in telemetry.csv.
   */
  private onData(chunk: string, arrivedMs: number): void {
    this.buffer += chunk
    // No newline yet: wait for it, but never hold (or re-split) more than one capped line.
    if (!chunk.includes('\n')) {
      if (this.buffer.length > MAX_LINE_CHARS) {
        this.countGarbage(`(a line longer than ${MAX_LINE_CHARS} characters, dropped)`)
        this.buffer = ''
      }
      return
    }
    const lines = this.buffer.split('\n')
    this.buffer = lines.pop() ?? ''
    let rows = ''
    for (const line of lines) rows += this.handleLine(line.replace(/\r$/, ''), arrivedMs)
    this.appendCsv(rows)
  }

  private handleLine(line: string, arrivedMs: number): string {
    if (line.trim() === '') return ''
    const parsed = parseTelemetryLine(line, this.fields, arrivedMs)
    if (parsed === null) {
      this.countGarbage(line)
      return ''
    }
    if (this.ids && !this.ids.has(parsed.sample.gpu_index)) return ''
    if (parsed.bad_fields.length > 0) {
      this.badValues += parsed.bad_fields.length
      if (this.badValues === parsed.bad_fields.length)
        this.warn(
          `telemetry: unreadable value for ${parsed.bad_fields.join(', ')} in ${JSON.stringify(line.slice(0, 200))}; ` +
            'recorded as empty (further ones are counted, not shown)'
        )
    }
    this.samples.push(parsed.sample)
    if (this.opts.onSample) {
      try {
        this.opts.onSample(parsed.sample)
      } catch (error) {
        this.warn(`telemetry: onSample listener failed: ${(error as Error).message}`)
      }
    }
    return telemetryCsvRow(parsed.sample, parsed.smi_timestamp)
  }

  private countGarbage(line: string): void {
    this.garbage++
    if (this.garbage === 1)
      this.warn(
        `telemetry: skipped a line nvidia-smi printed that is not a sample: ${JSON.stringify(line.slice(0, 200))} ` +
          '(further ones are counted, not shown)'
      )
  }

  /** One write per chunk, no fsync: the OS has every row as soon as it is parsed, at negligible cost. */
  private appendCsv(rows: string): void {
    if (rows === '' || this.csvFd === null) return
    try {
      fs.writeSync(this.csvFd, rows)
    } catch (error) {
      this.warn(
        `telemetry: writing telemetry.csv failed: ${(error as Error).message}; samples kept in memory only`
      )
      this.closeCsv()
    }
  }

  private closeCsv(): void {
    if (this.csvFd === null) return
    try {
      fs.closeSync(this.csvFd)
    } catch {
      // Already closed or gone; nothing more to save.
    }
    this.csvFd = null
  }

  /** Samples so far (a copy). */
  get collected(): TelemetrySample[] {
    return this.samples.slice()
  }

  get warnings(): string[] {
    return this.warningList.slice()
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  status(): SamplerStatus {
    return {
      running: !this.exited,
      died_early: this.diedEarly,
      exit_code: this.exitCode,
      signal: this.exitSignal,
      samples: this.samples.length,
      garbage_lines: this.garbage,
      bad_values: this.badValues,
      fields: [...this.fields],
      warnings: this.warnings
    }
  }

  /** Stop nvidia-smi (SIGTERM, SIGKILL after the grace), flush, close the CSV; returns every sample. Idempotent. */
  stop(): Promise<TelemetrySample[]> {
    this.stopped ??= this.doStop()
    return this.stopped
  }

  private async doStop(): Promise<TelemetrySample[]> {
    this.stopping = true
    const grace = this.opts.killGraceMs ?? 2000
    if (!this.exited) {
      this.child.kill('SIGTERM')
      if (!(await within(this.exitPromise, grace))) {
        this.child.kill('SIGKILL')
        await within(this.exitPromise, grace)
      }
    }
    // Output already in the pipe still arrives after exit; wait for it briefly (a grandchild holding
    // the pipe open must not hang stop()).
    if (!(await within(this.closePromise, 500))) {
      this.child.stdout?.destroy()
      this.child.stderr?.destroy()
    }
    if (this.buffer.trim() !== '') {
      // A last line with no newline was cut off (nvidia-smi died mid-write): a cut hex mask or number
      // can still look valid, so it is dropped and counted, never guessed at.
      this.countGarbage(`${this.buffer} (no newline)`)
      this.buffer = ''
    }
    this.closeCsv()
    process.removeListener('exit', this.killOnExit)
    return this.samples.slice()
  }
}

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>(resolve => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([promise.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}
