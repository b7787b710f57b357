/**
 * The analyze stage's public face: what the check, the fleet merge, the later stages, the entry points
 * and the tests import. Everything else in analyze/ is internal.
 */
export {
  compareWithBaseline,
  defaultBranch,
  discardTreeBaseline,
  fetchBaseline,
  JsonFileBaselineStore,
  mergeCheck,
  parseBaseline,
  saveBaseline,
  storedArmHistory,
  storePath,
  whyNotWrite,
  type BranchStore
} from './baseline/index.js'
export { analyzeRecords, formatOverhead, formatP, measureSeries } from './compare/index.js'
export { explain, explainCheck, jitCacheKey } from './explain/index.js'
export { decideCheck, decideFamily } from './family.js'
export { guardNativeModes } from './native-modes.js'
export { measuredWork, measuredWorkNote } from './measured-work.js'
export { multiGpuSummary, multiGpuWarnings, pooledRows } from './multi-gpu.js'
export { capOf, capOfParams, edpOptimal, powerCapRows } from './power.js'
export { SequentialController, seriesKey } from './sequential-check.js'
export { latencyPercentiles, runSeries } from './summary.js'
export {
  analyzeTrend,
  UnknownMetricError,
  type TrendChange,
  type TrendReport,
  type TrendSeries
} from './trend.js'
export { DECODE_STATE_DOC } from './state-advice.js'
