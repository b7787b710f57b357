/**
 * The rows of one results CSV, record by record, into per-run series: the header locates the columns,
 * each row is checked and handed to the RunAggregator, which keeps only numbers per run group (a
 * 1,000,000-row file needs little memory). Both readers feed it; the plain reader's lines take a fast
 * path that makes no strings for a row continuing the previous row's run.
 */
import type { ArmSeries, PartialFingerprint } from '../run-values/index.js'
import { INTERLEAVE_ALLOWED, RowConflictError, RunAggregator, isInterleave } from '../run-values/index.js'
import { emptyHeader, keyColumns, readHeader, type Header } from './columns.js'
import { allDigits, plainDecimal } from './plain-reader.js'

const DIGIT_0 = 48
import {
  BETTER_ALLOWED,
  BadRow,
  SCOPES_ALLOWED,
  checkIteration,
  iterationOf,
  paramsOf,
  parseValue,
  requireText
} from './row-rules.js'
import { METRIC_SCOPES } from '../../types/index.js'
import { csvText } from '../../util/text.js'

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

export class ResultsTable {
  private readonly agg = new RunAggregator()
  private readonly extras: CsvResults['extras'] = {}
  private header: Header = emptyHeader()
  /** Index of the record being read (0 = header); −1 until the header is read. */
  record = -1
  // Fast path of the plain reader: the previous row's key fields, and where each field of a line ends.
  private keys: number[] = []
  private keySpans: number[] = []
  private prevKey: string[] = []
  private ends = new Int32Array(0)

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

  /** One line text[start, end) from the plain reader. */
  readonly onPlainLine = (text: string, start: number, end: number, index: number, line: number): void => {
    if (index === 0) {
      this.onRecord(text.slice(start, end).split(','), index, line)
      this.keys = keyColumns(this.header.index)
      // Runs of adjacent key columns, [first, last, first, last, …].
      const sorted = [...this.keys].sort((a, b) => a - b)
      const spans: number[] = []
      for (const col of sorted)
        if (spans.length > 0 && spans[spans.length - 1] === col - 1) spans[spans.length - 1] = col
        else spans.push(col, col)
      this.keySpans = spans
      this.ends = new Int32Array(this.header.columns.length)
      return
    }
    this.record = index
    const { ends, prevKey } = this
    const n = this.header.columns.length
    let p = start
    for (let k = 0; k < n - 1; k++) {
      const c = text.indexOf(',', p)
      if (c === -1 || c >= end) throw this.fieldCountError(index, line, k + 1)
      ends[k] = c
      p = c + 1
    }
    ends[n - 1] = end
    const more = text.indexOf(',', p)
    if (more !== -1 && more < end)
      throw this.fieldCountError(index, line, text.slice(start, end).split(',').length)
    // Key columns side by side are compared as one stretch of text (commas included): fewer calls per row.
    const { keySpans } = this
    let same = prevKey.length > 0
    for (let j = 0; same && j < keySpans.length; j += 2) {
      const first = keySpans[j]!
      const from = first === 0 ? start : ends[first - 1]! + 1
      const prev = prevKey[j >> 1]!
      if (ends[keySpans[j + 1]!]! - from !== prev.length || !text.startsWith(prev, from)) same = false
    }
    if (!same) {
      const fields = text.slice(start, end).split(',')
      this.onRow(fields.map(csvText), line)
      const spans: string[] = []
      for (let j = 0; j < keySpans.length; j += 2) {
        const first = keySpans[j]!
        spans.push(text.slice(first === 0 ? start : ends[first - 1]! + 1, ends[keySpans[j + 1]!]))
      }
      this.prevKey = spans
      return
    }
    const { value: iV, iteration: iI } = this.header.index
    const vFrom = iV === 0 ? start : ends[iV - 1]! + 1
    const vText = text.slice(vFrom, ends[iV])
    // Plain decimals (digits, one point) are what every writer emits: Number() reads them exactly as the
    // strict parser would, so only other spellings (sign, exponent, blanks, junk) take it.
    const plain = plainDecimal(text, vFrom, ends[iV]!)
    const value = plain ? Number(vText) : parseValue(vText, index, line)
    let iteration: number | undefined
    if (iI >= 0) {
      const from = iI === 0 ? start : ends[iI - 1]! + 1
      const to = ends[iI]!
      // Short digit strings (the usual iteration number) are read in place; anything else is checked.
      if (to - from > 0 && to - from <= 15 && allDigits(text, from, to)) {
        let n = 0
        for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - DIGIT_0
        iteration = n
      } else {
        checkIteration(text.slice(from, to), index, line)
        iteration = iterationOf(text.slice(from, to))
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
    const value = parseValue(rec[ix.value]!, record, line)
    const run = rec[ix.run]!
    requireText(run, 'run', 'a run number (each process run of an arm)', record, line)
    const workload = rec[ix.workload]!
    const environment = rec[ix.environment]!
    const metric = rec[ix.metric]!
    requireText(workload, 'workload', 'a workload name', record, line)
    requireText(environment, 'environment', 'an environment label', record, line)
    requireText(metric, 'metric', 'a metric name', record, line)
    if (ix.iteration >= 0) checkIteration(rec[ix.iteration]!, record, line)
    const scope = ix.scope >= 0 ? rec[ix.scope]! : ''
    if (scope !== '' && !(METRIC_SCOPES as readonly string[]).includes(scope))
      throw new BadRow(record, line, 'scope', scope, SCOPES_ALLOWED)
    const better = ix.better >= 0 ? rec[ix.better]!.trim() : ''
    if (better !== '' && better !== 'lower' && better !== 'higher')
      throw new BadRow(record, line, 'better', better, BETTER_ALLOWED)
    const interleave = ix.interleave >= 0 ? rec[ix.interleave]!.trim() : ''
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
        ix.unit >= 0 ? rec[ix.unit]! : '',
        scope,
        paramsOf(
          ix.params >= 0 ? rec[ix.params]!.trim() : '',
          ix.power_cap_w >= 0 ? rec[ix.power_cap_w]!.trim() : ''
        ),
        better,
        ix.iteration >= 0 ? iterationOf(rec[ix.iteration]!) : undefined,
        interleave
      )
    } catch (error) {
      if (error instanceof RowConflictError)
        throw new BadRow(record, line, error.column, error.value, error.allowed)
      throw error
    }
    if (isNew) this.noteRun(rec, environment, run, workload)
  }

  /** The per-run context of a new run group: its fingerprint facts and extra columns (first row wins). */
  private noteRun(rec: string[], environment: string, run: string, workload: string): void {
    const { fingerprint, extra } = this.header
    if (fingerprint.length > 0) {
      const facts: PartialFingerprint = {}
      for (const { field, index } of fingerprint) facts[field] = rec[index]!
      this.agg.noteFingerprint(environment, facts, workload)
    }
    if (extra.length > 0) {
      const runs = (this.extras[environment] ??= {})
      const kept = (runs[run] ??= {})
      for (const { name, index } of extra) if (!(name in kept)) kept[name] = rec[index]!
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

  /** The series read; RowConflictError when runs of one metric disagree (unit, direction). */
  results(): CsvResults {
    const series = this.agg.series()
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
