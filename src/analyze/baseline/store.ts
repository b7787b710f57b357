/**
 * The baseline store's interface: what a check hands it and what it answers. `JsonFileBaselineStore`
 * keeps a JSON file in the repository; another backend (e.g. an artifact of the default branch's last
 * run) implements the same three methods.
 */
import type { BaselineResult } from '../../types/index.js'
import type { ArmSeries, PartialFingerprint } from '../../results/index.js'
import type { BootstrapOptions } from '../stats/index.js'
import type { BaselineFile } from './format.js'

/** What a check measured: per-run series and fingerprint facts per arm. */
export interface CurrentResults {
  check_id: string
  /** ISO time of the check (default: now). */
  time?: string
  /** The commit the check ran on (GITHUB_SHA): stored with the check and in the trend history. */
  commit?: string | null
  series: readonly ArmSeries[]
  fingerprints: Record<string, PartialFingerprint | undefined>
  /** Stack digest per environment and workload (Fingerprint.stack). */
  stacks?: Record<string, Record<string, string>>
}

export interface BaselineCompareOptions {
  maxOverheadPct: number
  alpha: number
  /** Arms to compare with their stored baselines (default: every arm in `series`). */
  environments?: readonly string[]
  bootstrap?: BootstrapOptions
}

export interface BaselineLoad {
  status: 'ok' | 'missing' | 'corrupt'
  location: string
  message: string
  data?: BaselineFile
}

export interface AppendOptions {
  /** Accepted checks kept per entry (default 5). */
  keep?: number
  /** Replace a corrupt or foreign file (it is renamed to `<file>.corrupt-<time>` first). */
  overwriteCorrupt?: boolean
  /** Arms to store (default: every arm in `series`). */
  environments?: readonly string[]
  /** Points kept per series in the trend history (default 200). */
  historyKeep?: number
}

export interface AppendResult {
  saved: boolean
  location: string
  message: string
  /** Entries written or updated. */
  entries: number
}

export interface BaselineStore {
  /** Where the baseline lives, for messages (a path, an artifact name...). */
  readonly location: string
  load(): Promise<BaselineLoad>
  /** Current (candidate) vs stored (baseline), arm by arm, with the same tests as the arms comparison. */
  compare(current: CurrentResults, options: BaselineCompareOptions): Promise<BaselineResult>
  /** Add this check's per-run values as an accepted run (call only when the check passed). */
  append(current: CurrentResults, options?: AppendOptions): Promise<AppendResult>
}
