/** The results CSV reader's public face. */
export { readResultsCsv, type ReadCsvOptions } from './read.js'
export type { CsvResults } from './results-table.js'
