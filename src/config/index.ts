/** The config stage's public face: what other stages and the entry points use of it. */
export { loadConfig } from './config.js'
export type { Config } from './check-config.js'
export { actionSource, cliSource, flagKey, type CliSource, type ConfigSources } from './reader.js'
export type { LlmPreset } from './workloads/definition.js'
export { DEFAULTS, type RawInputs } from './defaults.js'
export { FILE_KNOBS, readConfigFile, type ConfigFileContents } from './file.js'
export { commandSourceLines, type FileCommand } from './commands.js'
export {
  BUILTIN_DEFINITIONS,
  builtinDefinition,
  definitionOf,
  takesTurns,
  gatedBySamples,
  resolveWorkloads,
  type IoPaths,
  type WorkloadDefinition,
  type WorkloadDomains,
  type WorkloadMetrics,
  type WorkloadSettings
} from './workloads/index.js'
export { imageRefOf, imageRefOrNull, pickRepoDigest, validateImageRef, type ImageRef } from './image-ref.js'
export { modeOf } from './modes.js'
export { parseAggregate, type AggregateConfig } from './mode-aggregate.js'
export { parseAnalyze, type AnalyzeConfig } from './mode-analyze.js'
export { parseTrend, type TrendConfig } from './mode-trend.js'
export { parseGate, parseIoCheck } from './mode-probes.js'
export { judgeMount, refusalMessage, type MountPurpose } from './mount-policy.js'
export {
  CHECKPOINT_CONTAINER_PATH,
  DATA_CONTAINER_PATH,
  allowedMountSpec,
  bindMounts,
  bindSpecOf,
  type IoMountSpec
} from './mount-spec.js'
export { alpha, checkAlpha, checkMaxOverhead, gateMetrics, maxOverhead, oneOf, parseArms } from './parse.js'
export { containerLaunchArgs, launchFlagFacts } from './launch-flags.js'
export {
  GATE_METRICS_ALLOWED,
  LLM_TAIL_METRICS,
  TAIL_WORKLOADS,
  gateMetricSet,
  isGatedTail,
  isTailMetric,
  llmRequests,
  llmTailBase,
  parseGateMetrics,
  tailQuantile,
  TAIL_BEYOND,
  valuesNeeded,
  type GateMetric,
  type GateMetricSet
} from './tail-metrics.js'
