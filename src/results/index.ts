/** The results stage's public face: other stages and the entry points import from here. */
export * from './store.js'
