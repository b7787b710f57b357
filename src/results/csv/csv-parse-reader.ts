/**
 * The csv-parse reader: any file containing a double quote (quoted fields, embedded commas or newlines)
 * goes through it, and it locates a bad record's line for the error message.
 */
import { createReadStream } from 'node:fs'
import { parse } from 'csv-parse'
import type { Options as CsvOptions } from 'csv-parse'

const CSV_OPTIONS: CsvOptions = { bom: true, skip_empty_lines: true }
const CHUNK_BYTES = 1 << 20

/** Stream the file through csv-parse, handing each record (header included) to `onRecord`. */
export async function parseWithCsvParse(file: string, onRecord: (rec: string[]) => void): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let failed = false
    const input = createReadStream(file, { highWaterMark: CHUNK_BYTES })
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

/** Line number (1-based) on which record `index` (0 = header) ends; results rows are one line each. */
export async function lineOfRecord(file: string, index: number): Promise<number | null> {
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
