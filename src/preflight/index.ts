/** The preflight stage's public face: what the check and the entry points use of it. */
export {
  DRIVER_GATE,
  gate,
  isDriverGateResult,
  validateCudaVersion,
  validateDriverVersion,
  type DriverGateResult
} from './driver-gate.js'
export { driverChecks, imageCuda, NVIDIA_REQUIRE_CHECK, type DriverFacts } from './driver-checks.js'
export { CGROUPS_HYBRID_FIX, MISSING_INIT_FIX, startRefusal, type StartRefusal } from './container-init.js'
export { compatProbeMatters, probeCompatLibs, type CompatProbe } from './compat-probe.js'
export { toolkitBrand, TOOLKIT_BRANDS } from './toolkit-brand.js'
export { fingerprintCache, fingerprintFor } from './fingerprint.js'
export { allDatacenter, powerRanges, readGpuFacts, type GpuFacts } from './gpu.js'
export { inspectImage, type ImageFacts } from './image.js'
export { runIoCheck } from './io-check.js'
export type { IoCheckReport } from './mount-rules.js'
export { preflightStatus } from './run.js'
export { emptyPreflightOutcome, logPreflight, preflightStage, type PreflightOutcome } from './stage.js'
