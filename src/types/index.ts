/** Shared contracts between pipeline stages, split by concern; import them from here. */
export * from './basics.js'
export * from './events.js'
export * from './results.js'
export * from './analysis.js'
export * from './preflight.js'
export * from './summary.js'
export * from './explain.js'
export * from './cotenants.js'
