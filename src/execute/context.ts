/**
 * What the execute stage is given beside its finished steps (plan/steps.ts StepPlan): how to build and tag
 * each process, where its records go, and when to stop. Planning decided the rest (lanes, layout, which
 * blocks take turns); each process's spec says how it starts and how its results are read.
 */
import type { GateMetricSet } from '../config/index.js'
import type { PlannedRun } from '../plan/index.js'
import type { Lane } from '../types/index.js'
import type {
  Arm,
  CommandFormat,
  CotenantList,
  Fingerprint,
  RecordSink,
  SampleRecord,
  Workload
} from '../types/index.js'
import type { Logger } from '../util/log.js'
import type { ProcessSpec } from './process-types.js'

/** How a sample's scope is decided (the gate-* inputs): which metrics gate, which are shown only. */
export interface SampleScoring {
  /** io's bind-mount MB/s gate (otherwise informational). */
  gateIoThroughput?: boolean
  /** The tail metrics gate-metrics names (config/tail-metrics.ts): those gate, the other tails are shown. */
  gateMetrics?: GateMetricSet
  /** GPU memory metrics gate (scope steady) instead of being informational. */
  gateMemory?: boolean
}

/** A planned run's process, and what the launcher needs to record its run. */
export interface RunSpec extends ProcessSpec {
  /**
   * How a user command's results are read once it ends (CommandFormat; absent or null: a built-in, which
   * speaks the protocol).
   */
  resultFormat?: CommandFormat | null
  /** How its arm's processes are launched (entrypoint, launch flags): merged into its stack facts as `launch.*`. */
  launchFacts?: () => Record<string, string>
}

export interface ExecuteContext {
  checkId: string
  /**
   * Builds the process for a planned run (native or container) on a lane; `hold`: started early, held;
   * `turns`: it takes turns with its block's other processes (execute/turns.ts).
   */
  specFor(run: PlannedRun, lane: Lane | null, hold: boolean, turns: boolean): RunSpec
  /**
   * Hide start-up: while one process measures, the next ones (fresh processes, as always; plan/blocks.ts says
   * which) are started and held after their imports — CPU only, before any CUDA call — and each is released
   * when the GPU is free for it. One lane only.
   */
  prestart?: boolean
  /** The device measured: a CPU check's progress lines name no GPUs (a process without a lane is just its arm). */
  device?: 'gpu' | 'cpu'
  fingerprintFor(arm: Arm, lane: Lane | null): Fingerprint
  /** The params that key a workload's series (its definition's); the runner adds the interleave tag and the cap. */
  paramsFor(workload: Workload): Record<string, unknown>
  /**
   * The power cap this pass runs at (a sweep runs the plan once per cap): part of the configuration, so each
   * cap is its own series, baseline entry and comparison (params.power_cap_w); it prefixes the progress lines.
   */
  powerCapW?: number
  writer: RecordSink
  logger: Logger
  signal?: AbortSignal
  /**
   * Asked after each completed block of a workload (every arm ran once more): a reason stops that workload
   * (sequential stopping: decided, max-runs, time budget); null goes on. Absent: the whole plan runs.
   */
  afterBlock?: (done: BlockDone) => string | null
  scoring?: SampleScoring
  /**
   * Reads the other compute processes on a measured process's GPU, once, at the start of its measured
   * region (cotenants.ts; absent: not read). `ownPid`: the PID the workload saw for itself.
   */
  gpuCotenants?: (
    fingerprint: Fingerprint,
    ownPid: number | null,
    checkPids?: readonly number[]
  ) => Promise<CotenantList>
}

export interface BlockDone {
  workload: Workload
  /** Runs per arm of this workload so far (blocks × lanes). */
  run: number
  /** Every measured (non-warm-up) sample of the check so far. */
  samples: readonly SampleRecord[]
  elapsedMs: number
  blockMs: number
}
