/** The vocabulary every stage shares: devices, runtimes, workloads, verdicts, fingerprints, arms, lanes, mounts. */

export const DEVICES = ['gpu', 'cpu'] as const
export type Device = (typeof DEVICES)[number]

export const GPU_ACCESS_MODES = ['gpus', 'cdi', 'devices'] as const
export type GpuAccess = (typeof GPU_ACCESS_MODES)[number]

export const CONTAINER_RUNTIMES = ['docker', 'podman'] as const
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number]

export const COMMENT_MODES = ['always', 'on-regression', 'never'] as const
export type CommentMode = (typeof COMMENT_MODES)[number]

export const WORKLOADS = ['matmul', 'llm', 'io'] as const
/** A workload's name: a built-in (WORKLOADS) or a user command (config `commands`). */
export type Workload = string
export type BuiltinWorkload = (typeof WORKLOADS)[number]

/** Formats of result files `analyze` reads (src/results/adapters): `csv` is the long CSV. */
export const RESULT_FORMATS = [
  'csv',
  'hyperfine',
  'pytest-benchmark',
  'google-benchmark',
  'vllm-bench-serve',
  'sglang-bench-serving',
  'trtllm-bench',
  'aiperf',
  'customSmallerIsBetter',
  'customBiggerIsBetter'
] as const
export type ResultFormat = (typeof RESULT_FORMATS)[number]

/** The JSON result files of benchmark tools: every format `analyze` reads but the long CSV. */
export type JsonResultFormat = Exclude<ResultFormat, 'csv'>
const JSON_RESULT_FORMATS = RESULT_FORMATS.filter((f): f is JsonResultFormat => f !== 'csv')

/**
 * How a user command's results are read: `protocol` (events on GPU_OVERHEAD_EVENTS, docs/protocol.md),
 * `wall` (the whole process's wall time, start-up and work unsplit), `auto` (protocol when the command sent
 * samples, else wall), or a tool's result file the command writes into `{out}` (hyperfine JSON, …).
 */
export const COMMAND_FORMATS = ['auto', 'protocol', 'wall', ...JSON_RESULT_FORMATS] as const
export type CommandFormat = (typeof COMMAND_FORMATS)[number]
/**
 * The command formats read from a result file (src/results/adapters), not from the protocol channel: the JSON
 * result formats (a command's run folder holds one `.json` result file, never the long CSV).
 */
export const FILE_COMMAND_FORMATS: readonly CommandFormat[] = JSON_RESULT_FORMATS

/**
 * Where a user command was named: `workflow` (the `commands` input or a CLI `--command`: trusted) or
 * `config-file` (the checked-out config file's `commands:` map, honoured only with `allow-config-commands`:
 * the pull request's choice, docs/security.md).
 */
export const COMMAND_SOURCES = ['workflow', 'config-file'] as const
export type CommandSource = (typeof COMMAND_SOURCES)[number]

/** A user's own workload: a command run unchanged natively (in the workspace) and in the image. */
export interface CommandWorkload {
  name: string
  /** The command as an argument array (no shell). */
  argv: string[]
  format: CommandFormat
  source: CommandSource
}

/**
 * `check` measures on this runner; `aggregate` merges result folders of many runners into one report;
 * `analyze` gates on result files that earlier steps wrote.
 */
export const MODES = ['check', 'aggregate', 'trend', 'analyze'] as const
export type Mode = (typeof MODES)[number]

export const SCHEDULES = ['abba', 'random'] as const
export type Schedule = (typeof SCHEDULES)[number]

/**
 * How the arms use several GPUs. `duet`: the two arms run at the same time on two GPUs and swap GPUs every
 * block, so a host-wide state hits both alike and GPU-to-GPU offsets cancel in the crossover. `lockstep`:
 * every GPU runs the same arm at once. `auto`: duet with two arms on an even number of GPUs, else lockstep.
 */
export const GPU_LAYOUTS = ['auto', 'duet', 'lockstep'] as const
export type GpuLayout = (typeof GPU_LAYOUTS)[number]

/** The action's `verdict` output. `inconclusive`: measured, but a gated metric stayed undecided. */
export const CHECK_VERDICTS = ['pass', 'regression', 'inconclusive', 'incomparable', 'error'] as const
export type CheckVerdict = (typeof CHECK_VERDICTS)[number]

/**
 * What an undecided check does to the step and the Check run (`on-inconclusive`, a trust setting: workflow
 * input or flag only): `pass` exits 0 with a green Check run, `neutral` exits 0 with a neutral one, `fail`
 * fails the step. Never green by default: an undecided check vouches for nothing.
 */
export const ON_INCONCLUSIVE = ['pass', 'neutral', 'fail'] as const
export type OnInconclusive = (typeof ON_INCONCLUSIVE)[number]

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
 * `tail` (a p90/p99 of TTFT, TPOT, ITL: config/tail-metrics.ts) is tested and shown, and gates only when
 * named in gate-metrics (its scope is then `steady`).
 */
export const METRIC_SCOPES = ['steady', 'startup', 'info', 'derived', 'tail'] as const
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
  /**
   * The launcher that starts its processes (src/launchers/ registry: native, docker, podman, …). Config always
   * sets it; absent in summaries written before launchers (then: native, or the check's container-runtime).
   */
  launcher?: string
}

/** One selected GPU of a check: every planned run starts one process per lane (resolved in preflight: preflight/lanes.ts). */
export interface Lane {
  /** nvidia-smi (NVML) index: the per-GPU form of `--gpus device=N` and CDI `nvidia.com/gpu=N`. */
  index: number
  uuid: string | null
  name: string | null
  /** Device node minor number (`/dev/nvidiaN`) for gpu-access: devices; null when unknown. */
  minor: number | null
}

/**
 * The one mount type: a host folder (or file) bound into the container. Config parses it once — the host
 * path already resolved (realpath) and judged by the mount policy — and it travels typed from there to the
 * preflight probe and the workload containers (tools/docker.ts); it is never turned back into a string.
 */
export interface Mount {
  /** Host path, resolved; never holds `:` or `,` (config refuses them: `-v`/`--mount` would split on them). */
  host: string
  /** Absolute path inside the container. */
  container: string
  readOnly: boolean
}
