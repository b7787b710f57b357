/**
 * Shared contracts between pipeline stages. Each stage takes and returns these types;
 * only main.ts / cli.ts wire stages together.
 */
import type { ArmStack, Explanation, RegionTelemetry } from './explain.js'

export * from './explain.js'

export const DEVICES = ['gpu', 'cpu'] as const
export type Device = (typeof DEVICES)[number]

export const GPU_ACCESS_MODES = ['gpus', 'cdi', 'devices'] as const
export type GpuAccess = (typeof GPU_ACCESS_MODES)[number]

export const CONTAINER_RUNTIMES = ['docker', 'podman'] as const
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number]

export const COMMENT_MODES = ['always', 'on-regression', 'never'] as const
export type CommentMode = (typeof COMMENT_MODES)[number]

export const WORKLOADS = ['matmul', 'llm', 'io'] as const
export type Workload = (typeof WORKLOADS)[number]

/** `check` measures on this runner; `aggregate` merges result folders of many runners into one report. */
export const MODES = ['check', 'aggregate', 'trend'] as const
export type Mode = (typeof MODES)[number]

export const SCHEDULES = ['abba', 'random'] as const
export type Schedule = (typeof SCHEDULES)[number]

export const OUTPUT_FORMATS = ['md', 'json'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** The action's `verdict` output. */
export const CHECK_VERDICTS = ['pass', 'regression', 'incomparable', 'error'] as const
export type CheckVerdict = (typeof CHECK_VERDICTS)[number]

/** Verdict of one (workload, metric) comparison, and of an analysis overall. */
export const METRIC_VERDICTS = [
  'regression',
  'improvement',
  'equivalent',
  'inconclusive',
  'incomparable'
] as const
export type MetricVerdict = (typeof METRIC_VERDICTS)[number]

/**
 * `steady` gates; `startup` (process/container start), `info` (writable-layer I/O) and `derived` (a function
 * of a gated metric, e.g. TFLOP/s of kernel time, tokens/s of E2E) are reported only, never tested twice.
 */
export const METRIC_SCOPES = ['steady', 'startup', 'info', 'derived'] as const
export type MetricScope = (typeof METRIC_SCOPES)[number]

/** Which way is better for a metric. */
export type Direction = 'lower' | 'higher'

/**
 * Everything that must match for two measurements to be comparable, plus context.
 * Unknown facts are null, never guessed.
 */
export interface Fingerprint {
  host: string
  device: Device
  gpu_name: string | null
  gpu_uuid: string | null
  driver: string | null
  cuda: string | null
  /** Image reference as given (null for native). */
  image: string | null
  /** Content digest (sha256:...) or image ID when no repo digest exists (locally built images). */
  image_digest: string | null
  runtime: string | null
  runtime_version: string | null
  gpu_access: GpuAccess | null
  mig_mode: string | null
  persistence_mode: string | null
  clocks: string | null
  /**
   * Digest of the software stack the arm's processes recorded (workloads/_stack.py): interpreter,
   * libraries loaded, BLAS, precision flags, performance-relevant environment. Checks on different
   * stacks are never pooled or compared against one baseline. Absent before the first process ran.
   */
  stack?: string | null
}

/** An arm: one environment compared in a check. Labels are unique within a check. */
export interface Arm {
  /** Unique label used as the `environment` column, e.g. `native`, `container`, `native#2`. */
  label: string
  kind: 'native' | 'container'
  /** Image reference for container arms. */
  image: string | null
}

// ---- Workload JSON-lines protocol (workloads/_protocol.py emits these) ----

export interface StartEvent {
  event: 'start'
  workload: string
  /** Epoch seconds at which the OS created the process (from /proc/self/stat). */
  proc_start_epoch_s: number | null
  /** Epoch seconds when the first line of Python ran. */
  epoch_s: number
  params: Record<string, unknown>
}
export interface EnvEvent {
  event: 'env'
  [key: string]: unknown
}
export interface PhaseEvent {
  event: 'phase'
  /** interpreter | imports | device_init | first_kernel */
  name: string
  duration_s: number
  end_epoch_s: number
}
export interface SampleEvent {
  event: 'sample'
  metric: string
  value: number
  unit: string
  iteration: number
  /** Which way is better: declared by the workload, never guessed from the name. */
  better: Direction
  /** The gated metric this one is a function of (reported, not tested again). */
  derived_from?: string
  [key: string]: unknown
}
export interface SummaryEvent {
  event: 'summary'
  [key: string]: unknown
}
export interface ErrorEvent {
  event: 'error'
  type: string
  message: string
}
/** The software stack in effect (workloads/_stack.py); free-form facts compared by the explainer. */
export interface StackEvent {
  event: 'stack'
  [key: string]: unknown
}
/** GPU memory after warm-up (workloads/_gpu_memory.py). */
export interface MemoryEvent {
  event: 'memory'
  [key: string]: unknown
}
/** Start or end of the measured region; telemetry is attributed to it. */
export interface RegionEvent {
  event: 'region'
  edge: 'start' | 'end'
  epoch_s: number
}
export type WorkloadEvent =
  | StartEvent
  | EnvEvent
  | PhaseEvent
  | SampleEvent
  | SummaryEvent
  | ErrorEvent
  | StackEvent
  | MemoryEvent
  | RegionEvent

/** Start-up phase names in order, as metrics (seconds). `launch` is measured by the runner. */
export const STARTUP_PHASES = ['launch', 'interpreter', 'imports', 'device_init', 'first_kernel'] as const
export type StartupPhase = (typeof STARTUP_PHASES)[number]

// ---- Results ----

/** One measured value; one line of results.jsonl, one row of samples.csv. */
export interface SampleRecord {
  check_id: string
  workload: string
  /** Arm label. */
  environment: string
  /** 1-based repetition index within the arm (each repetition is a fresh process). */
  run: number
  /** Iteration within the process; 0 for per-process values such as start-up phases. */
  iteration: number
  metric: string
  value: number
  unit: string
  /** Which way is better, as the workload declared it (start-up phases: lower). */
  better?: Direction
  /** `steady` metrics gate; `startup`, `info` (OverlayFS tax) and `derived` metrics are reported and never gate. */
  scope: MetricScope
  /** ISO-8601 time the value was recorded. */
  time: string
  /** Telemetry flagged the GPU as throttled while this run was going. */
  throttled?: boolean
  /** nvidia-smi index of the GPU the process was pinned to (multi-GPU checks and pinned single GPUs). */
  gpu?: number
  params: Record<string, unknown>
  fingerprint: Fingerprint
}

/** One nvidia-smi sample (telemetry.csv). Missing or [N/A] fields are null. */
export interface TelemetrySample {
  time_ms: number
  gpu_index: number
  gpu_uuid: string | null
  utilization_gpu_pct: number | null
  utilization_memory_pct: number | null
  clocks_sm_mhz: number | null
  clocks_mem_mhz: number | null
  power_draw_w: number | null
  power_draw_instant_w: number | null
  temperature_c: number | null
  memory_used_mib: number | null
  pstate: string | null
  /** Bitmask of clocks_event_reasons.active as a number; null when unknown. */
  clocks_event_reasons: number | null
}

/** One process run of the schedule, with its outcome. */
export interface RunRecord {
  workload: Workload
  environment: string
  run: number
  warmup: boolean
  start_ms: number
  end_ms: number
  exit_code: number | null
  status: 'ok' | 'failed' | 'timeout' | 'cancelled'
  error: string | null
  /** Energy over the measured region, joules (NVML counter, or integrated power). */
  energy_j: number | null
  energy_source: 'nvml' | 'integrated-power' | null
  /** Wall time of the workload's measured region (its summary event), seconds. */
  measured_s?: number | null
  mean_util_pct: number | null
  mean_sm_clock_mhz: number | null
  mean_power_w: number | null
  throttled_samples: number
  telemetry_samples: number
  /** nvidia-smi index of the GPU the process was pinned to. */
  gpu?: number
  params: Record<string, unknown>
  /** Measured regions the workload marked (epoch ms); the mean_* fields above cover the whole process. */
  regions?: { start_ms: number; end_ms: number }[]
  /** Telemetry over the measured regions; null when none was marked or nothing was sampled. */
  region?: RegionTelemetry | null
  /** Digest of the stack this process recorded (Fingerprint.stack). */
  stack?: string | null
}

// ---- Analysis ----

export interface Descriptive {
  n: number
  mean: number
  median: number
  sd: number
  mad: number
  min: number
  max: number
  p5: number
  p25: number
  p75: number
  p95: number
}

export interface Comparison {
  workload: string
  metric: string
  unit: string
  direction: Direction
  scope: MetricScope
  baseline_env: string
  candidate_env: string
  n_baseline: number
  n_candidate: number
  mean_baseline: number
  mean_candidate: number
  median_baseline: number
  median_candidate: number
  sd_baseline: number
  sd_candidate: number
  /** Candidate vs baseline, positive = candidate worse, in percent. */
  overhead_pct: number
  /** 95% bootstrap CI of overhead_pct (ratio of means). */
  ci95: { low: number; high: number }
  /** 95% bootstrap CI of the overhead on medians. */
  ci95_median: { low: number; high: number }
  /** t > 0 when the candidate mean is higher (raw scale, as scipy ttest_ind(candidate, baseline)). */
  welch: {
    t: number
    df: number
    p: number
    /** False when t is undefined (n < 2 or zero variance in both arms); t and df are then 0. */
    defined?: boolean
  }
  /** u is the candidate's U statistic. */
  mann_whitney: { u: number; p: number; method: 'exact' | 'permutation' | 'normal'; log10_p?: number }
  tost: { margin_pct: number; p: number; equivalent: boolean }
  /** Holm-adjusted p (of Welch) across the gating comparisons of one report. */
  p_adjusted: number
  /** Minimum detectable effect (percent of baseline mean) at alpha, power 0.8. */
  mde_pct: number
  /** Runs per arm that would detect an effect of max-overhead (when inconclusive). */
  runs_needed: number | null
  /** Runs (run numbers; 1-based positions when runs are not numbered) flagged by Tukey or MAD; kept in the tests. */
  outliers: { baseline: number[]; candidate: number[] }
  verdict: MetricVerdict
  /** One sentence explaining the verdict. */
  reason: string
  /** Canonical workload params when the input distinguishes configurations of one workload. */
  params?: string
  /** Where `direction` came from: declared (`better` on the samples or CSV) or a time unit (lower). */
  direction_source?: 'declared' | 'unit'
  /** Why this comparison's figures need care (e.g. constant arms: timer resolution). */
  warnings?: string[]
  /** Which interval ci95 is: the wider of the percentile bootstrap and the Welch t delta-method interval. */
  ci_method?: 'bootstrap' | 't-delta'
  ci95_median_method?: 'bootstrap' | 't-delta'
  /** Both candidate intervals of overhead_pct, before the wider was chosen. */
  ci95_bootstrap?: { low: number; high: number }
  ci95_t_delta?: { low: number; high: number }
  /** Unadjusted p that gates (Welch's; Mann–Whitney's when Welch's t is undefined), before Holm. */
  p_gate?: number
  p_source?: 'welch' | 'mann-whitney' | 'prediction-interval'
  /**
   * Stored-baseline comparisons only: the history the new check was judged against, check by check
   * (n_baseline is then the number of stored checks, mean_baseline the mean of their means).
   */
  history?: {
    checks: number
    runs: number
    /** sd of the stored check means, % of their mean: the day-to-day spread. */
    check_sd_pct: number
    /** Pooled run-to-run sd within checks, % of the mean. */
    run_sd_pct: number
    check_means: number[]
    t: number
    df: number
  }
  /** Fields holding placeholders (0) because the statistic is undefined for these data (e.g. n < 2). */
  undefined_stats?: string[]
  /** Fingerprint differences that make this comparison incomparable, e.g. `driver: 570.86 vs 580.95`. */
  incomparable_fields?: string[]
  /** Arms whose per-run values split into two separated groups (analyze/modality.ts); named in the notes. */
  multimodal_arms?: string[]
}

export interface Analysis {
  comparisons: Comparison[]
  verdict: MetricVerdict
  max_overhead_pct: number
  alpha: number
  baseline_env?: string
  candidate_env?: string
  /** Things the reader should know (environments chosen, metrics present in one arm only...). */
  notes?: string[]
  /** Comparison against the stored baseline, when one was asked for (`analyze --baseline`). */
  baseline?: BaselineResult
  /** Set when nothing gated could be tested (the verdict is then an error, exit 2). */
  error?: string
}

// ---- Preflight ----

export type PreflightStatus = 'pass' | 'warn' | 'fail' | 'skip'

export interface PreflightResult {
  /** e.g. `driver-gate`, `mounts`, `persistence-mode`, `mig`. */
  name: string
  status: PreflightStatus
  message: string
  /** How to fix it, when status is warn or fail. */
  fix: string | null
  details?: Record<string, unknown>
}

// ---- Check summary (summary.json): what the report renders ----

export interface LatencyPercentiles {
  workload: string
  environment: string
  /** ttft_ms | tpot_ms | itl_ms | e2e_ms | tokens_per_s */
  metric: string
  unit: string
  n: number
  p50: number
  p90: number
  p99: number
}

export interface TelemetrySummary {
  workload: string
  environment: string
  /** The GPU, for processes pinned to one. */
  gpu?: number
  runs: number
  samples: number
  mean_util_pct: number | null
  mean_sm_clock_mhz: number | null
  mean_power_w: number | null
  /** Mean energy per measured run, joules. */
  energy_j_per_run: number | null
  energy_source: 'nvml' | 'integrated-power' | null
  /** Energy-delay product per run: joules x seconds. */
  edp_js: number | null
  throttled_samples: number
  /**
   * The same over the workloads' measured regions only (start-up excluded); the fields above cover
   * the whole process. Null when no run marked a region or no sample fell inside one.
   */
  region?: {
    samples: number
    util_pct: number | null
    sm_clock_mhz: number | null
    power_w: number | null
    energy_j_per_run: number | null
    throttled_samples: number
    reasons: string[]
  } | null
}

export interface BaselineResult {
  status: 'compared' | 'no-baseline' | 'no-match' | 'corrupt' | 'disabled'
  path: string
  message: string
  /** Current (candidate) vs stored (baseline) per workload/metric/environment. */
  comparisons: Comparison[]
  /** True when this run's samples were appended to the baseline file. */
  saved: boolean
}

export interface RunSeries {
  workload: string
  metric: string
  unit: string
  environment: string
  /** One value per run (the per-run median over iterations), in run order. */
  values: number[]
}

// ---- Multi-GPU ----

/** One GPU of a multi-GPU check. */
export interface GpuLaneInfo {
  index: number
  uuid: string | null
  name: string | null
}

/** This GPU's own native-vs-container analysis (its own Holm family). */
export interface PerGpuAnalysis {
  gpu: GpuLaneInfo
  analysis: Analysis
}

/** One GPU against its siblings, one arm and steady metric: does it behave like the others? */
export interface GpuDeviation {
  gpu: number
  /** The GPUs it was compared with (pooled). */
  siblings: number[]
  workload: string
  /** Canonical workload params (e.g. the power cap) when they distinguish configurations. */
  params?: string
  metric: string
  unit: string
  environment: string
  median: number
  siblings_median: number
  /** This GPU vs the pooled siblings, positive = this GPU is worse, percent. */
  deviation_pct: number
  ci95: { low: number; high: number }
  /** Holm-adjusted across every (GPU, arm, metric) of the check. */
  p_adjusted: number
  /** Significant and the whole CI beyond ±threshold_pct. */
  deviates: boolean
}

export interface MultiGpuSummary {
  gpus: GpuLaneInfo[]
  /** The headline analysis pools every GPU's runs (runs × GPUs per arm). */
  pooled: true
  per_gpu: PerGpuAnalysis[]
  deviations: GpuDeviation[]
  /** Deviation threshold: max-overhead. */
  threshold_pct: number
}

// ---- Power caps ----

/** Time, energy and EDP of one (cap, workload, arm), medians over its measured runs. */
export interface PowerCapRow {
  cap_w: number
  workload: string
  environment: string
  runs: number
  /** Median wall time of the measured region, seconds. */
  time_s: number | null
  /** Median NVML energy over the measured region, joules. */
  energy_j: number | null
  /** Median energy × delay per run, J·s. */
  edp_js: number | null
}

export interface PowerCapSummary {
  /** `swept`: every cap ran; `partial`: cut short; `skipped`: not allowed or not possible (reason says why). */
  status: 'swept' | 'partial' | 'skipped'
  caps_w: number[]
  reason: string | null
  /** Limits found before the sweep and put back after it, per GPU. */
  original_limits_w: { gpu: number; limit_w: number }[]
  restored: boolean
  rows: PowerCapRow[]
  /** Lowest median EDP per (workload, arm); null cap where energy was not measured. */
  edp_optimal: { workload: string; environment: string; cap_w: number | null }[]
}

export interface CheckSummary {
  schema: 'gpu-overhead/summary@1'
  /** Where each workload stopped under sequential stopping and why (absent: a fixed count). */
  sequential?: {
    workload: string
    runs_per_arm: number
    reason: string
    metrics: { candidate: string; key: string; state: string; runs_to_decide: number | null }[]
    undecided: string[]
  }[]
  /** Measured regions over run time (analyze/measured-work.ts). */
  measured_work?: {
    processes: number
    wall_s: number
    measured_s: number
    fraction: number
    per_workload: { workload: string; processes: number; process_s: number; measured_s: number }[]
  }
  check_id: string
  tool_version: string
  started_at: string
  finished_at: string
  wall_s: number
  /** False when a fault, timeout or cancel cut the check short; what was measured is still here. */
  complete: boolean
  incomplete_reason: string | null
  verdict: CheckVerdict
  /** Headline figures for the action outputs (the worst gating comparison). */
  overhead_pct: number | null
  p_value: number | null
  config: {
    image: string | null
    workloads: Workload[]
    runs: number
    device: Device
    gpu_access: GpuAccess
    arms: string[]
    max_overhead_pct: number
    alpha: number
  }
  arms: Arm[]
  /** Fingerprint per arm label. */
  fingerprints: Record<string, Fingerprint>
  preflight: PreflightResult[]
  /** Steady-state and start-up comparisons (scope tells which); null when nothing was analysed. */
  analysis: Analysis | null
  latency: LatencyPercentiles[]
  telemetry: TelemetrySummary[]
  baseline: BaselineResult | null
  runs: RunRecord[]
  series: RunSeries[]
  /** Present when the check ran on more than one GPU at once. */
  multi_gpu?: MultiGpuSummary
  /** Present when power caps were asked for. */
  power?: PowerCapSummary
  /** Each arm's software stack per workload, as its processes recorded it. */
  stacks?: ArmStack[]
  /** Declared ENV of each container arm's image (docker image inspect), by arm label. */
  image_env?: Record<string, Record<string, string>>
  /** "Why the arms differ": ranked findings; null when there was nothing to compare. */
  explanation?: Explanation | null
  not_measured: { what: string; why: string }[]
  warnings: string[]
  paths: { out: string; results: string; samples: string; telemetry: string; report: string; summary: string }
}

/** One selected GPU of a check: every planned run starts one process per lane (see plan/lanes.ts). */
export interface Lane {
  /** nvidia-smi (NVML) index: the per-GPU form of `--gpus device=N` and CDI `nvidia.com/gpu=N`. */
  index: number
  uuid: string | null
  name: string | null
  /** Device node minor number (`/dev/nvidiaN`) for gpu-access: devices; null when unknown. */
  minor: number | null
}

/**
 * Where the execute stage appends records the moment they are measured (results/ implements it), so a
 * crash loses nothing already measured.
 */
export interface RecordSink {
  appendSamples(records: SampleRecord[]): void
  appendRun(run: RunRecord): void
  /** The first write failure (full disk, …) as one clause; null while writes succeed. */
  readonly writeError: string | null
  readonly paths: { readonly results: string }
}

/** A bind mount as the container runtime gets it: host path (resolved) → container path. */
export interface BindMount {
  host: string
  container: string
  readOnly: boolean
}
