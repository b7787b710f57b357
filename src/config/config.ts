/**
 * One place that turns action inputs, CLI flags and an optional YAML file into a validated Config.
 * Precedence: flags > action inputs > file > defaults. Every error names the input, the bad value and
 * what is allowed (InputError, exit 2). Parsers: parse.ts; defaults: defaults.ts; the file: file.ts.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { DEFAULT_CONFIG_FILE, Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import {
  COMMENT_MODES,
  CONTAINER_RUNTIMES,
  DEVICES,
  GPU_ACCESS_MODES,
  ON_INCONCLUSIVE,
  SCHEDULES,
  GPU_LAYOUTS,
  WORKLOADS,
  type Arm,
  type CommandWorkload,
  type CommentMode,
  type ContainerRuntime,
  type Device,
  type GpuAccess,
  type Mount,
  type OnInconclusive,
  type Schedule,
  type GpuLayout,
  type Workload
} from '../types/index.js'
import { validateImageRef, type ImageRef } from './image-ref.js'
import { CHECKPOINT_CONTAINER_PATH, DATA_CONTAINER_PATH } from './mount-spec.js'
import { containerLaunchArgs } from './launch-flags.js'
import { commandWorkloads, fileCommandWorkloads, mergeCommands } from './commands.js'
import { resolveWorkloads, type WorkloadDefinition } from './workloads/index.js'
import { LLM_PRESETS, MATMUL_DTYPES, type LlmPreset, type MatmulDtype } from './workloads/definition.js'
import { DEFAULTS, type RawInputs } from './defaults.js'
import { MOUNT_SPLITTERS, NO_SPLITTERS, chosen } from './parse.js'
import { readConfigFile } from './file.js'
import type { GateMetric } from './tail-metrics.js'
import {
  bool,
  gateMetrics,
  branchName,
  checkRunName,
  containerMemory,
  alpha,
  given,
  integer,
  list,
  maxRunsOf,
  hostMount,
  allowedHostFolder,
  oneOf,
  parseArmsWithImages,
  maxOverhead,
  powerCaps,
  safePath,
  timeBudget,
  validatePython,
  workspacePath
} from './parse.js'
import { checkBaselinePath, validateGithubToken } from './trusted-values.js'

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
/** `workloads: auto` (the default): the built-ins, unless commands are given; then only the commands. */
export const AUTO_WORKLOADS = 'auto'

/**
 * The check's workloads from the `workloads` value. The runner sets every input that has a default, so the
 * default (`auto`) must carry the rule itself: an absent input can never be told from a defaulted one.
 * An explicit list names built-ins and commands; a name that is neither is an error, and so is a command the
 * list leaves out (it would otherwise never run, silently).
 */
export function selectWorkloads(raw: string, commands: readonly CommandWorkload[]): string[] {
  const names = commands.map(c => c.name)
  if (raw.trim().toLowerCase() === AUTO_WORKLOADS) return names.length > 0 ? names : [...WORKLOADS]
  const items = list(Inputs.Workloads, raw)
  const known = [...WORKLOADS, ...names]
  const chosen = [
    ...new Set(
      items.map(w => {
        const v = w.trim().toLowerCase()
        if (v === AUTO_WORKLOADS)
          throw new InputError(
            Inputs.Workloads,
            raw,
            'auto alone, or a list of built-ins and commands (auto is not a list item)'
          )
        if (!known.includes(v))
          throw new InputError(
            Inputs.Workloads,
            w,
            `a built-in workload (${WORKLOADS.join(' | ')}) or one of the commands (${names.join(' | ') || 'none given'}), or auto`
          )
        return v
      })
    )
  ]
  const left = names.filter(n => !chosen.includes(n))
  if (left.length > 0)
    throw new InputError(
      Inputs.Workloads,
      raw,
      `a list naming every command too: ${left.map(n => `command ${n}`).join(', ')} would not run (add ${left.join(',')} to workloads, e.g. ${[...chosen, ...left].join(',')}; or workloads: auto runs only the commands)`
    )
  return chosen
}

export interface ConfigSources {
  flags?: RawInputs
  inputs?: RawInputs
  /** Directory that relative paths resolve against, and (unless `outputsAnywhere`) outputs must stay inside. */
  workspace: string
  /** The CLI: `out` and `baseline-path` may be anywhere the user names. The action leaves this unset. */
  outputsAnywhere?: boolean
}

