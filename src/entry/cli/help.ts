/** The CLI's help texts, and which action inputs `run` refuses (with what to do instead). */
import { CHECKPOINT_CONTAINER_PATH, DATA_CONTAINER_PATH, DEFAULTS } from '../../config/index.js'
import { Inputs } from '../../types/inputs.js'
import { COMMAND_FORMATS } from '../../types/index.js'

export const ON_INCONCLUSIVE_HELP =
  'an undecided check: pass | neutral (exit 0, reported UNDECIDED) | fail (exit 1); default neutral'

/** Action inputs that are booleans: as flags, `--x` means true and `--x false` turns them off. */
export const BOOLEAN_INPUTS = new Set<Inputs>([
  Inputs.SaveBaseline,
  Inputs.FailOnRegression,
  Inputs.AllowForkPrs,
  Inputs.AllowConfigCommands,
  Inputs.Telemetry,
  Inputs.Strict
])

const REPORT_IS_A_FILE = 'the CLI publishes nothing to GitHub: the report is OUT/report.md (and summary.json)'
const USE_AGGREGATE = 'use the `gpu-overhead aggregate DIR...` command'
const USE_ANALYZE = 'use `gpu-overhead analyze --format-in FORMAT --input ENV=FILE,…`'

/**
 * Action-only inputs (the token and comment, the other modes' inputs: the CLI has a command per mode), and
 * what to do instead, for a user who passes one to `run` (hidden flags, refused by name, in this order).
 */
export const ACTION_ONLY_INSTEAD: Record<string, string> = {
  [Inputs.GithubToken]: REPORT_IS_A_FILE,
  [Inputs.Comment]: REPORT_IS_A_FILE,
  [Inputs.CheckRun]:
    'the CLI publishes nothing to GitHub: its exit code is the verdict (0 pass, 1 failed, 2 error)',
  [Inputs.BaselineBranch]: 'the CLI reads and writes --baseline-path itself (a file anywhere you name)',
  [Inputs.Mode]: USE_AGGREGATE,
  [Inputs.AggregateDirs]: USE_AGGREGATE,
  [Inputs.TrendMetrics]: 'use `gpu-overhead trend --baseline FILE --metric NAME`',
  [Inputs.TrendIssues]: 'the CLI opens no issues: `gpu-overhead trend` prints the change points',
  [Inputs.Results]: USE_ANALYZE,
  [Inputs.ResultsFormat]: USE_ANALYZE
}
export const ACTION_ONLY = Object.keys(ACTION_ONLY_INSTEAD) as readonly Inputs[]

/** The help line of a `run` flag, with the default it takes when neither flag, input nor config file sets it. */
export function runFlagHelp(name: Inputs): string {
  const help = INPUT_HELP[name] ?? name
  const fallback = DEFAULTS[name]
  if (/\bdefault\b/.test(help)) return help
  return `${help} (default: ${fallback === '' ? 'none' : fallback})`
}

export const DEFAULT_CONFIG_HINT = 'the --config file (default gpu-overhead.yml if present)'

