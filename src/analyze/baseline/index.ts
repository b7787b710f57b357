/**
 * The baseline store: the last N accepted checks, each as its own record (date, commit, image digest,
 * fingerprint, and per metric: n, mean, sd, median and the per-run values), keyed by fingerprint +
 * workload config. A new check is compared with the history check by check, never by pooling runs of
 * different days into one sample.
 */
export { appendToBaseline } from './append.js'
// The store's home on the repository's baseline branch (the action's check and trend).
export {
  defaultBranch,
  discardTreeBaseline,
  fetchBaseline,
  saveBaseline,
  storePath,
  whyNotWrite,
  type BranchStore
} from './baseline-branch.js'
export { compareWithBaseline } from './check.js'
export { BASELINE_SCHEMA, DEFAULT_BASELINE_PATH, parseBaseline, type BaselineFile } from './format.js'
export { JsonFileBaselineStore } from './json-file-store.js'
export { mergeCheck } from './merge.js'
export { storedArmHistory } from './native-history.js'
export { baselineKey, paramsHash } from './match.js'
export type { CurrentResults } from './store.js'
