/**
 * Contracts of the stack recording and the explainer: what each arm's processes recorded (stack,
 * measured regions) and the ranked findings of "Why the arms differ" (summary.json `explanation`).
 */
import type { CotenantList } from './cotenants.js'

/** What a fact can move: GPU math, CPU math, kernel launches, start-up, memory, multi-GPU comms. */
export const DOMAINS = ['gpu-compute', 'cpu-compute', 'launch', 'startup', 'memory', 'comm', 'io'] as const
export type Domain = (typeof DOMAINS)[number]

/** 3: changes the math or the algorithm of the hot path; 2: can change speed; 1: rarely; 0: declarative only. */
export type Impact = 0 | 1 | 2 | 3

/** The stack one measured process recorded. */
export interface StackRecord {
  environment: string
  workload: string
  run: number
  facts: Record<string, unknown>
  /** Other processes beside this one during its measured region (types/cotenants.ts). */
  cotenants?: CotenantList[]
}

/** The stack one arm ran one workload on, as its processes recorded it (`stack` event minus `event`). */
export interface ArmStack {
  environment: string
  workload: string
  /** Measured processes whose stack was recorded. */
  processes: number
  facts: Record<string, unknown>
  /** Flattened keys whose value differed between processes of this arm (e.g. a JIT cache filling up). */
  varies: string[]
  /** Other processes seen beside this arm's processes, merged over them (one list per scope). */
  cotenants?: CotenantList[]
}

/** Telemetry over a process's measured region(s). */
export interface RegionTelemetry {
  seconds: number
  samples: number
  util_pct: number | null
  sm_clock_mhz: number | null
  power_w: number | null
  /** Integrated power over the windows; null when power does not cover them. */
  energy_j: number | null
  throttled_samples: number
  /** Throttle reasons seen in the windows (names of clocks_event_reasons bits). */
  reasons: string[]
}

/** GPU memory one process held after warm-up (`memory` event minus `event`), per arm: the first measured run's. */
export interface ArmMemory {
  environment: string
  workload: string
  facts: Record<string, unknown>
}

export type FindingKind =
  | 'failure'
  | 'cotenant'
  | 'env'
  | 'stack'
  | 'clocks'
  | 'throttling'
  | 'power'
  | 'utilization'
  | 'memory'
  | 'startup'

export interface Finding {
  kind: FindingKind
  /** Stable key: `env:NAME`, a flattened stack key, `telemetry:clocks`, `startup:first_kernel_s`… */
  key: string
  /** Short human name of what differs. */
  label: string
  baseline: string | null
  candidate: string | null
  impact: Impact
  domains: Domain[]
  /** The measured differences this can explain, e.g. `matmul kernel_ms +576.0%`. */
  explains: string[]
  /** Workloads whose processes recorded this difference. */
  workloads: string[]
  meaning: string
  fix: string
  /** Can explain a measured difference of this check. */
  relevant: boolean
  /** Other facts of the same kind that differ too (e.g. numpy.blas.config beside numpy.blas.name). */
  also?: string[]
  /** Set by the image's declared ENV (docker image inspect), not by the workflow. */
  from_image_env?: boolean
}

/** A difference between the arms the check measured (a regression, an inconclusive gate, a significant shift). */
export interface MeasuredDifference {
  workload: string
  metric: string
  scope: string
  overhead_pct: number
  verdict: string
  domains: Domain[]
  /** Both arms sat at the same two levels: a host state, which no recorded fact of the stack explains. */
  shared_levels?: boolean
  /** Blocks far off the others (analyze/far-blocks.ts): a host state between a block's processes, or a slow path. */
  far_blocks?: number
}

export interface Explanation {
  baseline_env: string
  candidate_env: string
  measured: MeasuredDifference[]
  /** Ranked: relevant first, then by impact and kind. */
  findings: Finding[]
  /** One line for the verdict and the PR comment. */
  headline: string
}
