/** Contracts of the explainer: each arm's recorded stack in, ranked findings out (summary.json `explanation`). */
import type { Domain, Impact } from '../../execute/stack/knowledge.js'
export type { ArmStack } from '../../execute/stack/types.js'

/** GPU memory one process held after warm-up (`memory` event minus `event`), per arm: the first measured run's. */
export interface ArmMemory {
  environment: string
  workload: string
  facts: Record<string, unknown>
}

export type FindingKind = 'env' | 'stack' | 'clocks' | 'throttling' | 'power' | 'utilization' | 'memory' | 'startup'

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
