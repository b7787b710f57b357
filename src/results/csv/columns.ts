/**
 * The results CSV's columns: the required and the known optional ones, fingerprint columns, and any
 * others (kept per run as extras). Located once from the header, by name, so column order is free.
 */
import { InputError } from '../../util/errors.js'
import { FINGERPRINT_FIELDS } from '../run-values/index.js'

export const REQUIRED_COLUMNS = ['workload', 'environment', 'run', 'metric', 'value'] as const
const KNOWN_OPTIONAL = [
  'iteration',
  'unit',
  'scope',
  'params',
  'power_cap_w',
  'better',
  'interleave',
  // The GPU a run's process measured on (samples.csv): several GPUs are pooled as the check pools them.
  'gpu'
] as const
const KNOWN_COLUMNS = [...REQUIRED_COLUMNS, ...KNOWN_OPTIONAL] as const

type FingerprintField = (typeof FINGERPRINT_FIELDS)[number]

/** Index of each known column in the header; −1 when the column is absent. */
export type ColumnIndex = Record<(typeof KNOWN_COLUMNS)[number], number>

export interface Header {
  /** Header as read (trimmed). */
  columns: string[]
  index: ColumnIndex
  fingerprint: { field: FingerprintField; index: number }[]
  extra: { name: string; index: number }[]
}

/** Before the header is read: no column known. */
export function emptyHeader(): Header {
  const index = Object.fromEntries(KNOWN_COLUMNS.map(name => [name, -1])) as ColumnIndex
  return { columns: [], index, fingerprint: [], extra: [] }
}

/** Where a column's fingerprint field lives: `gpu_name`, `fingerprint.gpu_name` or `fingerprint_gpu_name`. */
function fingerprintField(column: string): FingerprintField | undefined {
  const name = column.replace(/^fingerprint[._]/, '')
  return (FINGERPRINT_FIELDS as readonly string[]).includes(name) ? (name as FingerprintField) : undefined
}

/** Locate the columns of a header record; a missing required column is an InputError at `where`. */
export function readHeader(record: readonly string[], where: string): Header {
  const columns = record.map(c => c.trim())
  const missing = REQUIRED_COLUMNS.filter(c => !columns.includes(c))
  if (missing.length > 0)
    throw new InputError(
      where,
      columns.join(','),
      `a header with columns ${REQUIRED_COLUMNS.join(',')} (missing: ${missing.join(',')}); optional: ${KNOWN_OPTIONAL.join(',')}`
    )
  const index = Object.fromEntries(KNOWN_COLUMNS.map(name => [name, columns.indexOf(name)])) as ColumnIndex
  const known = new Set<string>(KNOWN_COLUMNS)
  const header: Header = { columns, index, fingerprint: [], extra: [] }
  columns.forEach((name, i) => {
    if (known.has(name)) return
    const field = fingerprintField(name)
    if (field !== undefined) header.fingerprint.push({ field, index: i })
    else header.extra.push({ name, index: i })
  })
  return header
}

/**
 * Columns that make a row's run group (workload, environment, run, metric, params, cap, unit, scope,
 * better, interleave): a row equal to the previous one in all of them only adds a value.
 */
export function keyColumns(index: ColumnIndex): number[] {
  const { workload, environment, run, metric, params, power_cap_w, unit, scope, better, interleave } = index
  return [workload, environment, run, metric, params, power_cap_w, unit, scope, better, interleave].filter(
    i => i >= 0
  )
}
