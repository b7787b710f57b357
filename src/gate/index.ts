/**
 * The gate's public face: an analysis → verdict, failure reason and exit code. Issue 15 step 2 moves the
 * decisions here; until then this re-exports them from where they live, so callers can import from gate/.
 */
export { checkVerdict } from '../analyze/index.js'
export { decideFailure } from '../report/index.js'
export { ExitCode, exitCodeOf } from '../util/errors.js'
export { trendVerdict, type TrendVerdict } from './trend.js'
