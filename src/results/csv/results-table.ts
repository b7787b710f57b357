/**
 * The rows of one results CSV, record by record, into per-run series: the header locates the columns,
 * each row is checked and handed to the RunAggregator, which keeps only numbers per run group (a
 * 1,000,000-row file needs little memory). Both readers feed it; the plain reader's lines take a fast
 * path that makes no strings for a row continuing the previous row's run.
 */
import type { ArmSeries, PartialFingerprint } from '../run-values/index.js'
import { INTERLEAVE_ALLOWED, RowConflictError, RunAggregator, isInterleave } from '../run-values/index.js'
import { emptyHeader, keyColumns, readHeader, type Header } from './columns.js'
import { digitsAt, plainDecimalAt } from './plain-reader.js'
import {
  BETTER_ALLOWED,
  BadRow,
  SCOPES_ALLOWED,
  checkIteration,
  gpuOf,
  iterationOf,
  paramsOf,
  parseValue,
  requireText
} from './row-rules.js'
import { METRIC_SCOPES } from '../../types/index.js'
import { poolGpus } from './gpu-pooling.js'
import { csvText } from '../../util/text.js'
import { at } from '../../util/must.js'
import { InputError } from '../../util/errors.js'

export interface CsvResults {
  file: string
  /** Data rows read. */
  rows: number
  /** Header as read. */
  columns: string[]
  /** Columns that are neither required, known optional, nor fingerprint fields (kept per run). */
  extraColumns: string[]
  /** Environments in order of first appearance. */
  environments: string[]
  series: ArmSeries[]
  /** Per environment, fingerprint facts from fingerprint columns (first value of each run). */
  fingerprints: Record<string, PartialFingerprint>
  notes: string[]
  /** Values of the extra columns, per run: environment → run → column → value (first row of the run). */
  extras: Record<string, Record<string, Record<string, string>>>
}

/** Where field k of a plain row starts and ends (plain-reader.ts gives the commas). */
function startOf(k: number, start: number, commas: Int32Array): number {
  return k === 0 ? start : at(commas, k - 1) + 1
}
function endOf(k: number, end: number, commas: Int32Array, n: number): number {
  return k === n - 1 ? end : at(commas, k)
}
/** Field i of a record whose field count was checked against the header. */
function field(rec: readonly string[], i: number): string {
  return at(rec, i)
}
/** Field i of such a record, or '' for an optional column the header lacks (i < 0). */
function optionalField(rec: readonly string[], i: number): string {
  return i >= 0 ? at(rec, i) : ''
}

export class ResultsTable {
  private readonly agg = new RunAggregator()
  private readonly extras: CsvResults['extras'] = {}
  private header: Header = emptyHeader()
  /** Index of the record being read (0 = header); −1 until the header is read. */
  record = -1
  // Fast path of the plain reader: the key columns (as runs of adjacent ones), and where the previous row's
  // runs of key columns lie in the buffer that holds it.
  private keys: number[] = []
  private keySpans: number[] = []
  private prevBuf: Buffer | null = null
  private prevFrom = new Int32Array(0)
  private prevTo = new Int32Array(0)
  /** GPUs the runs named (the gpu column); a run's first row names it. */
  private readonly gpus = new Set<number>()
  /** GPU UUIDs of runs that named their GPU, noted only if the file has one GPU (gpu-pooling.ts says why). */
  private readonly uuids: [environment: string, uuid: string, workload: string][] = []

  constructor(private readonly file: string) {}

  /** One parsed record (header included) from either reader. */
  onRecord(rec: string[], index: number, line: number | null): void {
    this.record = index
    if (index === 0) this.header = readHeader(rec, `${this.file}:${line ?? 1} (header)`)
    else {
      if (rec.length !== this.header.columns.length) throw this.fieldCountError(index, line, rec.length)
      this.onRow(rec.map(csvText), line)
    }
  }

