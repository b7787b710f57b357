/**
 * The CLI's commands and flags (commander), as data: each command's description, arguments and options, and
 * what runs it (each loads its command module when it runs). Flags several commands take are declared once.
 */
import { Command, Option } from 'commander'
import { DEFAULTS, cliSource } from '../../config/index.js'
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
import type * as Commands from './commands.js'

/** `--flag <value>` with its help and default (none: commander's undefined), as `command.option` makes it. */
function flag(flags: string, description: string, fallback?: unknown): Option {
  return new Option(flags, description).default(fallback)
}

/** A flag given once per value (`--input a --input b`): the values in order. */
function repeated(flags: string, description: string, fallback?: string[]): Option {
  return flag(flags, description, fallback).argParser((value: string, previous: string[] | undefined) => [
    ...(previous ?? []),
    value
  ])
}

/** The flags several commands take, declared once (a fresh Option each time: commander owns what it adds). */
const SHARED = {
  maxOverhead: () =>
    flag('--max-overhead <pct>', 'largest acceptable overhead', DEFAULTS[Inputs.MaxOverhead]),
  alpha: () => flag('--alpha <alpha>', 'significance level', DEFAULTS[Inputs.Alpha]),
  onInconclusive: () => flag('--on-inconclusive <mode>', ON_INCONCLUSIVE_HELP),
  /** `--format md|json` of the report commands (analyze, aggregate, trend). */
  format: () => new Option('--format <format>', 'output format').choices(['md', 'json']).default('md'),
  /** `--format text|json` of the probe commands (gate, io-check). */
  textFormat: () =>
    new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'),
  /** `--container-runtime` of the commands that start a container themselves. */
  runtime: () => new Option('--container-runtime <runtime>', 'docker | podman').default('docker')
}

interface CommandSpec {
  name: string
  description: string
  /** The command's one argument (`aggregate DIR...`). */
  argument?: { syntax: string; help: string }
  /** Its options, in the help's order. */
  options: () => Option[]
  /** Help text after the options. */
  after?: string
  /** What runs it (commands.ts, loaded only then), on its flags and argument values; gives the exit code. */
  handler: keyof typeof Commands
}

/** `run`: every action input as a flag (action-only ones hidden and refused), and the repeatable commands. */
const RUN: CommandSpec = {
  name: 'run',
  description: 'run the workloads natively and in the container, analyse, report and gate',
  options: () => [
    ...Object.values(Inputs).map(name =>
      ACTION_ONLY.includes(name)
        ? new Option(`--${name} <value>`).hideHelp()
        : flag(BOOLEAN_INPUTS.has(name) ? `--${name} [bool]` : `--${name} <value>`, runFlagHelp(name))
    ),
    repeated('--command <NAME=COMMAND>', 'your own workload, run natively and in the image (repeatable)', []),
    repeated(
      '--command-format <NAME=FORMAT>',
      `${COMMAND_FORMATS.join(' | ')} for that command (repeatable)`,
      []
    )
  ],
  after: `\nPrecedence: flags > ${DEFAULT_CONFIG_HINT} > defaults. --out may be any folder; the action keeps it in the workspace.`,
  handler: 'runCli'
}

/** `analyze`: statistics only, on result files. */
const ANALYZE: CommandSpec = {
  name: 'analyze',
  description:
    'statistics only, on a long-format results CSV (workload,environment,run,metric,value) or on result files of a benchmark tool (--format-in)',
  options: () => [
    repeated(
      '--input <file>',
      'results CSV; with a JSON --format-in: ENV=FILE pairs, comma-separated or repeated, each file one run of that arm (native=a1.json,native=a2.json,container=b1.json,…)'
    ).makeOptionMandatory(),
    flag('--format-in <format>', RESULT_FORMATS.join(' | '), 'csv'),
    repeated(
      '--arm <ENV=INDEX|ENV=COMMAND>',
      "with --format-in hyperfine: a multi-command export's command (its index in results, or its text or --command-name) as that arm; repeat per arm (--arm native=0 --arm container=1); --input then takes plain FILEs, each timed run one run of its arm"
    ),
    // No commander defaults here: the command's own fallback (native/container when present, else the
    // two environments in order of appearance) must see which flags were actually given.
    flag('--baseline-env <env>', 'baseline environment (default: native, or the first of two)'),
    flag('--candidate-env <env>', 'candidate environment (default: container, or the second of two)'),
    flag('--baseline <file>', 'baseline JSON file to compare against as well'),
    SHARED.maxOverhead(),
    SHARED.alpha(),
    flag(
      '--gate-metrics <list>',
      'tail metrics that gate, WORKLOAD/METRIC comma list (llm/tpot_p99_ms, vllm-bench-serve/p99_ttft_ms); default: tails shown, not gated'
    ),
    SHARED.onInconclusive(),
    SHARED.format()
  ],
  handler: 'analyzeCli'
}

