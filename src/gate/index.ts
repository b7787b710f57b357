/** The gate's public face: an outcome → exit code and failure reason, one mapping for every command. */
export * from './outcome.js'
export * from './verdict.js'
export * from './trend.js'
export { ExitCode } from '../util/errors.js'
