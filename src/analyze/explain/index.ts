/** The explainer's public face: why the arms differ, for one pair of arms or for a check. */
export { explain, explainCheck } from './explain.js'
export { jitCacheKey } from './jit-cache.js'
