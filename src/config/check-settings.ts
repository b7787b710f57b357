/**
 * The check's settings in groups, each read from the merged sources (config.ts). loadConfig spreads them in
 * this order, so with two bad inputs the same one is named first as before the split.
 */
import { Inputs } from '../types/inputs.js'
import {
  COMMENT_MODES,
  CONTAINER_RUNTIMES,
  GPU_ACCESS_MODES,
  GPU_LAYOUTS,
  ON_INCONCLUSIVE,
  SCHEDULES,
  type Device
} from '../types/index.js'
import type { Config } from './check-config.js'
import { DEFAULTS } from './defaults.js'
import { CHECKPOINT_CONTAINER_PATH, DATA_CONTAINER_PATH } from './mount-spec.js'
import { containerLaunchArgs } from './launch-flags.js'
import { LLM_PRESETS, MATMUL_DTYPES } from './workloads/definition.js'
import type { WorkloadDefinition } from './workloads/index.js'
import type { ConfigSources, InputReader } from './reader.js'
import {
  alpha,
  bool,
  branchName,
  checkRunName,
  containerMemory,
  gateMetrics,
  given,
  integer,
  maxOverhead,
  maxRunsOf,
  oneOf,
  powerCaps,
  timeBudget
} from './parse.js'
import { validatePython } from './trusted-values.js'
import { allowedHostFolder, hostMount, workspacePath } from './paths.js'
import { checkBaselinePath, validateGithubToken } from './trusted-values.js'

/** What every group reads: the merged sources and what loadConfig has already decided. */
export interface SettingsContext {
  read: InputReader
  sources: ConfigSources
  device: Device
  runs: number
  definitions: WorkloadDefinition[]
}

export function runCounts({
  read,
  runs
}: SettingsContext): Pick<Config, 'maxRuns' | 'timeBudgetS' | 'warmupRuns'> {
  const { get, isSet } = read
  return {
    maxRuns: maxRunsOf(runs, isSet(Inputs.MaxRuns) ? get(Inputs.MaxRuns) : null),
    timeBudgetS: timeBudget(get(Inputs.TimeBudget)),
    warmupRuns: integer(Inputs.WarmupRuns, get(Inputs.WarmupRuns), 0, 100)
  }
}

export function gpuAccessOf({ read }: SettingsContext): Config['gpuAccess'] {
  return oneOf(Inputs.GpuAccess, read.get(Inputs.GpuAccess), GPU_ACCESS_MODES)
}

export function runtimeOf({ read }: SettingsContext): Config['containerRuntime'] {
  return oneOf(Inputs.ContainerRuntime, read.get(Inputs.ContainerRuntime), CONTAINER_RUNTIMES)
}

export function limits({ read }: SettingsContext): Pick<Config, 'maxOverheadPct' | 'alpha'> {
  return {
    maxOverheadPct: maxOverhead(Inputs.MaxOverhead, read.get(Inputs.MaxOverhead)),
    alpha: alpha(Inputs.Alpha, read.get(Inputs.Alpha))
  }
}

