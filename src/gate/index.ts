/**
 * The gate's public face: an outcome → exit code and failure reason, one mapping for every command; the
 * check's verdict and the summary record that carries it.
 */
export { checkGate, exitCodeFor } from './outcome.js'
export type { ExitCodeValue } from './outcome.js'
export { checkVerdict, headlineOf, nothingMeasuredReason } from './verdict.js'
export { trendVerdict } from './trend.js'
export { assembleResultFilesSummary, assembleSummary, initialCheckState } from './summary-json.js'
export type { CheckState, ResultFilesCheck } from './summary-json.js'