  /** One line buf[start, end) from the plain reader, its commas found (plain-reader.ts). */
  readonly onPlainRow = (
    buf: Buffer,
    start: number,
    end: number,
    commas: Int32Array,
    fields: number,
    index: number,
    line: number
  ): void => {
    if (index === 0) {
      this.onRecord(buf.toString('utf8', start, end).split(','), index, line)
      this.keys = keyColumns(this.header.index)
      // Runs of adjacent key columns, [first, last, first, last, …]: each compared as one stretch.
      const sorted = [...this.keys].sort((x, y) => x - y)
      const spans: number[] = []
      for (const col of sorted)
        if (spans.length > 0 && spans[spans.length - 1] === col - 1) spans[spans.length - 1] = col
        else spans.push(col, col)
      this.keySpans = spans
      this.prevFrom = new Int32Array(spans.length >> 1)
      this.prevTo = new Int32Array(spans.length >> 1)
      return
    }
    this.record = index
    const n = this.header.columns.length
    if (fields !== n) throw this.fieldCountError(index, line, fields)
    // The previous row's key fields, compared byte by byte where they lie (no string made).
    const { keySpans, prevFrom, prevTo } = this
    const prev = this.prevBuf
    let same = prev !== null
    for (let j = 0; prev !== null && same && j < keySpans.length; j += 2) {
      const from = startOf(at(keySpans, j), start, commas)
      const to = endOf(at(keySpans, j + 1), end, commas, n)
      const pFrom = at(prevFrom, j >> 1)
      if (to - from !== at(prevTo, j >> 1) - pFrom) same = false
      else
        for (let i = 0; i < to - from; i++)
          if (buf[from + i] !== prev[pFrom + i]) {
            same = false
            break
          }
    }
    if (!same) {
      this.onRow(buf.toString('utf8', start, end).split(',').map(csvText), line)
      this.prevBuf = buf
      for (let j = 0; j < keySpans.length; j += 2) {
        prevFrom[j >> 1] = startOf(at(keySpans, j), start, commas)
        prevTo[j >> 1] = endOf(at(keySpans, j + 1), end, commas, n)
      }
      return
    }
    const { value: iV, iteration: iI } = this.header.index
    const vFrom = startOf(iV, start, commas)
    const vTo = endOf(iV, end, commas, n)
    // Plain decimals (what every writer emits) are read in place, exactly as Number() reads them; any other
    // spelling goes to the strict parser, which accepts or refuses it.
    let value = plainDecimalAt(buf, vFrom, vTo)
    if (Number.isNaN(value)) value = parseValue(buf.toString('utf8', vFrom, vTo), index, line)
    let iteration: number | undefined
    if (iI >= 0) {
      const from = startOf(iI, start, commas)
      const to = endOf(iI, end, commas, n)
      const it = digitsAt(buf, from, to)
      if (it >= 0) iteration = it
      else {
        const text = buf.toString('utf8', from, to)
        checkIteration(text, index, line)
        iteration = iterationOf(text)
      }
    }
    try {
      this.agg.addToLast(value, iteration)
    } catch (error) {
      if (error instanceof RowConflictError)
        throw new BadRow(index, line, error.column, error.value, error.allowed)
      throw error
    }
  }

  private onRow(rec: string[], line: number | null): void {
    const { record } = this
    const ix = this.header.index
    const value = parseValue(field(rec, ix.value), record, line)
    const run = field(rec, ix.run)
    requireText(run, 'run', 'a run number (each process run of an arm)', record, line)
    const workload = field(rec, ix.workload)
    const environment = field(rec, ix.environment)
    const metric = field(rec, ix.metric)
    requireText(workload, 'workload', 'a workload name', record, line)
    requireText(environment, 'environment', 'an environment label', record, line)
    requireText(metric, 'metric', 'a metric name', record, line)
    if (ix.iteration >= 0) checkIteration(field(rec, ix.iteration), record, line)
    const scope = optionalField(rec, ix.scope)
    if (scope !== '' && !(METRIC_SCOPES as readonly string[]).includes(scope))
      throw new BadRow(record, line, 'scope', scope, SCOPES_ALLOWED)
    const better = optionalField(rec, ix.better).trim()
    if (better !== '' && better !== 'lower' && better !== 'higher')
      throw new BadRow(record, line, 'better', better, BETTER_ALLOWED)
    const interleave = optionalField(rec, ix.interleave).trim()
    if (!isInterleave(interleave))
      throw new BadRow(record, line, 'interleave', interleave, INTERLEAVE_ALLOWED)
    let isNew: boolean
    try {
      isNew = this.agg.add(
        workload,
        environment,
        run,
        metric,
        value,
        optionalField(rec, ix.unit),
        scope,
        paramsOf(optionalField(rec, ix.params).trim(), optionalField(rec, ix.power_cap_w).trim()),
        better,
        ix.iteration >= 0 ? iterationOf(field(rec, ix.iteration)) : undefined,
        interleave
      )
    } catch (error) {
      if (error instanceof RowConflictError)
        throw new BadRow(record, line, error.column, error.value, error.allowed)
      throw error
    }
    if (isNew) this.noteRun(rec, environment, run, workload, line)
  }

