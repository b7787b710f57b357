/**
 * The results stage's public face: the live writer and reading a finished check's folder back; the result
 * formats a tool writes (hyperfine, pytest-benchmark, …, the long CSV) read into rows; and raw rows turned
 * into one value per process run, what analysis takes.
 */
export { ResultsWriter, readResults, resultPaths, WORK_FOLDER_PREFIX } from './store.js'
export {
  parseArmSpecs,
  parseResultInputs,
  readResultFile,
  readResults as readResultSet,
  RESULT_FILE_LIMITS,
  type ResultSet,
  type SampleRow
} from './adapters/index.js'
export { blockScaled } from './blocking.js'
export { readResultsCsv } from './csv/index.js'
export { knownMetric } from './known-metrics.js'
export {
  aggregateRows,
  FINGERPRINT_FIELDS,
  isStartupMetric,
  RowConflictError,
  RunAggregator,
  type ArmSeries,
  type PartialFingerprint,
  type RawRow
} from './run-values/index.js'