/** The baseline file and the host folders mounted into the workloads. */
export function baselineAndMounts({
  read: { get },
  sources
}: SettingsContext): Pick<Config, 'baselinePath' | 'saveBaseline' | 'data' | 'checkpoint'> {
  const { workspace, outputsAnywhere } = sources
  return {
    baselinePath: checkBaselinePath(
      workspacePath(Inputs.BaselinePath, get(Inputs.BaselinePath), workspace, outputsAnywhere),
      get(Inputs.BaselinePath),
      outputsAnywhere ? null : workspace
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
      : null
  }
}

/** Where the verdict goes (the token, the comment, the Check run) and what fails the step. */
export function publishing({
  read: { get }
}: SettingsContext): Pick<
  Config,
  | 'githubToken'
  | 'comment'
  | 'checkRun'
  | 'baselineBranch'
  | 'failOnRegression'
  | 'onInconclusive'
  | 'allowForkPrs'
> {
  return {
    githubToken: given(get(Inputs.GithubToken)) ? validateGithubToken(get(Inputs.GithubToken)) : null,
    comment: oneOf(Inputs.Comment, get(Inputs.Comment), COMMENT_MODES),
    checkRun: checkRunName(get(Inputs.CheckRun)),
    baselineBranch: branchName(get(Inputs.BaselineBranch)),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    onInconclusive: oneOf(Inputs.OnInconclusive, get(Inputs.OnInconclusive), ON_INCONCLUSIVE),
    allowForkPrs: bool(Inputs.AllowForkPrs, get(Inputs.AllowForkPrs))
  }
}

export function outFolder({ read, sources }: SettingsContext): Pick<Config, 'out' | 'workspace'> {
  return {
    out: workspacePath(Inputs.Out, read.get(Inputs.Out), sources.workspace, sources.outputsAnywhere),
    workspace: sources.outputsAnywhere ? null : sources.workspace
  }
}

/** How the runs are ordered and watched. */
export function scheduling({
  read: { get },
  sources
}: SettingsContext): Pick<
  Config,
  'schedule' | 'gpuLayout' | 'seed' | 'runTimeoutS' | 'telemetry' | 'strict' | 'driverMount'
> {
  return {
    schedule: oneOf(Inputs.Schedule, get(Inputs.Schedule), SCHEDULES),
    gpuLayout: oneOf(Inputs.GpuLayout, get(Inputs.GpuLayout), GPU_LAYOUTS),
    seed: integer(Inputs.Seed, get(Inputs.Seed), 0, 2 ** 31 - 1),
    runTimeoutS: integer(Inputs.RunTimeout, get(Inputs.RunTimeout), 5, 86400),
    telemetry: bool(Inputs.Telemetry, get(Inputs.Telemetry)),
    strict: bool(Inputs.Strict, get(Inputs.Strict)),
    driverMount: given(get(Inputs.DriverMount))
      ? allowedHostFolder(Inputs.DriverMount, get(Inputs.DriverMount), sources.workspace, 'driver')
      : null
  }
}

/** The built-in workloads' sizes (smaller defaults on a CPU) and what of them gates. */
export function workloadSettings({
  read: { get, isSet },
  device,
  definitions
}: SettingsContext): Pick<
  Config,
  | 'matmulSize'
  | 'matmulDtype'
  | 'llmPreset'
  | 'gateIoThroughput'
  | 'gateMetrics'
  | 'prestart'
  | 'turns'
  | 'checkpointMb'
> {
  const llmDefault = device === 'cpu' ? 'tiny' : DEFAULTS[Inputs.LlmPreset]
  const ckptDefault = device === 'cpu' ? '64' : DEFAULTS[Inputs.CheckpointMb]
  const matmulDefault = device === 'cpu' ? '512' : DEFAULTS[Inputs.MatmulSize]
  // On the CPU the held processes' interpreter start and imports run on the cores the measured process times:
  // a CPU A/A matmul on 16 idle cores measured 0.29 ms in a check's first process and 8.0 ms in every later one.
  const prestartDefault = device === 'cpu' ? 'false' : DEFAULTS[Inputs.Prestart]
  const orDefault = (name: Inputs, fallback: string): string => (isSet(name) ? get(name) : fallback)
  return {
    matmulSize: integer(Inputs.MatmulSize, orDefault(Inputs.MatmulSize, matmulDefault), 16, 65536),
    matmulDtype: oneOf(Inputs.MatmulDtype, get(Inputs.MatmulDtype), MATMUL_DTYPES),
    llmPreset: oneOf(Inputs.LlmPreset, orDefault(Inputs.LlmPreset, llmDefault), LLM_PRESETS),
    gateIoThroughput: bool(Inputs.GateIoThroughput, get(Inputs.GateIoThroughput)),
    gateMetrics: gateMetrics(Inputs.GateMetrics, get(Inputs.GateMetrics)),
    // Only where every workload holds after its imports (a user command does not).
    prestart:
      bool(Inputs.Prestart, orDefault(Inputs.Prestart, prestartDefault)) &&
      definitions.every(d => d.prestart),
    turns: bool(Inputs.Turns, get(Inputs.Turns)),
    checkpointMb: integer(Inputs.CheckpointMb, orDefault(Inputs.CheckpointMb, ckptDefault), 1, 1048576)
  }
}

/** The native arm's interpreter and the container arm's launch. */
export function launch({
  read: { get }
}: SettingsContext): Pick<Config, 'python' | 'containerMemory' | 'containerArgs'> {
  const memory = given(get(Inputs.ContainerMemory)) ? get(Inputs.ContainerMemory) : null
  return {
    python: validatePython(get(Inputs.Python), false),
    containerMemory: memory !== null ? containerMemory(memory) : null,
    containerArgs: containerLaunchArgs(get(Inputs.ContainerArgs), memory)
  }
}

export function powerCapsOf({ read: { get }, device }: SettingsContext): number[] {
  return given(get(Inputs.PowerCaps)) ? powerCaps(get(Inputs.PowerCaps), device) : []
}
