/**
 * Read a long-format results CSV (header at least workload,environment,run,metric,value; optional
 * iteration, unit, scope, params, fingerprint columns and any others) into per-run series.
 *
 * Streams and keeps only numbers per run group, so a 1,000,000-row file needs little memory.
 *
 * Two readers, same rows: csv-parse handles any file containing a double quote (quoted fields, embedded
 * commas or newlines). Files without a single quote character — what our own writer produces — are
 * split on commas and newlines directly, which for such lines is exactly RFC 4180; csv-parse alone
 * spends ~2.5 s on 1,000,000 rows here, most of the 3 s budget. A quote seen mid-file restarts the read
 * with csv-parse. `engine: 'csv-parse'` forces csv-parse (tests check both readers agree).
 */
import { createReadStream } from 'node:fs'
import { access, constants } from 'node:fs/promises'
import { StringDecoder } from 'node:string_decoder'
import { CsvError, parse } from 'csv-parse'
import type { Options as CsvOptions } from 'csv-parse'
import { METRIC_SCOPES } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { describeRule, parseNumber } from '../util/number.js'
import type { ArmSeries, PartialFingerprint } from './run-values.js'
import { FINGERPRINT_FIELDS, RowConflictError, RunAggregator, canonicalParams } from './run-values.js'
import { READ_LIMITS, UnsafePathError, checkRegularFile } from '../util/safe-fs.js'

export const REQUIRED_COLUMNS = ['workload', 'environment', 'run', 'metric', 'value'] as const
const KNOWN_OPTIONAL = ['iteration', 'unit', 'scope', 'params', 'power_cap_w', 'better'] as const
/** Values: strict decimals (util/number), never negative: durations, rates and counts, and the overhead is a ratio. */
const VALUE_RULE = { kind: 'real', min: 0 } as const
const VALUE_ALLOWED = `${describeRule(VALUE_RULE)} (a duration, rate or count; the overhead is a ratio of them)`
const ITERATION_RULE = { kind: 'integer', min: 0 } as const
const SCOPES_ALLOWED = `${METRIC_SCOPES.map(x => `'${x}'`).join(', ')} or empty`
const BETTER_ALLOWED = `'lower', 'higher' or empty`

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

const CSV_OPTIONS: CsvOptions = { bom: true, skip_empty_lines: true }

/**
 * A bad row, located by record index (0 = header) and, when the reader knows it, its line; turned into
 * an InputError naming file, line and column.
 */
class BadRow extends Error {
  constructor(
    readonly record: number,
    readonly line: number | null,
    readonly column: string,
    readonly value: string,
    readonly allowed: string
  ) {
    super(`record ${record}, column ${column}`)
  }
}

/** The file has a double quote somewhere: only csv-parse may read it. */
class NeedsCsvParse extends Error {}

/**
 * Split a quote-free file on newlines and commas. Throws NeedsCsvParse as soon as a chunk contains a
 * double quote, so the caller can start over with csv-parse. Empty lines are skipped, as csv-parse's
 * `skip_empty_lines` does.
 */
async function readPlain(
  file: string,
  onLine: (text: string, start: number, end: number, record: number, line: number) => void
): Promise<void> {
  const input = createReadStream(file, { highWaterMark: 1 << 20 })
  const decoder = new StringDecoder('utf8')
  let carry = ''
  let line = 0
  let record = -1
  const feed = (text: string, final: boolean): void => {
    if (text.includes('"')) throw new NeedsCsvParse()
    let start = 0
    for (;;) {
      let nl = text.indexOf('\n', start)
      if (nl === -1) {
        if (!final) break
        nl = text.length
        if (start >= nl) break
      }
      line++
      let end = nl
      if (end > start && text.charCodeAt(end - 1) === 13) end-- // CRLF
      if (record === -1 && text.charCodeAt(start) === 0xfeff) start++ // BOM
      if (end > start) onLine(text, start, end, ++record, line)
      start = nl + 1
    }
    carry = text.slice(start)
  }
  try {
    for await (const chunk of input) feed(carry + decoder.write(chunk as Buffer), false)
    feed(carry + decoder.end(), true)
  } finally {
    input.destroy()
  }
}