/** Merges the sources by precedence and validates every value. */
export function loadConfig(sources: ConfigSources): Config {
  const { workspace } = sources
  const flags = sources.flags ?? {}
  const inputs = sources.inputs ?? {}
  const configArg = flags[Inputs.Config] ?? inputs[Inputs.Config]
  let configFile: string | null = null
  if (given(configArg)) configFile = safePath(Inputs.Config, configArg, workspace)
  else if (fs.existsSync(path.join(workspace, DEFAULT_CONFIG_FILE)))
    configFile = path.join(workspace, DEFAULT_CONFIG_FILE)
  // A trust setting: from the workflow or the CLI only (the file cannot name it: not a knob).
  const allowRaw = [flags, inputs]
    .map(src => chosen(src, Inputs.AllowConfigCommands))
    .find(v => v !== undefined)
  const allowConfigCommands = bool(
    Inputs.AllowConfigCommands,
    allowRaw ?? DEFAULTS[Inputs.AllowConfigCommands]
  )
  // The tree's file must stay in the tree; a file the CLI user names may live anywhere.
  const contents = configFile
    ? readConfigFile(configFile, sources.outputsAnywhere ? undefined : workspace, {
        allowCommands: allowConfigCommands
      })
    : { knobs: {}, commands: [] }
  const file = contents.knobs

  const get = (name: Inputs): string => {
    for (const src of [flags, inputs, file]) {
      const v = chosen(src, name)
      if (v !== undefined) return v
    }
    return DEFAULTS[name]
  }
  const isSet = (name: Inputs): boolean => [flags, inputs, file].some(src => given(src[name]))

  // Not trimmed: validateImageRef refuses any whitespace, so `ubuntu ` is an error, never a silent fix.
  const imageRaw = get(Inputs.Image)
  const imageRef = imageRaw.trim() === '' ? null : validateImageRef(imageRaw, Inputs.Image)
  const image = imageRef?.ref ?? null
  const { commands, overridden: overriddenCommands } = mergeCommands(
    commandWorkloads(get(Inputs.Commands), get(Inputs.CommandFormats)),
    fileCommandWorkloads(contents.commands)
  )
  const workloads = selectWorkloads(get(Inputs.Workloads), commands)
  const definitions = resolveWorkloads(workloads, commands)
  const device = oneOf(Inputs.Device, get(Inputs.Device), DEVICES)
  const gpusRaw = get(Inputs.Gpus).trim()
  const gpus =
    gpusRaw.toLowerCase() === 'all'
      ? 'all'
      : list(Inputs.Gpus, gpusRaw).map(g => {
          if (!/^(\d{1,3}|GPU-[0-9a-fA-F-]{36}|MIG-[0-9a-fA-F-]{36})$/.test(g))
            throw new InputError(Inputs.Gpus, g, 'all, or a list of GPU indices (0,1) or UUIDs (GPU-…/MIG-…)')
          return g
        })
  const llmDefault = device === 'cpu' ? 'tiny' : DEFAULTS[Inputs.LlmPreset]
  const ckptDefault = device === 'cpu' ? '64' : DEFAULTS[Inputs.CheckpointMb]
  const matmulDefault = device === 'cpu' ? '512' : DEFAULTS[Inputs.MatmulSize]

  const runs = integer(Inputs.Runs, get(Inputs.Runs), 2, 1000)
  const { arms, images } = parseArmsWithImages(get(Inputs.Arms), imageRef)
  const config: Config = {
    image,
    images,
    workloads,
    definitions,
    runs,
    maxRuns: maxRunsOf(runs, isSet(Inputs.MaxRuns) ? get(Inputs.MaxRuns) : null),
    timeBudgetS: timeBudget(get(Inputs.TimeBudget)),
    warmupRuns: integer(Inputs.WarmupRuns, get(Inputs.WarmupRuns), 0, 100),
    device,
    gpuAccess: oneOf(Inputs.GpuAccess, get(Inputs.GpuAccess), GPU_ACCESS_MODES),
    gpus,
    containerRuntime: oneOf(Inputs.ContainerRuntime, get(Inputs.ContainerRuntime), CONTAINER_RUNTIMES),
    arms,
    maxOverheadPct: maxOverhead(Inputs.MaxOverhead, get(Inputs.MaxOverhead)),
    alpha: alpha(Inputs.Alpha, get(Inputs.Alpha)),
    baselinePath: checkBaselinePath(
      workspacePath(Inputs.BaselinePath, get(Inputs.BaselinePath), workspace, sources.outputsAnywhere),
      get(Inputs.BaselinePath),
      sources.outputsAnywhere ? null : workspace
    ),
    saveBaseline: bool(Inputs.SaveBaseline, get(Inputs.SaveBaseline)),
    data: given(get(Inputs.DataPath))
      ? hostMount(Inputs.DataPath, get(Inputs.DataPath), workspace, 'data', DATA_CONTAINER_PATH, true)
      : null,
    checkpoint: given(get(Inputs.CheckpointPath))
      ? hostMount(
          Inputs.CheckpointPath,
          get(Inputs.CheckpointPath),
          workspace,
          'checkpoint',
          CHECKPOINT_CONTAINER_PATH,
          false
        )
      : null,
    githubToken: given(get(Inputs.GithubToken)) ? validateGithubToken(get(Inputs.GithubToken)) : null,
    comment: oneOf(Inputs.Comment, get(Inputs.Comment), COMMENT_MODES),
    checkRun: checkRunName(get(Inputs.CheckRun)),
    baselineBranch: branchName(get(Inputs.BaselineBranch)),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    onInconclusive: oneOf(Inputs.OnInconclusive, get(Inputs.OnInconclusive), ON_INCONCLUSIVE),
    allowForkPrs: bool(Inputs.AllowForkPrs, get(Inputs.AllowForkPrs)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), workspace, sources.outputsAnywhere),
    workspace: sources.outputsAnywhere ? null : workspace,
    configFile,
    schedule: oneOf(Inputs.Schedule, get(Inputs.Schedule), SCHEDULES),
    gpuLayout: oneOf(Inputs.GpuLayout, get(Inputs.GpuLayout), GPU_LAYOUTS),
    seed: integer(Inputs.Seed, get(Inputs.Seed), 0, 2 ** 31 - 1),
    runTimeoutS: integer(Inputs.RunTimeout, get(Inputs.RunTimeout), 5, 86400),
    telemetry: bool(Inputs.Telemetry, get(Inputs.Telemetry)),
    strict: bool(Inputs.Strict, get(Inputs.Strict)),
    driverMount: given(get(Inputs.DriverMount))
      ? allowedHostFolder(Inputs.DriverMount, get(Inputs.DriverMount), workspace, 'driver')
      : null,
    matmulSize: integer(
      Inputs.MatmulSize,
      isSet(Inputs.MatmulSize) ? get(Inputs.MatmulSize) : matmulDefault,
      16,
      65536
    ),
    matmulDtype: oneOf(Inputs.MatmulDtype, get(Inputs.MatmulDtype), MATMUL_DTYPES),
    llmPreset: oneOf(
      Inputs.LlmPreset,
      isSet(Inputs.LlmPreset) ? get(Inputs.LlmPreset) : llmDefault,
      LLM_PRESETS
    ),
    gateIoThroughput: bool(Inputs.GateIoThroughput, get(Inputs.GateIoThroughput)),
    gateMetrics: gateMetrics(Inputs.GateMetrics, get(Inputs.GateMetrics)),
    // Only where every workload holds after its imports (a user command does not).
    prestart: bool(Inputs.Prestart, get(Inputs.Prestart)) && definitions.every(d => d.prestart),
    turns: bool(Inputs.Turns, get(Inputs.Turns)),
    checkpointMb: integer(
      Inputs.CheckpointMb,
      isSet(Inputs.CheckpointMb) ? get(Inputs.CheckpointMb) : ckptDefault,
      1,
      1048576
    ),
    python: validatePython(get(Inputs.Python), false),
    containerMemory: given(get(Inputs.ContainerMemory)) ? containerMemory(get(Inputs.ContainerMemory)) : null,
    containerArgs: containerLaunchArgs(
      get(Inputs.ContainerArgs),
      given(get(Inputs.ContainerMemory)) ? get(Inputs.ContainerMemory) : null
    ),
    commands,
    allowConfigCommands,
    overriddenCommands,
    powerCaps: given(get(Inputs.PowerCaps)) ? powerCaps(get(Inputs.PowerCaps), device) : []
  }
  // Without a data-path/checkpoint-path the io workload's folders live under `out` and are mounted.
  if (
    config.definitions.some(d => d.usesIoFolders) &&
    config.arms.some(a => a.kind === 'container') &&
    (!config.data || !config.checkpoint) &&
    MOUNT_SPLITTERS.test(config.out)
  )
    throw new InputError(Inputs.Out, get(Inputs.Out), `a folder path with ${NO_SPLITTERS}`)
  // The interpreter must exist only where it runs: a native arm.
  if (config.arms.some(a => a.kind === 'native')) validatePython(config.python, true)
  return config
}
