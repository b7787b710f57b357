/** Shared contracts between pipeline stages, split by concern; import them from here. */
export {
  DEVICES,
  GPU_ACCESS_MODES,
  CONTAINER_RUNTIMES,
  COMMENT_MODES,
  WORKLOADS,
  COMMAND_FORMATS,
  COMMAND_SOURCES,
  FILE_COMMAND_FORMATS,
  MODES,
  RESULT_FORMATS,
  SCHEDULES,
  GPU_LAYOUTS,
  CHECK_VERDICTS,
  ON_INCONCLUSIVE,
  METRIC_VERDICTS,
  METRIC_SCOPES
} from './basics.js'
export type {
  Device,
  GpuAccess,
  ContainerRuntime,
  CommentMode,
  Workload,
  BuiltinWorkload,
  CommandFormat,
  CommandSource,
  JsonResultFormat,
  ResultFormat,
  CommandWorkload,
  Mode,
  Schedule,
  GpuLayout,
  CheckVerdict,
  OnInconclusive,
  MetricVerdict,
  MetricScope,
  Direction,
  Fingerprint,
  Arm,
  Lane,
  Mount
} from './basics.js'
export { STARTUP_PHASES } from './events.js'
export type {
  StartEvent,
  EnvEvent,
  PhaseEvent,
  SampleEvent,
  SummaryEvent,
  ErrorEvent,
  StackEvent,
  MemoryEvent,
  PeersEvent,
  RegionEvent,
  WorkloadEvent,
  StartupPhase
} from './events.js'
export type { SampleRecord, TelemetrySample, RunRecord, RecordSink } from './results.js'
export type { Descriptive, Comparison, Analysis, BaselineResult, HistoryFacts } from './analysis.js'
export type { PreflightStatus, PreflightResult } from './preflight.js'
export type {
  LatencyPercentiles,
  TelemetrySummary,
  RunSeries,
  GpuLaneInfo,
  PerGpuAnalysis,
  GpuDeviation,
  MultiGpuSummary,
  PowerCapRow,
  PowerCapSummary,
  CheckSummary
} from './summary.js'
export { DOMAINS } from './explain.js'
export type {
  Domain,
  Impact,
  StackRecord,
  ArmStack,
  RegionTelemetry,
  ArmMemory,
  FindingKind,
  Finding,
  MeasuredDifference,
  Explanation
} from './explain.js'
export type { CotenantScope, CotenantProcess, CotenantList } from './cotenants.js'