/** True when text[start, end) is only ASCII digits (the usual iteration number). */
function allDigits(text: string, start: number, end: number): boolean {
  if (end <= start) return false
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/** Line number (1-based) on which record `index` (0 = header) ends; results rows are one line each. */
async function lineOfRecord(file: string, index: number): Promise<number | null> {
  return new Promise(resolve => {
    let seen = 0
    let done = false
    const finish = (line: number | null): void => {
      if (done) return
      done = true
      input.destroy()
      parser.destroy()
      resolve(line)
    }
    const input = createReadStream(file)
    const parser = parse({
      ...CSV_OPTIONS,
      relax_column_count: true,
      on_record: (_record: unknown, context: { lines: number }) => {
        // `lines` is the line the record ends on; one-line records are the norm in results files.
        if (seen++ === index) finish(context.lines)
        return null
      }
    })
    parser.on('error', () => finish(null))
    parser.on('end', () => finish(null))
    input.on('error', () => finish(null))
    parser.resume()
    input.pipe(parser)
  })
}

/** Where a column's fingerprint field lives: `gpu_name`, `fingerprint.gpu_name` or `fingerprint_gpu_name`. */
function fingerprintField(column: string): (typeof FINGERPRINT_FIELDS)[number] | undefined {
  const name = column.replace(/^fingerprint[._]/, '')
  return (FINGERPRINT_FIELDS as readonly string[]).includes(name)
    ? (name as (typeof FINGERPRINT_FIELDS)[number])
    : undefined
}

export interface ReadCsvOptions {
  /** 'auto' (default): the direct splitter for quote-free files, csv-parse otherwise. */
  engine?: 'auto' | 'csv-parse'
}

/** Read and aggregate a results CSV. Bad input → InputError naming the file, line and column. */
export async function readResultsCsv(file: string, options: ReadCsvOptions = {}): Promise<CsvResults> {
  try {
    await access(file, constants.R_OK)
    // A FIFO or /dev/zero would block or never end the stream below.
    checkRegularFile(file, READ_LIMITS.results)
  } catch (error) {
    throw new InputError(
      '--input',
      file,
      `a readable CSV file (long format: workload,environment,run,metric,value)${error instanceof UnsafePathError ? `; it ${error.reason}` : ''}`
    )
  }
  if ((options.engine ?? 'auto') === 'auto') {
    try {
      return await readWith(file, 'plain')
    } catch (error) {
      if (!(error instanceof NeedsCsvParse)) throw error
    }
  }
  return readWith(file, 'csv-parse')
}

async function readWith(file: string, engine: 'plain' | 'csv-parse'): Promise<CsvResults> {
  const agg = new RunAggregator()
  const extras: CsvResults['extras'] = {}
  let columns: string[] = []
  let extraColumns: { name: string; index: number }[] = []
  let fpColumns: { field: (typeof FINGERPRINT_FIELDS)[number]; index: number }[] = []
  let record = -1
  // Column indices (−1 when absent).
  let iW = -1
  let iE = -1
  let iR = -1
  let iM = -1
  let iV = -1
  let iI = -1
  let iU = -1
  let iS = -1
  let iP = -1
  let iC = -1
  let iB = -1

  const onHeader = (rec: string[], line: number | null): void => {
    columns = rec.map(c => c.trim())
    const at = (name: string): number => columns.indexOf(name)
    const missing = REQUIRED_COLUMNS.filter(c => at(c) < 0)
    if (missing.length > 0)
      throw new InputError(
        `${file}:${line ?? 1} (header)`,
        columns.join(','),
        `a header with columns ${REQUIRED_COLUMNS.join(',')} (missing: ${missing.join(',')}); optional: ${KNOWN_OPTIONAL.join(',')}`
      )
    ;[iW, iE, iR, iM, iV, iI, iU, iS, iP, iC, iB] = [...REQUIRED_COLUMNS, ...KNOWN_OPTIONAL].map(at) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number
    ]
    const known = new Set<string>([...REQUIRED_COLUMNS, ...KNOWN_OPTIONAL])
    fpColumns = []
    extraColumns = []
    columns.forEach((name, index) => {
      if (known.has(name)) return
      const field = fingerprintField(name)
      if (field !== undefined) fpColumns.push({ field, index })
      else extraColumns.push({ name, index })
    })
  }

  const onRow = (rec: string[], line: number | null): void => {
    const raw = rec[iV]!
    const parsed = parseNumber(raw, VALUE_RULE)
    if (!parsed.ok) throw new BadRow(record, line, 'value', raw, VALUE_ALLOWED)
    const value = parsed.value
    const run = rec[iR]!
    if (run === '') throw new BadRow(record, line, 'run', run, 'a run number (each process run of an arm)')
    const workload = rec[iW]!
    const environment = rec[iE]!
    const metric = rec[iM]!
    if (workload === '') throw new BadRow(record, line, 'workload', workload, 'a workload name')
    if (environment === '') throw new BadRow(record, line, 'environment', environment, 'an environment label')
    if (metric === '') throw new BadRow(record, line, 'metric', metric, 'a metric name')
    if (iI >= 0) {
      const it = rec[iI]!
      if (it !== '' && !parseNumber(it, ITERATION_RULE).ok)
        throw new BadRow(record, line, 'iteration', it, `${describeRule(ITERATION_RULE)} or empty`)
    }
    const scope = iS >= 0 ? rec[iS]! : ''
    if (scope !== '' && !(METRIC_SCOPES as readonly string[]).includes(scope))
      throw new BadRow(record, line, 'scope', scope, SCOPES_ALLOWED)
    const better = iB >= 0 ? rec[iB]!.trim() : ''
    if (better !== '' && better !== 'lower' && better !== 'higher')
      throw new BadRow(record, line, 'better', better, BETTER_ALLOWED)
    let isNew: boolean
    try {
      isNew = agg.add(
        workload,
        environment,
        run,
        metric,
        value,
        iU >= 0 ? rec[iU]! : '',
        scope,
        paramsOf(iP >= 0 ? rec[iP]!.trim() : '', iC >= 0 ? rec[iC]!.trim() : ''),
        better
      )
    } catch (error) {
      if (error instanceof RowConflictError)
        throw new BadRow(record, line, error.column, error.value, error.allowed)
      throw error
    }
    if (isNew) {
      if (fpColumns.length > 0) {
        const facts: PartialFingerprint = {}
        for (const { field, index } of fpColumns) facts[field] = rec[index]!
        agg.noteFingerprint(environment, facts, workload)
      }
      if (extraColumns.length > 0) {
        const runs = (extras[environment] ??= {})
        const kept = (runs[run] ??= {})
        for (const { name, index } of extraColumns) if (!(name in kept)) kept[name] = rec[index]!
      }
    }
  }

  const fieldCountError = (index: number, line: number | null, got: number): BadRow =>
    new BadRow(
      index,
      line,
      '(row)',
      `${got} fields`,
      `${columns.length} fields as in the header (CSV_RECORD_INCONSISTENT_FIELDS_LENGTH)`
    )

  const onRecord = (rec: string[], index: number, line: number | null): void => {
    record = index
    if (index === 0) onHeader(rec, line)
    else {
      if (rec.length !== columns.length) throw fieldCountError(index, line, rec.length)
      onRow(rec, line)
    }
  }

  // Fast path of the plain reader: a row whose key columns (workload, environment, run, metric, params,
  // unit, scope) equal the previous row's only contributes its value, so no strings are made for them.
  let keyColumns: number[] = []
  let prevKey: string[] = []
  let ends = new Int32Array(0)
  const onPlainLine = (text: string, start: number, end: number, index: number, line: number): void => {
    if (index === 0) {
      onRecord(text.slice(start, end).split(','), index, line)
      keyColumns = [iW, iE, iR, iM, iP, iC, iU, iS, iB].filter(i => i >= 0)
      ends = new Int32Array(columns.length)
      return
    }
    record = index
    const n = columns.length
    let p = start
    for (let k = 0; k < n - 1; k++) {
      const c = text.indexOf(',', p)
      if (c === -1 || c >= end) throw fieldCountError(index, line, k + 1)
      ends[k] = c
      p = c + 1
    }
    ends[n - 1] = end
    const more = text.indexOf(',', p)
    if (more !== -1 && more < end)
      throw fieldCountError(index, line, text.slice(start, end).split(',').length)
    let same = prevKey.length > 0
    for (let j = 0; same && j < keyColumns.length; j++) {
      const k = keyColumns[j]!
      const from = k === 0 ? start : ends[k - 1]! + 1
      const prev = prevKey[j]!
      if (ends[k]! - from !== prev.length || !text.startsWith(prev, from)) same = false
    }
    if (!same) {
      const fields = text.slice(start, end).split(',')
      onRow(fields, line)
      prevKey = keyColumns.map(k => fields[k]!)
      return
    }
    const raw = text.slice(iV === 0 ? start : ends[iV - 1]! + 1, ends[iV])
    const parsed = parseNumber(raw, VALUE_RULE)
    if (!parsed.ok) throw new BadRow(record, line, 'value', raw, VALUE_ALLOWED)
    if (iI >= 0) {
      const from = iI === 0 ? start : ends[iI - 1]! + 1
      if (!allDigits(text, from, ends[iI]!)) {
        const it = text.slice(from, ends[iI])
        if (it !== '' && !parseNumber(it, ITERATION_RULE).ok)
          throw new BadRow(record, line, 'iteration', it, `${describeRule(ITERATION_RULE)} or empty`)
      }
    }
    agg.addToLast(parsed.value)
  }

  try {
    if (engine === 'plain') await readPlain(file, onPlainLine)
    else await parseWithCsvParse(file, rec => onRecord(rec, record + 1, null))
  } catch (error) {
    if (error instanceof BadRow) {
      const line = error.line ?? (await lineOfRecord(file, error.record))
      throw new InputError(
        `${file}:${line ?? `record ${error.record + 1}`} column '${error.column}'`,
        error.value,
        error.allowed
      )
    }
    if (error instanceof CsvError) {
      const lines = (error as CsvError & { lines?: number }).lines
      throw new InputError(`${file}:${lines ?? '?'}`, error.code, `well-formed CSV (${error.message})`)
    }
    throw error
  }
  if (record < 0) throw new InputError(file, '', `a CSV header with columns ${REQUIRED_COLUMNS.join(',')}`)
  let series: ArmSeries[]
  try {
    series = agg.series()
  } catch (error) {
    if (error instanceof RowConflictError)
      throw new InputError(`${file} column '${error.column}'`, error.value, error.allowed)
    throw error
  }
  return {
    file,
    rows: agg.rows,
    columns,
    extraColumns: extraColumns.map(c => c.name),
    environments: agg.environments,
    series,
    fingerprints: agg.fingerprints,
    notes: [...agg.fingerprintConflicts],
    extras
  }
}

