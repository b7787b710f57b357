/**
 * The CLI: `gpu-overhead run | analyze | gate | io-check | aggregate`. Exit codes: 0 pass (warnings allowed),
 * 1 check failed, 2 bad input or environment error — always with one line saying what and how to fix.
 */
import './node-guard.js'
import { Command, CommanderError, Option } from 'commander'
import {
  CHECKPOINT_CONTAINER_PATH,
  DATA_CONTAINER_PATH,
  DEFAULTS,
  loadConfig,
  type RawInputs
} from '../../config/index.js'
import { Inputs } from '../../types/inputs.js'
import { COMMAND_FORMATS, GPU_ACCESS_MODES, RESULT_FORMATS } from '../../types/index.js'
import { exitCodeOf, ExitCode, getErrorMessage, InputError } from '../../util/errors.js'
import { flushAndExit } from '../../util/exit.js'
import { consoleLogger, writeErr } from '../../util/log.js'
import { VERSION } from '../../util/version.js'
import { registerEnvSecrets } from '../../util/secrets.js'

const ON_INCONCLUSIVE_HELP =
  'an undecided check: pass | neutral (exit 0, reported UNDECIDED) | fail (exit 1); default neutral'

/** Action inputs that are booleans: as flags, `--x` means true and `--x false` turns them off. */
const BOOLEAN_INPUTS = new Set<Inputs>([
  Inputs.SaveBaseline,
  Inputs.FailOnRegression,
  Inputs.AllowForkPrs,
  Inputs.AllowConfigCommands,
  Inputs.Telemetry,
  Inputs.Strict
])

/** Action-only inputs: the token and comment, and the aggregate mode (the CLI has `aggregate DIR...`). */
export const ACTION_ONLY: readonly Inputs[] = [
  Inputs.GithubToken,
  Inputs.Comment,
  Inputs.CheckRun,
  Inputs.BaselineBranch,
  Inputs.Mode,
  Inputs.AggregateDirs,
  Inputs.TrendMetrics,
  Inputs.TrendIssues,
  Inputs.Results,
  Inputs.ResultsFormat
]

/** What to do instead, for a user who passes an action-only input to `run` (hidden flags, refused by name). */
const ACTION_ONLY_INSTEAD: Record<string, string> = {
  [Inputs.GithubToken]: 'the CLI publishes nothing to GitHub: the report is OUT/report.md (and summary.json)',
  [Inputs.Comment]: 'the CLI publishes nothing to GitHub: the report is OUT/report.md (and summary.json)',
  [Inputs.CheckRun]:
    'the CLI publishes nothing to GitHub: its exit code is the verdict (0 pass, 1 failed, 2 error)',
  [Inputs.BaselineBranch]: 'the CLI reads and writes --baseline-path itself (a file anywhere you name)',
  [Inputs.Mode]: 'use the `gpu-overhead aggregate DIR...` command',
  [Inputs.AggregateDirs]: 'use the `gpu-overhead aggregate DIR...` command',
  [Inputs.TrendMetrics]: 'use `gpu-overhead trend --baseline FILE --metric NAME`',
  [Inputs.TrendIssues]: 'the CLI opens no issues: `gpu-overhead trend` prints the change points',
  [Inputs.Results]: 'use `gpu-overhead analyze --format-in FORMAT --input ENV=FILE,…`',
  [Inputs.ResultsFormat]: 'use `gpu-overhead analyze --format-in FORMAT --input ENV=FILE,…`'
}

/** The help line of a `run` flag, with the default it takes when neither flag, input nor config file sets it. */
export function runFlagHelp(name: Inputs): string {
  const help = INPUT_HELP[name] ?? name
  const fallback = DEFAULTS[name]
  if (/\bdefault\b/.test(help)) return help
  return `${help} (default: ${fallback === '' ? 'none' : fallback})`
}

const DEFAULT_CONFIG_HINT = 'the --config file (default gpu-overhead.yml if present)'

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
    'start the next process (imports, no CUDA) while one measures; release it when the GPU is free',
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
  [Inputs.Config]: 'YAML config file (default gpu-overhead.yml if present)',
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

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())
}

function formatOption(): Option {
  return new Option('--format <format>', 'output format').choices(['md', 'json']).default('md')
}

/** `--format text|json` of the probe commands (gate, io-check). */
function textFormatOption(): Option {
  return new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')
}

/** `--container-runtime` of the commands that start a container themselves. */
function runtimeOption(): Option {
  return new Option('--container-runtime <runtime>', 'docker | podman').default('docker')
}

