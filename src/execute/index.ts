/**
 * The execute stage's public face: what the check orchestrator, later stages, the entry points and the
 * tests use. Everything else in execute/ is internal.
 */
// Running the plan, and cleaning up after it.
export { executePlan, executeSteps } from './runner.js'
export type { ExecuteResult } from './runner.js'
export type { BlockDone, ExecuteContext, RunSpec } from './context.js'
export { processSpec, workloadsDir } from './specs.js'
export type { ProcessSpecInput } from './specs.js'
export { launchFacts } from './launch-facts.js'
export { RunFolders, workRoot } from './run-folders.js'
export { prepareIoFolders } from './io-data.js'
export { killCheckContainers, removeCheckContainersNow } from './container.js'
export { workloadsGatedBySamples } from './metrics.js'
export { parseEventLine } from './event-line.js'
export { memoryRecords } from './memory.js'
// Co-tenants: the other processes beside a measured one (the peers event, the GPU probe).
export { gpuCotenantProbe, gpuCotenants, mergeCotenants, peersList, probeGpuCotenants } from './cotenants.js'
export { MAX_CMDLINE_CHARS, MAX_COTENANTS } from './cotenants.js'
// Power caps: the sweep, and restoring the caps after a crash.
export { sweepPowerCaps } from './power-sweep.js'
export type { SweepOutcome } from './power-sweep.js'
export { restoreFromFile, validateCaps } from './power-caps.js'
export { leftoverRestoreFiles, restoreFileFor, stateDirProblem } from './restore-file.js'
export type { PresentGpu } from './restore-file.js'
// GPU telemetry: the sampler, and attributing its samples to runs and measured regions.
export { TelemetrySampler } from './telemetry.js'
export { attribute, summarizeTelemetry, withTelemetry } from './telemetry-attribute.js'
export { regionTelemetry, regionWindows } from './region.js'
// The arms' software stacks, and what a difference between them can do (for the explainer).
export { armStackDigest, stackDigest } from './stack/digest.js'
export { armStacks, diffFlat, envOf, flatten } from './stack/flatten.js'
export type { Flat } from './stack/flatten.js'
export type { Knowledge } from './stack/knowledge.js'
export { ENV_KNOWLEDGE, envKnowledge } from './stack/env-knowledge.js'
export { LIBRARY_SCOPED_ENV } from './stack/env-families.js'
export { FACT_RULES, UNKNOWN_FACT } from './stack/fact-rules.js'
