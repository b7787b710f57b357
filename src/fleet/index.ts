/** The fleet's public face: the aggregate command (merge many runners' checks) and its exit code. */
export { aggregateCommand, aggregateExitCode } from './command.js'
