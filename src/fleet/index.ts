/** The fleet stage's public face: other stages and the entry points import from here. */
export * from './group-key.js'
export * from './markdown.js'
export * from './pool.js'
export * from './sources.js'
export * from './types.js'
export * from './command.js'
