/** The plan stage's public face: other stages and the entry points import from here. */
export * from './blocks.js'
export * from './lanes.js'
export * from './schedule.js'
