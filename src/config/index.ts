/** The config stage's public face: other stages and the entry points import from here. */
export * from './config.js'
export * from './image-ref.js'
export * from './mount-policy.js'
export * from './defaults.js'
export * from './file.js'
export * from './modes.js'
export * from './parse.js'
