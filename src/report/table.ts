/** Markdown tables for the report. Pure. */
import { markdownTable } from 'markdown-table'

export type Table = string[][]

const EMPTY = new Set(['', '–'])

/**
 * Leave out columns with nothing in them (every body cell empty or a dash), e.g. telemetry columns
 * when telemetry was off: a column of dashes only costs width. The header row is kept as the first.
 */
export function dropEmptyColumns(rows: Table, align?: string[]): { rows: Table; align?: string[] } {
  if (rows.length < 2) return { rows, align }
  const width = rows[0]!.length
  const keep = Array.from({ length: width }, (_, i) => rows.slice(1).some(r => !EMPTY.has(r[i] ?? '')))
  return {
    rows: rows.map(r => r.filter((_, i) => keep[i])),
    align: align?.filter((_, i) => keep[i])
  }
}

export function table(rows: Table, align?: string[]): string {
  return markdownTable(rows, { align })
}

/** Raw tables are long: staggered delimiters keep them a third smaller. */
export function rawTable(rows: Table, align?: string[]): string {
  return markdownTable(rows, { align, alignDelimiters: false })
}