  /** The per-run context of a new run group: its fingerprint facts and extra columns (first row wins). */
  private noteRun(
    rec: string[],
    environment: string,
    run: string,
    workload: string,
    line: number | null
  ): void {
    const { fingerprint, extra, index: ix } = this.header
    const gpu = ix.gpu >= 0 ? gpuOf(field(rec, ix.gpu), this.record, line) : undefined
    if (gpu !== undefined) {
      this.agg.noteGpu(gpu)
      this.gpus.add(gpu)
    }
    if (fingerprint.length > 0) {
      const facts: PartialFingerprint = {}
      for (const { field: name, index } of fingerprint) facts[name] = field(rec, index)
      if (gpu !== undefined && facts.gpu_uuid) {
        this.uuids.push([environment, facts.gpu_uuid, workload])
        delete facts.gpu_uuid
      }
      this.agg.noteFingerprint(environment, facts, workload)
    }
    if (extra.length > 0) {
      const runs = (this.extras[environment] ??= {})
      const kept = (runs[run] ??= {})
      for (const { name, index } of extra) if (!(name in kept)) kept[name] = field(rec, index)
    }
  }

  private fieldCountError(index: number, line: number | null, got: number): BadRow {
    return new BadRow(
      index,
      line,
      '(row)',
      `${got} fields`,
      `${this.header.columns.length} fields as in the header (CSV_RECORD_INCONSISTENT_FIELDS_LENGTH)`
    )
  }

  /**
   * Several rows of one run's metric with no iteration column: one process's iterations, or the same run number
   * of two checks side by side (a sorted concatenation, `sort -t, -k2,2 -k3,3n`, what a spreadsheet does, read
   * as one check of two iterations per run and judged PASS, issue 51). Nothing in the file tells them apart, so
   * neither is guessed: the iteration column says which. Derived metrics repeat by design and are not asked.
   */
  private refuseUnnumberedRows(series: readonly ArmSeries[]): void {
    for (const s of series) {
      if (s.scope === 'derived') continue
      const i = s.iterations.findIndex(n => n > 1)
      if (i < 0) continue
      throw new InputError(
        `${this.file} (no iteration column)`,
        `${s.iterations[i]} rows of run ${s.runs[i] ?? '?'} of ${s.workload}/${s.metric} in ${s.environment}`,
        'one row per run and metric, or an iteration column (1, 2, … within each run) when a run has several: ' +
          'without it, two rows of one run may be two iterations of one process or the same run of two checks ' +
          '(a sorted concatenation of two results files) — give each check its own run numbers, or analyse them apart'
      )
    }
  }

  /** The series read; RowConflictError when runs of one metric disagree (unit, direction). */
  results(): CsvResults {
    if (this.gpus.size > 1) poolGpus(this.agg)
    else
      for (const [environment, gpu_uuid, workload] of this.uuids)
        this.agg.noteFingerprint(environment, { gpu_uuid }, workload)
    const series = this.agg.series()
    if (this.header.index.iteration < 0) this.refuseUnnumberedRows(series)
    return {
      file: this.file,
      rows: this.agg.rows,
      columns: this.header.columns,
      extraColumns: this.header.extra.map(c => c.name),
      environments: this.agg.environments,
      series,
      fingerprints: this.agg.fingerprints,
      notes: [...this.agg.fingerprintConflicts],
      extras: this.extras
    }
  }
}
