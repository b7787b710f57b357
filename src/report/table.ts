/**
 * Markdown tables, the only ones published (the report, `analyze`, the trend, the fleet's aggregate): every cell
 * goes through mdTableCell here, the one place that knows it is a cell, so a pipe in a value never splits it and
 * the same value outside a table is not escaped for one. Pure.
 */
import { markdownTable } from 'markdown-table'
import { mdTableCell } from '../util/text.js'
import { at } from '../util/must.js'

export type Table = string[][]

const EMPTY = new Set(['', '–'])

/**
 * Leave out columns with nothing in them (every body cell empty or a dash), e.g. telemetry columns
 * when telemetry was off: a column of dashes only costs width. The header row is kept as the first.
 */
export function dropEmptyColumns(rows: Table, align?: string[]): { rows: Table; align?: string[] } {
  if (rows.length < 2) return { rows, align }
  const width = at(rows, 0).length
  const keep = Array.from({ length: width }, (_, i) => rows.slice(1).some(r => !EMPTY.has(r[i] ?? '')))
  return {
    rows: rows.map(r => r.filter((_, i) => keep[i])),
    align: align?.filter((_, i) => keep[i])
  }
}

const cells = (rows: Table): Table => rows.map(r => r.map(mdTableCell))

export function table(rows: Table, align?: string[]): string {
  return markdownTable(cells(rows), { align })
}

/** Raw tables are long: staggered delimiters keep them a third smaller. */
export function rawTable(rows: Table, align?: string[]): string {
  return markdownTable(cells(rows), { align, alignDelimiters: false })
}
