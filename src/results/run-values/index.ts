/** Raw rows to one value per process run (the unit of replication), and the shapes on either side. */
export { aggregateRows } from './aggregate-rows.js'
export { RunAggregator } from './aggregator.js'
export { RowConflictError } from './run-group.js'
export {
  FINGERPRINT_FIELDS,
  INTERLEAVE_ALLOWED,
  isInterleave,
  type ArmSeries,
  type Interleave,
  type PartialFingerprint,
  type RawRow
} from './series.js'
export { isStartupMetric } from './startup-metrics.js'
