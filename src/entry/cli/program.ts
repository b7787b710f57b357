/** The CLI's commands and flags (commander); each action loads its command module when it runs. */
import { Command, Option } from 'commander'
import { DEFAULTS } from '../../config/index.js'
import { Inputs } from '../../types/inputs.js'
import { COMMAND_FORMATS, GPU_ACCESS_MODES, RESULT_FORMATS } from '../../types/index.js'
import { writeErr } from '../../util/log.js'
import { VERSION } from '../../util/version.js'
import {
  ACTION_ONLY,
  BOOLEAN_INPUTS,
  DEFAULT_CONFIG_HINT,
  ON_INCONCLUSIVE_HELP,
  runFlagHelp
} from './help.js'
import { runCommand } from './run-flags.js'

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

/** `run`: every action input as a flag (action-only ones hidden and refused), and the repeatable commands. */
function addRun(program: Command): void {
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
}

/** `analyze`: statistics only, on result files. */
function addAnalyze(program: Command): void {
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
}

/** `gate`: the driver gate. */
function addGate(program: Command): void {
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
}

/** `io-check`: where data and checkpoints land. */
function addIoCheck(program: Command): void {
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
}

/** `aggregate DIR...`: the fleet report. */
function addAggregate(program: Command): void {
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
}

/** `trend`: change points over the baseline history. */
function addTrend(program: Command): void {
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
      const { trendCli } = await import('./commands.js')
      process.exitCode = await trendCli(opts)
    })
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
  for (const add of [addRun, addAnalyze, addGate, addIoCheck, addAggregate, addTrend]) add(program)
  return program
}