export const INPUT_HELP: Partial<Record<Inputs, string>> = {
  [Inputs.Image]: 'container image to compare, pinned by digest (repo:tag@sha256:…)',
  [Inputs.Workloads]:
    'auto (matmul,llm,io, or only the --command workloads when any are given), or a comma list of matmul, llm, io and command names (every command must be listed)',
  [Inputs.Runs]: 'measured processes per arm and workload before the first sequential look (the minimum)',
  [Inputs.MaxRuns]:
    'most measured processes per arm: pairs go on until every gated metric is decided (= runs: fixed count)',
  [Inputs.TimeBudget]: 'seconds (or 2.5m) the runs may take; no pair starts that would overrun it (0 = none)',
  [Inputs.WarmupRuns]: 'warm-up processes per arm (not analysed)',
  [Inputs.Prestart]:
    'start the next process (imports, no CUDA) while one measures; release it when the GPU is free (default true on gpu, false on cpu)',
  [Inputs.Turns]:
    "on one GPU, a block's processes (llm) take turns request by request, so a host state hits both arms alike",
  [Inputs.GateIoThroughput]: 'let io bind-mount MB/s gate (default: informational; io mount rule gates)',
  [Inputs.GateMetrics]:
    'tail metrics that gate, WORKLOAD/METRIC comma list, e.g. llm/tpot_p99_ms (default: none; tails are shown)',
  [Inputs.Device]: 'gpu | cpu (cpu runs the same pipeline without a GPU)',
  [Inputs.GpuAccess]: 'how the container gets the GPU: gpus | cdi | devices',
  [Inputs.Gpus]: 'all, or GPU indices/UUIDs; several run one process per GPU at once (per-GPU + pooled)',
  [Inputs.ContainerRuntime]: 'docker | podman',
  [Inputs.Arms]: 'environments compared: native, container, container:<ref> (first is the baseline)',
  [Inputs.MaxOverhead]: 'largest acceptable overhead, e.g. 2%',
  [Inputs.Alpha]: 'significance level',
  [Inputs.BaselinePath]: 'baseline JSON file',
  [Inputs.SaveBaseline]: 'append this run to the baseline file',
  [Inputs.FailOnRegression]: 'exit 1 on a regression (false: report it, exit 0)',
  [Inputs.OnInconclusive]: ON_INCONCLUSIVE_HELP,
  [Inputs.AllowForkPrs]:
    'run pull requests from forks (action only; refused by default on self-hosted runners)',
  [Inputs.DataPath]: `dataset folder (bound read-only at ${DATA_CONTAINER_PATH} in the container)`,
  [Inputs.CheckpointPath]: `checkpoint folder (bound at ${CHECKPOINT_CONTAINER_PATH} in the container)`,
  [Inputs.Out]: 'results folder',
  [Inputs.Config]:
    'YAML config file (default gpu-overhead.yml if present): the 12 measurement knobs of docs/inputs.md',
  [Inputs.Schedule]: 'abba | random (seeded) interleaving of arms',
  [Inputs.GpuLayout]:
    'auto | duet | lockstep: on several GPUs, run the two arms at once on two GPUs and swap (duet) or every GPU the same arm (lockstep)',
  [Inputs.Seed]: 'seed for the schedule, bootstrap and workloads',
  [Inputs.RunTimeout]: 'seconds before one process is killed',
  [Inputs.Telemetry]: 'sample nvidia-smi every 100 ms',
  [Inputs.Strict]: 'fail (not warn) when the driver is older than the toolkit release driver',
  [Inputs.DriverMount]: 'driver library folder mounted for gpu-access=devices (default /usr/local/nvidia)',
  [Inputs.MatmulSize]: 'matrix size N (N×N); default 10000 on gpu, 512 on cpu',
  [Inputs.MatmulDtype]: 'fp32 | tf32 | bf16 | fp16',
  [Inputs.LlmPreset]: 'tiny | 1b | 8b (default 1b on gpu, tiny on cpu)',
  [Inputs.CheckpointMb]: 'checkpoint size for the io workload, MiB (default 256 on gpu, 64 on cpu)',
  [Inputs.Python]: 'python interpreter for the native arm',
  [Inputs.ContainerMemory]: 'memory limit per container, e.g. 16g (empty: no limit)',
  [Inputs.ContainerArgs]:
    "the container arm's launch flags, e.g. '--ipc=host --ulimit memlock=-1 --shm-size=8g' (allow-listed; never from --config)",
  [Inputs.Commands]: 'your own workloads, one NAME: COMMAND a line (or repeat --command NAME=COMMAND)',
  [Inputs.AllowConfigCommands]:
    "also run the --config file's commands: map (NAME: COMMAND or NAME: {run, format}); a flag's command of the same name wins. Off by default: a command in a checked-out file is that tree's code",
  [Inputs.CommandFormats]: `how each command is read, NAME=FORMAT a line (or --command-format): ${COMMAND_FORMATS.join(' | ')}`,
  [Inputs.PowerCaps]: 'watts to sweep, e.g. 400,550,700 (nvidia-smi -pl as root; limits always restored)'
}