/** Collects the flags the user actually gave, as raw strings keyed by input name. */
function rawFlags(opts: Record<string, unknown>): RawInputs {
  const raw: RawInputs = {}
  for (const name of Object.values(Inputs)) {
    const v = opts[camel(name)]
    if (v === undefined) continue
    raw[name] = v === true ? 'true' : typeof v === 'string' ? v : JSON.stringify(v)
  }
  return raw
}

async function runCommand(opts: Record<string, unknown>): Promise<number> {
  for (const name of ACTION_ONLY) {
    const v = opts[camel(name)]
    if (v !== undefined)
      throw new InputError(
        name,
        v,
        `nothing here: --${name} is an action input; ${ACTION_ONLY_INSTEAD[name]}`
      )
  }
  // The user's own shell picks where results go: --out /tmp/x is fine (the action keeps them in the workspace).
  const flags = rawFlags(opts)
  // --command NAME=CMD and --command-format NAME=FMT repeat; they add lines to commands / command-formats.
  for (const [input, key] of [
    [Inputs.Commands, 'command'],
    [Inputs.CommandFormats, 'commandFormat']
  ] as const) {
    const more = opts[key]
    if (Array.isArray(more) && more.length)
      flags[input] = [flags[input] ?? '', ...more.map(String)].filter(Boolean).join('\n')
  }
  const config = loadConfig({ flags, workspace: process.cwd(), outputsAnywhere: true })
  const { runCheckCli } = await import('./run.js')
  return runCheckCli(config, consoleLogger())
}

