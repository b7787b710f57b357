/** The check's settings: what loadConfig (config.ts) hands every stage, validated and typed. */
import type {
  Arm,
  CommandWorkload,
  CommentMode,
  ContainerRuntime,
  Device,
  GpuAccess,
  GpuLayout,
  Mount,
  OnInconclusive,
  Schedule,
  Workload
} from '../types/index.js'
import type { ImageRef } from './image-ref.js'
import type { GateMetric } from './tail-metrics.js'
import type { WorkloadDefinition } from './workloads/index.js'
import type { LlmPreset, MatmulDtype } from './workloads/definition.js'

export interface Config {
  /** The `image` input as given (validated); `images` holds the parsed references. */
  image: string | null
  /** Every image a container arm runs (unique, in arm order), parsed once here and passed on typed. */
  images: ImageRef[]
  workloads: Workload[]
  /** The same workloads as definitions (built-ins and commands), resolved once: what the stages read. */
  definitions: WorkloadDefinition[]
  /** Runs per arm before the first sequential look (and the whole count when maxRuns equals it). */
  runs: number
  /** Most runs per arm: the check goes on pair by pair until every gated metric is decided or this is reached. */
  maxRuns: number
  /** Seconds the runs may take in all; no new pair starts that would overrun it (null: no budget). */
  timeBudgetS: number | null
  warmupRuns: number
  device: Device
  gpuAccess: GpuAccess
  /** GPU indices or UUIDs; 'all' = every visible GPU. */
  gpus: 'all' | string[]
  containerRuntime: ContainerRuntime
  arms: Arm[]
  maxOverheadPct: number
  alpha: number
  baselinePath: string
  saveBaseline: boolean
  /** Branch that stores the baseline between action runs; null = the file in the workspace only. */
  baselineBranch: string | null
  data: Mount | null
  checkpoint: Mount | null
  githubToken: string | null
  comment: CommentMode
  /** Name of the GitHub Check run that carries the verdict; null = none. */
  checkRun: string | null
  failOnRegression: boolean
  /** What an undecided check does to the step and the Check run (never read from the config file). */
  onInconclusive: OnInconclusive
  allowForkPrs: boolean
  out: string
  /**
   * The folder the results folder must resolve inside (trusted root); null for the CLI, whose user may put
   * outputs anywhere (the results folder's own parent is then its root).
   */
  workspace: string | null
  configFile: string | null
  schedule: Schedule
  gpuLayout: GpuLayout
  seed: number
  runTimeoutS: number
  telemetry: boolean
  strict: boolean
  /** Host folder with the driver's user-space libraries, mounted read-only for gpu-access=devices. */
  driverMount: string | null
  matmulSize: number
  matmulDtype: MatmulDtype
  llmPreset: LlmPreset
  checkpointMb: number
  /**
   * io's bind-mount MB/s gate like steady-state GPU work. Off by default: both arms read and write the same
   * file system through the mount, so the difference is disk noise; io's rule (mounts, copy-up) gates instead.
   */
  gateIoThroughput: boolean
  /** The tail metrics that gate (gate-metrics; config/tail-metrics.ts); empty: tails are shown, not gated. */
  gateMetrics: GateMetric[]
  /**
   * Hide start-up: start the next workload process (interpreter, imports; no CUDA) while the current one
   * measures, and release it when the GPU is free. Each run is still its own fresh process.
   */
  prestart: boolean
  /**
   * On one GPU, a block's processes of a workload that can (the built-in llm) are prepared at once and
   * measure in turns, iteration by iteration (execute/turns.ts).
   */
  turns: boolean
  /** Python interpreter for the native arm. */
  python: string
  /** Memory limit of each workload container (`--memory`/`--memory-swap`, e.g. `8g`); null = no limit. */
  containerMemory: string | null
  /** The container arm's launch flags (container-args: allow-listed, trusted sources only), as an argv. */
  containerArgs: string[]
  /**
   * The user's own workloads (commands), each with its source: the workflow's (input or flag), then the
   * checked-out config file's when the workflow allows them (allow-config-commands).
   */
  commands: CommandWorkload[]
  /** Whether the config file's `commands:` map is honoured (workflow input or flag only; off by default). */
  allowConfigCommands: boolean
  /** Names the config file gave a command too, where the workflow's command of that name won. */
  overriddenCommands: string[]
  /** Power limits to sweep, watts, in order; empty = measure at the current limit only. */
  powerCaps: number[]
}
