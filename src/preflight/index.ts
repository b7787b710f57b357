/** The preflight stage's public face: what the check and the entry points use of it. */
export { gate, validateCudaVersion, validateDriverVersion, type DriverGateResult } from './driver-gate.js'
export { fingerprintCache, fingerprintFor } from './fingerprint.js'
export { allDatacenter, powerRanges, readGpuFacts, type GpuFacts } from './gpu.js'
export { inspectImage, type ImageFacts } from './image.js'
export { runIoCheck } from './io-check.js'
export type { IoCheckReport } from './mount-rules.js'
export { emptyPreflightOutcome, logPreflight, preflightStage, type PreflightOutcome } from './stage.js'
