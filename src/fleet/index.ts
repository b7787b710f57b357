/** The fleet's public face: merge many runners' checks into one report (the aggregate command runs it). */
export { renderAggregateMarkdown } from './markdown.js'
export { aggregate } from './pool.js'
export { readSources } from './sources.js'
export type { AggregateReport } from './types.js'