/** `gate`: the driver gate. */
const GATE: CommandSpec = {
  name: 'gate',
  description: "driver gate: can the host driver run the image's CUDA?",
  options: () => [
    flag('--driver <version>', 'driver version (default: read from nvidia-smi)'),
    flag('--cuda <version>', 'CUDA version the image needs'),
    flag('--image <ref>', 'image to read the CUDA version from'),
    flag('--strict', 'fail (not warn) below the toolkit release driver', false),
    flag(
      '--driver-cuda <version>',
      'with --driver: the CUDA version the driver supports (nvidia-smi "CUDA Version")'
    ),
    flag(
      '--brand <brand>',
      'with --driver: the GPU brand (nvidia-smi "Product Brand", e.g. "NVIDIA Virtual Compute Server")'
    ),
    flag('--compute-cap <X.Y>', 'with --driver: the GPU compute capability (NVIDIA_REQUIRE_* arch)'),
    flag(
      '--gpu-name <name>',
      'with --driver: the GPU name (a data-center GPU can use forward compatibility)'
    ),
    SHARED.runtime(),
    new Option(
      '--gpu-access <mode>',
      'how containers get the GPU: under gpus the NVIDIA Container Toolkit refuses an image whose NVIDIA_REQUIRE_* this host does not meet (fail); cdi and devices check nothing (warn)'
    )
      .choices([...GPU_ACCESS_MODES])
      .default(DEFAULTS[Inputs.GpuAccess]),
    SHARED.textFormat()
  ],
  handler: 'gateCli'
}

/** `io-check`: where data and checkpoints land. */
const IO_CHECK: CommandSpec = {
  name: 'io-check',
  description: 'where do data and checkpoints land in the container: bind mount or OverlayFS?',
  options: () => [
    flag('--image <ref>', 'image to start').makeOptionMandatory(),
    flag('--data <spec>', 'HOST:CONTAINER[:ro] bind mount, or a bare CONTAINER path'),
    flag('--ckpt <spec>', 'HOST:CONTAINER[:ro] bind mount, or a bare CONTAINER path'),
    SHARED.runtime(),
    SHARED.textFormat()
  ],
  handler: 'ioCheckCli'
}

/** `aggregate DIR...`: the fleet report. */
const AGGREGATE: CommandSpec = {
  name: 'aggregate',
  description:
    'merge the result folders of several runners into one report; pools only identical fingerprints',
  argument: {
    syntax: '<dirs...>',
    help: 'results folders written by `gpu-overhead run` (results.jsonl + summary.json)'
  },
  options: () => [
    flag('--out <dir>', 'folder for aggregate.md and aggregate.json', 'gpu-overhead-aggregate'),
    SHARED.maxOverhead(),
    SHARED.alpha(),
    SHARED.onInconclusive(),
    SHARED.format()
  ],
  handler: 'aggregateCli'
}

/** `trend`: change points over the baseline history. */
const TREND: CommandSpec = {
  name: 'trend',
  description: 'change points (e-divisive means, t-test) over the accepted checks kept in the baseline file',
  options: () => [
    flag('--baseline <file>', 'baseline JSON file whose history to analyse').makeOptionMandatory(),
    flag(
      '--metric <names...>',
      'metrics to analyse, comma or space separated (default: every steady-state metric)'
    ),
    flag('--window <n>', 'sliding window of the split step', '50'),
    flag('--max-p <p>', 'largest p of a reported change point (corrected for the split search)', '0.001'),
    flag('--min-change <pct>', 'smallest change reported', DEFAULTS[Inputs.MaxOverhead]),
    SHARED.format()
  ],
  handler: 'trendCli'
}

function addCommand(program: Command, spec: CommandSpec): void {
  const command = program.command(spec.name).description(spec.description)
  if (spec.argument) command.argument(spec.argument.syntax, spec.argument.help)
  for (const option of spec.options()) command.addOption(option)
  if (spec.after !== undefined) command.addHelpText('after', spec.after)
  // The flags and the argument's values (`aggregate`'s folders) as the command's one source (config/reader.ts).
  command.action(async () => {
    const [args] = command.processedArgs as (string[] | undefined)[]
    const commands = await import('./commands.js')
    process.exitCode = await commands[spec.handler](cliSource(command.opts(), args ?? []))
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
  for (const spec of [RUN, ANALYZE, GATE, IO_CHECK, AGGREGATE, TREND]) addCommand(program, spec)
  return program
}
