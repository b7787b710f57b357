/**
 * Read a long-format results CSV (header at least workload,environment,run,metric,value; optional
 * iteration, unit, scope, params, fingerprint columns and any others) into per-run series.
 *
 * Two readers, same rows: csv-parse handles any file containing a double quote; quote-free files take
 * the plain reader. A quote seen mid-file restarts the read with csv-parse. `engine: 'csv-parse'`
 * forces csv-parse (tests check both readers agree).
 */
import { access, constants } from 'node:fs/promises'
import { CsvError } from 'csv-parse'
import { InputError } from '../../util/errors.js'
import { READ_LIMITS, UnsafePathError, checkRegularFile } from '../../util/safe-fs.js'
import { RowConflictError } from '../run-values/index.js'
import { REQUIRED_COLUMNS } from './columns.js'
import { lineOfRecord, parseWithCsvParse } from './csv-parse-reader.js'
import { NeedsCsvParse, readPlain } from './plain-reader.js'
import { ResultsTable, type CsvResults } from './results-table.js'
import { BadRow } from './row-rules.js'

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
  const table = new ResultsTable(file)
  try {
    if (engine === 'plain') await readPlain(file, table.onPlainRow)
    else await parseWithCsvParse(file, rec => table.onRecord(rec, table.record + 1, null))
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
  if (table.record < 0)
    throw new InputError(file, '', `a CSV header with columns ${REQUIRED_COLUMNS.join(',')}`)
  try {
    return table.results()
  } catch (error) {
    if (error instanceof RowConflictError)
      throw new InputError(`${file} column '${error.column}'`, error.value, error.allowed)
    throw error
  }
}