/**
 * The configuration key of a row: its params, with a power cap (samples.csv of a power-cap sweep) folded
 * in, so runs at different caps are never pooled into one series.
 */
function paramsOf(params: string, cap: string): string {
  if (cap === '') return params
  const parsedCap = parseNumber(cap, { kind: 'real', min: 0 })
  const w = parsedCap.ok ? parsedCap.value : Number.NaN
  if (!Number.isFinite(w)) return `${params}${params ? ';' : ''}power_cap_w=${cap}`
  if (params === '') return canonicalParams({ power_cap_w: w })
  try {
    return canonicalParams({ ...(JSON.parse(params) as Record<string, unknown>), power_cap_w: w })
  } catch {
    return `${params};power_cap_w=${w}`
  }
}

/** Stream the file through csv-parse, handing each record (header included) to `onRecord`. */
async function parseWithCsvParse(file: string, onRecord: (rec: string[]) => void): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let failed = false
    const input = createReadStream(file, { highWaterMark: 1 << 20 })
    const parser = parse(CSV_OPTIONS)
    const fail = (error: unknown): void => {
      if (failed) return
      failed = true
      input.destroy()
      parser.destroy()
      reject(error instanceof Error ? error : new Error(String(error)))
    }
    input.on('error', fail)
    parser.on('error', fail)
    parser.on('readable', () => {
      try {
        let rec: string[] | null
        while (!failed && (rec = parser.read() as string[] | null) !== null) onRecord(rec)
      } catch (error) {
        fail(error)
      }
    })
    parser.on('end', () => {
      if (!failed) resolve()
    })
    input.pipe(parser)
  })
}
