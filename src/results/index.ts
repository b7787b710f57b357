/** The results stage's public face: the live writer, and reading a finished check's folder back. */
export { ResultsWriter, readResults, resultPaths } from './store.js'
