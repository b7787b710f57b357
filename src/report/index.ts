/** The report stage's public face: what the check, the gate, the fleet merge and the entry points use. */
// The check's report, and publishing it on GitHub.
export { buildReport } from './markdown.js'
export { numberOutput, publish, writeJobSummary } from './github.js'
export { repository } from './comment.js'
export { uploadArtifact } from './artifacts.js'
export { decideFailure, failedPreflight } from './verdict.js'
// `analyze` on a CSV, and the nightly trend.
export { renderJson, renderMarkdown } from './analysis-text.js'
export { trendMarkdown } from './trend.js'
export {
  TREND_LABEL,
  listTracked,
  markerOf,
  markerText,
  parseMarker,
  sameChange,
  syncTrendIssues
} from './trend-issues.js'
// Formatting shared with the fleet's aggregate report: words, numbers, markdown escaping.
export { SCOPE_WORD, VERDICT_WORDS, metricLabel } from './format.js'
export { fmtOverheadCi, fmtP, fmtPctCi, fmtPlain, fmtValue } from './format.js'
export { cell, code, inline, redact } from './format.js'
export { table } from './table.js'
