/**
 * The gate's public face: an analysis → verdict, failure reason and exit code. Issue 15 step 2 moves the
 * decisions here; until then this re-exports them from where they live, so callers can import from gate/.
 */
export { checkVerdict } from '../analyze/summary.js'
export { decideFailure } from '../report/verdict.js'
export { ExitCode, exitCodeOf } from '../util/errors.js'