export function buildProgram(): Command {
  const program = new Command('gpu-overhead')
    .description(
      'Measure the container overhead of AI workloads on NVIDIA GPUs, with statistics, and gate on it.'
    )
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run gpu-overhead --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: s => writeErr(s) })

  const run = program
    .command('run')
    .description('run the workloads natively and in the container, analyse, report and gate')
  for (const name of Object.values(Inputs)) {
    if (ACTION_ONLY.includes(name)) run.addOption(new Option(`--${name} <value>`).hideHelp())
    else run.option(BOOLEAN_INPUTS.has(name) ? `--${name} [bool]` : `--${name} <value>`, runFlagHelp(name))
  }
  const collect = (value: string, previous: string[]): string[] => [...previous, value]
  run.option(
    '--command <NAME=COMMAND>',
    'your own workload, run natively and in the image (repeatable)',
    collect,
    []
  )
  run.option(
    '--command-format <NAME=FORMAT>',
    `${COMMAND_FORMATS.join(' | ')} for that command (repeatable)`,
    collect,
    []
  )
  run.addHelpText(
    'after',
    `\nPrecedence: flags > ${DEFAULT_CONFIG_HINT} > defaults. --out may be any folder; the action keeps it in the workspace.`
  )
  run.action(async (opts: Record<string, unknown>) => {
    process.exitCode = await runCommand(opts)
  })

  program
    .command('analyze')
    .description(
      'statistics only, on a long-format results CSV (workload,environment,run,metric,value) or on result files of a benchmark tool (--format-in)'
    )
    .requiredOption(
      '--input <file>',
      'results CSV; with a JSON --format-in: ENV=FILE pairs, comma-separated or repeated, each file one run of that arm (native=a1.json,native=a2.json,container=b1.json,…)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value]
    )
    .option('--format-in <format>', RESULT_FORMATS.join(' | '), 'csv')
    .option(
      '--arm <ENV=INDEX|ENV=COMMAND>',
      "with --format-in hyperfine: a multi-command export's command (its index in results, or its text or --command-name) as that arm; repeat per arm (--arm native=0 --arm container=1); --input then takes plain FILEs, each timed run one run of its arm",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value]
    )
    // No commander defaults here: the command's own fallback (native/container when present, else the
    // two environments in order of appearance) must see which flags were actually given.
    .option('--baseline-env <env>', 'baseline environment (default: native, or the first of two)')
    .option('--candidate-env <env>', 'candidate environment (default: container, or the second of two)')
    .option('--baseline <file>', 'baseline JSON file to compare against as well')
    .option('--max-overhead <pct>', 'largest acceptable overhead', DEFAULTS[Inputs.MaxOverhead])
    .option('--alpha <alpha>', 'significance level', DEFAULTS[Inputs.Alpha])
    .option(
      '--gate-metrics <list>',
      'tail metrics that gate, WORKLOAD/METRIC comma list (llm/tpot_p99_ms, vllm-bench-serve/p99_ttft_ms); default: tails shown, not gated'
    )
    .option('--on-inconclusive <mode>', ON_INCONCLUSIVE_HELP)
    .addOption(formatOption())
    .action(async (opts: Record<string, string>) => {
      const { analyzeCli } = await import('./commands.js')
      process.exitCode = await analyzeCli(opts)
    })

  program
    .command('gate')
    .description("driver gate: can the host driver run the image's CUDA?")
    .option('--driver <version>', 'driver version (default: read from nvidia-smi)')
    .option('--cuda <version>', 'CUDA version the image needs')
    .option('--image <ref>', 'image to read the CUDA version from')
    .option('--strict', 'fail (not warn) below the toolkit release driver', false)
    .option(
      '--driver-cuda <version>',
      'with --driver: the CUDA version the driver supports (nvidia-smi "CUDA Version")'
    )
    .option(
      '--brand <brand>',
      'with --driver: the GPU brand (nvidia-smi "Product Brand", e.g. "NVIDIA Virtual Compute Server")'
    )
    .option('--compute-cap <X.Y>', 'with --driver: the GPU compute capability (NVIDIA_REQUIRE_* arch)')
    .option(
      '--gpu-name <name>',
      'with --driver: the GPU name (a data-center GPU can use forward compatibility)'
    )
    .addOption(runtimeOption())
    .addOption(
      new Option(
        '--gpu-access <mode>',
        'how containers get the GPU: under gpus the NVIDIA Container Toolkit refuses an image whose NVIDIA_REQUIRE_* this host does not meet (fail); cdi and devices check nothing (warn)'
      )
        .choices([...GPU_ACCESS_MODES])
        .default(DEFAULTS[Inputs.GpuAccess])
    )
    .addOption(textFormatOption())
    .action(async (opts: Record<string, unknown>) => {
      const { gateCli } = await import('./commands.js')
      process.exitCode = await gateCli(opts)
    })

  program
    .command('io-check')
    .description('where do data and checkpoints land in the container: bind mount or OverlayFS?')
    .requiredOption('--image <ref>', 'image to start')
    .option('--data <spec>', 'HOST:CONTAINER[:ro] bind mount, or a bare CONTAINER path')
    .option('--ckpt <spec>', 'HOST:CONTAINER[:ro] bind mount, or a bare CONTAINER path')
    .addOption(runtimeOption())
    .addOption(textFormatOption())
    .action(async (opts: Record<string, unknown>) => {
      const { ioCheckCli } = await import('./commands.js')
      process.exitCode = await ioCheckCli(opts)
    })
  program
    .command('aggregate')
    .description(
      'merge the result folders of several runners into one report; pools only identical fingerprints'
    )
    .argument('<dirs...>', 'results folders written by `gpu-overhead run` (results.jsonl + summary.json)')
    .option('--out <dir>', 'folder for aggregate.md and aggregate.json', 'gpu-overhead-aggregate')
    .option('--max-overhead <pct>', 'largest acceptable overhead', DEFAULTS[Inputs.MaxOverhead])
    .option('--alpha <alpha>', 'significance level', DEFAULTS[Inputs.Alpha])
    .option('--on-inconclusive <mode>', ON_INCONCLUSIVE_HELP)
    .addOption(formatOption())
    .action(async (dirs: string[], opts: Record<string, unknown>) => {
      const { aggregateCli } = await import('./commands.js')
      process.exitCode = await aggregateCli(dirs, opts)
    })
  program
    .command('trend')
    .description(
      'change points (e-divisive means, t-test) over the accepted checks kept in the baseline file'
    )
    .requiredOption('--baseline <file>', 'baseline JSON file whose history to analyse')
    .option(
      '--metric <names...>',
      'metrics to analyse, comma or space separated (default: every steady-state metric)'
    )
    .option('--window <n>', 'sliding window of the split step', '50')
    .option('--max-p <p>', 'largest p of a reported change point (corrected for the split search)', '0.001')
    .option('--min-change <pct>', 'smallest change reported', DEFAULTS[Inputs.MaxOverhead])
    .addOption(formatOption())
    .action(async (opts: Record<string, unknown>) => {
      const { trendCli } = await import('./trend.js')
      process.exitCode = await trendCli(opts)
    })
  return program
}

export async function main(argv: string[]): Promise<number> {
  // Secret-named variables' values are masked in everything the CLI writes (util/secrets.ts).
  registerEnvSecrets(process.env)
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.Pass
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? ExitCode.Pass : ExitCode.UsageOrEnvironment
    }
    writeErr(`gpu-overhead: ${getErrorMessage(error)}`)
    return exitCodeOf(error)
  }
}

// Only when run as a program (not when imported by tests).
if (process.argv[1] && /(?:^|[\\/])(cli\.(?:js|ts)|gpu-overhead)$/.test(process.argv[1])) {
  main(process.argv).then(
    code => flushAndExit(code),
    (error: unknown) => {
      writeErr(`gpu-overhead: ${getErrorMessage(error)}`)
      return flushAndExit(exitCodeOf(error))
    }
  )
}
