/** What the execute stage records: one record per sample and per process run, and the sink it writes to. */
import type { RegionTelemetry } from './explain.js'
import type { Workload, MetricScope, Direction, Fingerprint } from './basics.js'

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
  /**
   * `steady` metrics gate; `startup`, `info` (OverlayFS tax) and `derived` metrics are reported and never gate;
   * `tail` (a p90/p99 not named in gate-metrics) is tested and shown, not gated.
   */
  scope: MetricScope
  /** ISO-8601 time the value was recorded. */
  time: string
  /** Telemetry flagged the GPU as throttled while this run was going. */
  throttled?: boolean
  /** nvidia-smi index of the GPU the process was pinned to (multi-GPU checks and pinned single GPUs). */
  gpu?: number
  /**
   * `turns`: the process took turns request by request with the other arm's process of its block on the same
   * GPU, so iteration k of both is one pair (analysis pairs them). Absent when the processes ran one after
   * the other.
   */
  interleave?: 'turns'
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

/**
 * Where the execute stage appends records the moment they are measured (results/ implements it), so a
 * crash loses nothing already measured.
 */
export interface RecordSink {
  appendSamples(records: SampleRecord[]): void
  appendRun(run: RunRecord): void
  /** A run's log (stdout/stderr of the image and the workload, bounded), under a header naming the run. */
  appendLog?(header: string, text: string): void
  /** The first write failure (full disk, …) as one clause; null while writes succeed. */
  readonly writeError: string | null
  readonly paths: { readonly results: string }
}
