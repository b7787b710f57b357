/** What `gpu-overhead aggregate` reads and writes (aggregate.json). */
import type { Analysis, CheckSummary, CheckVerdict, Fingerprint, SampleRecord } from '../types/index.js'

/** One results folder written by `gpu-overhead run` on one runner. */
export interface ResultSource {
  /** The folder as given. */
  dir: string
  /** Short unique name (the folder's name, or enough of its path to tell it apart); prefixes its run numbers. */
  label: string
  summary: CheckSummary
  records: SampleRecord[]
}

/** What must be equal for two checks' samples to be pooled. Unknown facts (null) only pool with unknown. */
export interface GroupKeyArm {
  label: string
  kind: 'native' | 'container'
  image_digest: string | null
  gpu_access: string | null
  /** Fingerprint.stack of the arm: checks made on different stacks are never pooled. */
  stack: string | null
}
export interface GroupKey {
  device: string | null
  gpu_name: string | null
  driver: string | null
  mig_mode: string | null
  arms: GroupKeyArm[]
}

export interface AggregateSourceInfo {
  label: string
  dir: string
  check_id: string
  host: string | null
  gpu_uuid: string | null
  started_at: string
  complete: boolean
  /** The verdict that runner's own check gave. */
  verdict: CheckVerdict
  /** Measured runs per arm contributed to the pool. */
  runs_per_arm: Record<string, number>
}

export interface AggregateGroup {
  /** `G1`, `G2`, … in order of the first source of each group. */
  id: string
  key: GroupKey
  /** Fingerprint per arm, from the group's first source (host and GPU UUID vary within a group). */
  fingerprint: Record<string, Fingerprint>
  /** Image reference per arm as given (null for native). */
  images: Record<string, string | null>
  sources: AggregateSourceInfo[]
  baseline_env: string
  candidate_envs: string[]
  /** Pooled analysis; null when no sample was measured in the group. */
  analysis: Analysis | null
  verdict: CheckVerdict
  /**
   * Pooled run labels (`<source>/<run>`) per arm, in the order the analysis sees them: outlier positions
   * in the comparisons (runs are not plain numbers after pooling) index into these lists, 1-based.
   */
  runs: Record<string, string[]>
  /** The closest earlier group and the key fields that kept the two apart. */
  not_pooled_with: { group: string; differences: string[] } | null
  /** Preflight gates that failed on a runner of this group, as `<source>: <name>: <message>`. */
  failed_preflight: string[]
  notes: string[]
}

export interface AggregateReport {
  schema: 'gpu-overhead/aggregate@1'
  tool_version: string
  created_at: string
  /** regression if any group has one; error if a group could not vouch for anything; else incomparable or pass. */
  verdict: CheckVerdict
  max_overhead_pct: number
  alpha: number
  /** Fingerprint fields that split groups. */
  key_fields: string[]
  groups: AggregateGroup[]
}
