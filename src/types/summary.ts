/** The check summary (summary.json): what the report renders and the gate decides on. */
import type {
  Device,
  GpuAccess,
  Workload,
  CheckVerdict,
  Fingerprint,
  Arm,
  OnInconclusive,
  CommandFormat,
  CommandSource
} from './basics.js'
import type { RunRecord } from './results.js'
import type { Analysis, BaselineResult } from './analysis.js'
import type { PreflightResult } from './preflight.js'
import type { ArmStack, Explanation } from './explain.js'

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
    /** GPUs whose processes ran side by side (absent in older summaries: 1). */
    gpus?: number
    measured_s: number
    fraction: number
    per_workload: { workload: string; processes: number; process_s: number; measured_s: number }[]
  }
  check_id: string
  /**
   * Present when no workload ran here: the samples are result files earlier steps wrote (`mode: analyze`), so
   * the device, image and run times are theirs, not this record's.
   */
  source?: { kind: 'result-files'; format: string; files: number }
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
    /** Most runs per arm (sequential stopping); absent in older summaries. */
    max_runs?: number
    device: Device
    gpu_access: GpuAccess
    arms: string[]
    max_overhead_pct: number
    alpha: number
    /** What an undecided check does to the step and the Check run (absent in older summaries: neutral). */
    on_inconclusive?: OnInconclusive
    /** How the arms used several GPUs: duet (both arms at once, crossing over) or lockstep. */
    gpu_layout?: 'duet' | 'lockstep'
    /**
     * The user's commands and where each was named: the workflow (input or CLI flag) or the checked-out
     * config file (allow-config-commands). Absent without commands and in older summaries.
     */
    commands?: { name: string; source: CommandSource; format: CommandFormat }[]
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
