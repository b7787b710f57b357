/**
 * GPU telemetry sampler: one `nvidia-smi --query-gpu=... -lms N` process per check, its lines parsed
 * as they arrive, appended live to telemetry.csv, and attributed to runs afterwards.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import type { TelemetrySample } from '../types/index.js'
import { queryGpuArgs } from '../tools/nvidia-smi.js'
import { appendAll } from '../util/arrays.js'
import { MAX_LINE_CHARS } from '../util/lines.js'
import { firstLine } from '../util/text.js'
import { TelemetryCsvFile } from './telemetry-csv-file.js'
import { validateTelemetryOptions, type TelemetryOptions } from './telemetry-options.js'
import { parseTelemetryLine, telemetryCsvRow } from './telemetry-parse.js'
import { probeTelemetryFields } from './telemetry-probe.js'

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

export class TelemetrySampler {
  private readonly samples: TelemetrySample[] = []
  private readonly warningList: string[] = []
  private buffer = ''
  private garbage = 0
  private badValues = 0
  private stderrTail = ''
  private readonly csv: TelemetryCsvFile | null
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
    this.csv = opts.csvPath ? new TelemetryCsvFile(opts.csvPath, m => this.warn(m)) : null
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
    const { interval, fields, ids } = validateTelemetryOptions(opts)
    const smi = opts.nvidiaSmi ?? 'nvidia-smi'
    const probed = await probeTelemetryFields(smi, fields, ids, warn)
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
    this.csv?.append(rows)
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
    this.csv?.close()
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
