/** The results CSV reader's public face. */
export { readResultsCsv } from './read.js'
