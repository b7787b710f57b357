/**
 * telemetry.csv, appended to as samples arrive. A file that cannot be opened or written is warned about
 * and closed: the sampler keeps its samples in memory, the check goes on.
 */
import * as fs from 'node:fs'
import { openAppend } from '../util/safe-fs.js'
import { TELEMETRY_CSV_HEADER } from './telemetry-parse.js'

const IN_MEMORY_ONLY = 'samples kept in memory only'

export class TelemetryCsvFile {
  private fd: number | null = null

  /** Opens (never through a link) for appending; the header is written when the file is new or empty. */
  constructor(
    path: string,
    private readonly warn: (message: string) => void
  ) {
    try {
      this.fd = openAppend(path)
      if (fs.fstatSync(this.fd).size === 0) fs.writeSync(this.fd, TELEMETRY_CSV_HEADER)
    } catch (error) {
      this.fd = null
      warn(`telemetry: cannot write ${path}: ${(error as Error).message}; ${IN_MEMORY_ONLY}`)
    }
  }

  /** One write per chunk, no fsync: the OS has every row as soon as it is parsed, at negligible cost. */
  append(rows: string): void {
    if (rows === '' || this.fd === null) return
    try {
      fs.writeSync(this.fd, rows)
    } catch (error) {
      this.warn(`telemetry: writing telemetry.csv failed: ${(error as Error).message}; ${IN_MEMORY_ONLY}`)
      this.close()
    }
  }

  close(): void {
    if (this.fd === null) return
    try {
      fs.closeSync(this.fd)
    } catch {
      // Already closed or gone; nothing more to save.
    }
    this.fd = null
  }
}
