/**
 * Compare a candidate arm with a baseline arm, metric by metric, and decide verdicts. The steps are
 * separate so other callers (the baseline store, the fleet merge, the sequential rule) can reuse them:
 *   measureComparison — every statistic of one pair of per-run series (p_adjusted = unadjusted p);
 *   decide            — Holm across the gating comparisons, then verdict and reason per comparison;
 *   overallVerdict    — one verdict for the report.
 */
export {
  analyzeRecords,
  analyzeRows,
  analyzeSeries,
  measureSeries,
  type AnalyzeRecordsOptions
} from './analyze.js'
export { decide, overallVerdict, redecide, type DecideOptions } from './decide.js'
export { commonUnit, metricDirection } from './direction.js'
export { fingerprintDifferences } from './fingerprints.js'
export { formatOverhead, formatP } from './format.js'
export { measureComparison } from './measure.js'
export {
  equivalenceBlocks,
  excludedShare,
  exclusionText,
  MODE_LEVEL,
  MODE_SHARE,
  tooFewText
} from './mode-exclusion.js'
export { equivalenceBounds } from './overhead-interval.js'
export {
  blockRatios,
  logBounds,
  logToPct,
  MIN_BLOCKS,
  ratioBounds,
  ratioToPct,
  type BlockRatios
} from './pairs.js'
