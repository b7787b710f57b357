/**
 * The gate's public face: an outcome → exit code and failure reason, one mapping for every command; the
 * check's verdict and the summary record that carries it.
 */
export * from './outcome.js'
export * from './verdict.js'
export * from './trend.js'
export { assembleSummary, initialCheckState, type CheckState } from './summary.js'
export { ExitCode } from '../util/errors.js'
