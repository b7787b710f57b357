/**
 * One place that turns action inputs, CLI flags and an optional YAML file into a validated Config.
 * Precedence: flags > action inputs > file > defaults. Every error names the input, the bad value and
 * what is allowed (InputError, exit 2).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parse as parseYaml } from 'yaml'
import {
  DEFAULT_BASELINE_BRANCH,
  DEFAULT_BASELINE_PATH,
  DEFAULT_CONFIG_FILE,
  Inputs
} from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { parseNumber } from '../util/number.js'
import {
  COMMENT_MODES,
  CONTAINER_RUNTIMES,
  DEVICES,
  GPU_ACCESS_MODES,
  MODES,
  SCHEDULES,
  WORKLOADS,
  type Arm,
  type CommentMode,
  type ContainerRuntime,
  type Device,
  type GpuAccess,
  type Mode,
  type Schedule,
  type Workload
} from '../types/index.js'
import { validateImageRef } from './image-ref.js'

export const MATMUL_DTYPES = ['fp32', 'tf32', 'bf16', 'fp16'] as const
export type MatmulDtype = (typeof MATMUL_DTYPES)[number]
export const LLM_PRESETS = ['tiny', '1b', '8b'] as const
export type LlmPreset = (typeof LLM_PRESETS)[number]

/** A host directory given to the workloads; bound into the container at `containerPath`. */
export interface MountSpec {
  hostPath: string
  containerPath: string
  readOnly: boolean
}

export interface Config {
  image: string | null
  workloads: Workload[]
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
  data: MountSpec | null
  checkpoint: MountSpec | null
  githubToken: string | null
  comment: CommentMode
  /** Name of the GitHub Check run that carries the verdict; null = none. */
  checkRun: string | null
  failOnRegression: boolean
  allowForkPrs: boolean
  out: string
  configFile: string | null
  schedule: Schedule
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
  /**
   * Hide start-up: start the next workload process (interpreter, imports; no CUDA) while the current one
   * measures, and release it when the GPU is free. Each run is still its own fresh process.
   */
  prestart: boolean
  /** Python interpreter for the native arm. */
  python: string
  /** Memory limit of each workload container (`--memory`/`--memory-swap`, e.g. `8g`); null = no limit. */
  containerMemory: string | null
  /** Power limits to sweep, watts, in order; empty = measure at the current limit only. */
  powerCaps: number[]
}

/** Raw values by input name; undefined = not given by that source. */
export type RawInputs = Partial<Record<Inputs, string>>

export const DEFAULTS: Record<Inputs, string> = {
  [Inputs.Image]: '',
  [Inputs.Workloads]: 'matmul,llm,io',
  [Inputs.Runs]: '3',
  [Inputs.MaxRuns]: '12',
  [Inputs.TimeBudget]: '0',
  [Inputs.WarmupRuns]: '1',
  [Inputs.Device]: 'gpu',
  [Inputs.GpuAccess]: 'gpus',
  [Inputs.Gpus]: 'all',
  [Inputs.ContainerRuntime]: 'docker',
  [Inputs.Arms]: 'native,container',
  [Inputs.MaxOverhead]: '2%',
  [Inputs.Alpha]: '0.05',
  [Inputs.BaselinePath]: DEFAULT_BASELINE_PATH,
  [Inputs.SaveBaseline]: 'false',
  [Inputs.BaselineBranch]: DEFAULT_BASELINE_BRANCH,
  [Inputs.DataPath]: '',
  [Inputs.CheckpointPath]: '',
  [Inputs.GithubToken]: '',
  [Inputs.Comment]: 'always',
  [Inputs.CheckRun]: 'GPU overhead',
  [Inputs.FailOnRegression]: 'true',
  [Inputs.AllowForkPrs]: 'false',
  [Inputs.Out]: 'gpu-overhead-results',
  [Inputs.Config]: '',
  [Inputs.Schedule]: 'abba',
  [Inputs.Seed]: '1',
  [Inputs.RunTimeout]: '600',
  [Inputs.Telemetry]: 'true',
  [Inputs.Strict]: 'false',
  [Inputs.DriverMount]: '',
  [Inputs.MatmulSize]: '10000',
  [Inputs.MatmulDtype]: 'fp32',
  [Inputs.LlmPreset]: '1b',
  [Inputs.CheckpointMb]: '256',
  [Inputs.GateIoThroughput]: 'false',
  [Inputs.Prestart]: 'true',
  [Inputs.Python]: 'python3',
  [Inputs.ContainerMemory]: '',
  [Inputs.PowerCaps]: '',
  [Inputs.Mode]: 'check',
  [Inputs.AggregateDirs]: '',
  [Inputs.TrendMetrics]: '',
  [Inputs.TrendIssues]: 'false'
}

/** Keys a config file may hold: every input but the file itself, the token and the aggregate-only ones. */
const FILE_KEYS = new Set<string>(
  Object.values(Inputs).filter(
    k =>
      k !== Inputs.Config &&
      k !== Inputs.GithubToken &&
      k !== Inputs.Mode &&
      k !== Inputs.AggregateDirs &&
      k !== Inputs.TrendMetrics &&
      k !== Inputs.TrendIssues
  )
)

// ---- validators (each throws InputError naming the input) ----

/** A git branch name (a safe subset of git's rules); empty = no branch store. */
function branchName(raw: string): string | null {
  const v = raw.trim()
  if (v === '') return null
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(v) || /\.\.|\/\/|\.lock$|\/$|@\{/.test(v))
    throw new InputError(
      Inputs.BaselineBranch,
      raw,
      'a branch name such as gpu-overhead-baseline, or empty for none'
    )
  return v
}

/** GitHub shows check names in one line and caps them; empty turns the check run off. */
const MAX_CHECK_NAME = 100
function checkRunName(raw: string): string | null {
  const v = raw.trim()
  if (v === '') return null
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (v.length > MAX_CHECK_NAME || /[\0-\x1f]/.test(v))
    throw new InputError(
      Inputs.CheckRun,
      raw,
      `a one-line name of at most ${MAX_CHECK_NAME} characters, or empty for none`
    )
  return v
}

function oneOf<T extends string>(input: string, raw: string, allowed: readonly T[]): T {
  const v = raw.trim().toLowerCase()
  if (!(allowed as readonly string[]).includes(v)) throw new InputError(input, raw, allowed.join(' | '))
  return v as T
}

/** Strict numbers (util/number.ts): no hex, no exponent or `5.0` where a whole number is meant. */
function integer(input: string, raw: string, min: number, max: number): number {
  const n = parseNumber(raw, { kind: 'integer', min, max })
  if (!n.ok) throw new InputError(input, raw, `a whole number from ${min} to ${max} (digits only)`)
  return n.value
}

/** max-runs: at least runs; when not given, the default or runs, whichever is larger (a fixed count stays fixed). */
function maxRunsOf(runs: number, raw: string | null): number {
  if (raw === null) return Math.max(runs, Number(DEFAULTS[Inputs.MaxRuns]))
  const max = integer(Inputs.MaxRuns, raw, 2, 1000)
  if (max < runs)
    throw new InputError(
      Inputs.MaxRuns,
      raw,
      `a whole number ≥ runs (${runs}); set both to the same value for a fixed count`
    )
  return max
}

/** time-budget: seconds (`150`, `150s`) or minutes (`2.5m`); 0 = no budget. */
function timeBudget(raw: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m)?\s*$/i.exec(raw)
  if (!m)
    throw new InputError(Inputs.TimeBudget, raw, 'seconds (150 or 150s) or minutes (2.5m); 0 = no budget')
  const s = Number(m[1]) * (m[2]?.toLowerCase() === 'm' ? 60 : 1)
  if (s > 7 * 86400) throw new InputError(Inputs.TimeBudget, raw, 'at most 7 days')
  return s === 0 ? null : s
}

function bool(input: string, raw: string): boolean {
  const v = raw.trim().toLowerCase()
  if (['true', 'yes', '1', 'on'].includes(v)) return true
  if (['false', 'no', '0', 'off'].includes(v)) return false
  throw new InputError(input, raw, 'true | false')
}

/** `2%`, `2`, `0.5%` → percent. */
export function percent(input: string, raw: string, max = 100): number {
  const n = parseNumber(raw.trim().replace(/\s*%$/, ''), { kind: 'real', min: 0, minExclusive: true, max })
  if (!n.ok) throw new InputError(input, raw, `a percentage above 0 and at most ${max}, e.g. 2%`)
  return n.value
}

function fraction(input: string, raw: string, min: number, max: number): number {
  const n = parseNumber(raw, { kind: 'real', min, minExclusive: true, max })
  if (!n.ok) throw new InputError(input, raw, `a number above ${min} and at most ${max}, e.g. 0.05`)
  return n.value
}

function list(input: string, raw: string): string[] {
  const items = raw
    .split(/[,\n]/)
    .map(s => s.trim())
    .filter(s => s !== '')
  if (items.length === 0) throw new InputError(input, raw, 'a comma-separated, non-empty list')
  return items
}

/** Paths must not contain NUL or newlines; relative ones resolve against `base`. */
function safePath(input: string, raw: string, base: string): string {
  if (raw.trim() === '' || /[\0\n\r]/.test(raw)) throw new InputError(input, raw, 'a file system path')
  return path.resolve(base, raw.trim())
}

/**
 * Output paths stay inside the workspace in the action (no `..` escapes through a config file on a shared
 * runner); the CLI writes wherever its user says (`anywhere`), relative paths still resolving against the cwd.
 */
function workspacePath(input: string, raw: string, workspace: string, anywhere = false): string {
  const p = safePath(input, raw, workspace)
  if (anywhere) return p
  const rel = path.relative(workspace, p)
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new InputError(input, raw, `a path inside the workspace ${workspace}`)
  return p
}

/** `-v HOST:CONTAINER[:ro]` and `--mount type=bind,source=…` split on these: a mounted path must not hold them. */
const MOUNT_SPLITTERS = /[:,]/
const NO_SPLITTERS = 'no `:` or `,` in the path (the container mount would split on them)'

function mountSpec(input: string, raw: string, base: string, containerPath: string, ro: boolean): MountSpec {
  const hostPath = safePath(input, raw, base)
  if (MOUNT_SPLITTERS.test(hostPath))
    throw new InputError(input, raw, `an existing directory, ${NO_SPLITTERS}`)
  if (!fs.existsSync(hostPath) || !fs.statSync(hostPath).isDirectory())
    throw new InputError(input, raw, 'an existing directory on the runner')
  return { hostPath, containerPath, readOnly: ro }
}

export function parseArms(raw: string, image: string | null): Arm[] {
  const specs = list(Inputs.Arms, raw)
  if (specs.length < 2)
    throw new InputError(Inputs.Arms, raw, 'at least two of native | container | container:<image ref>')
  const arms: Arm[] = specs.map(spec => {
    if (spec === 'native') return { label: 'native', kind: 'native', image: null }
    if (spec === 'container') {
      if (!image)
        throw new InputError(
          Inputs.Image,
          '',
          'an image reference (required when arms include `container`; pin it by digest)'
        )
      return { label: 'container', kind: 'container', image }
    }
    if (spec.startsWith('container:')) {
      const ref = validateImageRef(spec.slice('container:'.length), Inputs.Arms).ref
      return { label: `container:${ref}`, kind: 'container', image: ref }
    }
    throw new InputError(Inputs.Arms, spec, 'native | container | container:<image ref>')
  })
  // Unique labels: A/A calibration (native,native) becomes native and native#2.
  const seen = new Map<string, number>()
  for (const arm of arms) {
    const n = (seen.get(arm.label) ?? 0) + 1
    seen.set(arm.label, n)
    if (n > 1) arm.label = `${arm.label}#${n}`
  }
  return arms
}

// ---- sources ----

/** Reads and validates a YAML config file into raw string values keyed by input name. */
export function readConfigFile(file: string): RawInputs {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw new InputError(
      Inputs.Config,
      file,
      `a readable YAML file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`
    )
  }
  let doc: unknown
  try {
    // Failsafe schema: every scalar stays the text that was written, so `runs: 0x10` or `runs: 5.0` reach
    // the same strict number parser as flags and inputs instead of being turned into 16 and 5 by YAML.
    doc = parseYaml(text, { schema: 'failsafe' })
  } catch (error) {
    throw new InputError(Inputs.Config, file, `valid YAML (${(error as Error).message.split('\n')[0]})`)
  }
  if (doc === null || doc === undefined) return {}
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new InputError(Inputs.Config, file, 'a YAML mapping of input names to values')
  const raw: RawInputs = {}
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    if (!FILE_KEYS.has(key))
      throw new InputError(
        `${Inputs.Config}: ${key}`,
        key,
        `one of ${[...FILE_KEYS].join(', ')} (tokens never go in files)`
      )
    if (Array.isArray(value) && value.every(v => typeof v === 'string' || typeof v === 'number'))
      raw[key as Inputs] = value.join(',')
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      raw[key as Inputs] = String(value)
    else throw new InputError(key, value, 'a string, number, boolean or list of them')
  }
  return raw
}

export interface ConfigSources {
  flags?: RawInputs
  inputs?: RawInputs
  /** Directory that relative paths resolve against, and (unless `outputsAnywhere`) outputs must stay inside. */
  workspace: string
  /** The CLI: `out` and `baseline-path` may be anywhere the user names. The action leaves this unset. */
  outputsAnywhere?: boolean
}

function given(v: string | undefined): v is string {
  return v !== undefined && v !== ''
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
  const file = configFile ? readConfigFile(configFile) : {}

  const get = (name: Inputs): string => {
    for (const src of [flags, inputs, file]) if (given(src[name])) return src[name]
    return DEFAULTS[name]
  }
  const isSet = (name: Inputs): boolean => [flags, inputs, file].some(src => given(src[name]))

  // Not trimmed: validateImageRef refuses any whitespace, so `ubuntu ` is an error, never a silent fix.
  const imageRaw = get(Inputs.Image)
  const image = imageRaw.trim() === '' ? null : validateImageRef(imageRaw, Inputs.Image).ref
  const workloads = [
    ...new Set(list(Inputs.Workloads, get(Inputs.Workloads)).map(w => oneOf(Inputs.Workloads, w, WORKLOADS)))
  ]
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
  const config: Config = {
    image,
    workloads,
    runs,
    maxRuns: maxRunsOf(runs, isSet(Inputs.MaxRuns) ? get(Inputs.MaxRuns) : null),
    timeBudgetS: timeBudget(get(Inputs.TimeBudget)),
    warmupRuns: integer(Inputs.WarmupRuns, get(Inputs.WarmupRuns), 0, 100),
    device,
    gpuAccess: oneOf(Inputs.GpuAccess, get(Inputs.GpuAccess), GPU_ACCESS_MODES),
    gpus,
    containerRuntime: oneOf(Inputs.ContainerRuntime, get(Inputs.ContainerRuntime), CONTAINER_RUNTIMES),
    arms: parseArms(get(Inputs.Arms), image),
    maxOverheadPct: percent(Inputs.MaxOverhead, get(Inputs.MaxOverhead), 100),
    alpha: fraction(Inputs.Alpha, get(Inputs.Alpha), 0, 0.5),
    baselinePath: workspacePath(
      Inputs.BaselinePath,
      get(Inputs.BaselinePath),
      workspace,
      sources.outputsAnywhere
    ),
    saveBaseline: bool(Inputs.SaveBaseline, get(Inputs.SaveBaseline)),
    data: given(get(Inputs.DataPath))
      ? mountSpec(Inputs.DataPath, get(Inputs.DataPath), workspace, '/data', true)
      : null,
    checkpoint: given(get(Inputs.CheckpointPath))
      ? mountSpec(Inputs.CheckpointPath, get(Inputs.CheckpointPath), workspace, '/checkpoints', false)
      : null,
    githubToken: given(get(Inputs.GithubToken)) ? get(Inputs.GithubToken) : null,
    comment: oneOf(Inputs.Comment, get(Inputs.Comment), COMMENT_MODES),
    checkRun: checkRunName(get(Inputs.CheckRun)),
    baselineBranch: branchName(get(Inputs.BaselineBranch)),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    allowForkPrs: bool(Inputs.AllowForkPrs, get(Inputs.AllowForkPrs)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), workspace, sources.outputsAnywhere),
    configFile,
    schedule: oneOf(Inputs.Schedule, get(Inputs.Schedule), SCHEDULES),
    seed: integer(Inputs.Seed, get(Inputs.Seed), 0, 2 ** 31 - 1),
    runTimeoutS: integer(Inputs.RunTimeout, get(Inputs.RunTimeout), 5, 86400),
    telemetry: bool(Inputs.Telemetry, get(Inputs.Telemetry)),
    strict: bool(Inputs.Strict, get(Inputs.Strict)),
    driverMount: given(get(Inputs.DriverMount))
      ? safePath(Inputs.DriverMount, get(Inputs.DriverMount), workspace)
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
    prestart: bool(Inputs.Prestart, get(Inputs.Prestart)),
    checkpointMb: integer(
      Inputs.CheckpointMb,
      isSet(Inputs.CheckpointMb) ? get(Inputs.CheckpointMb) : ckptDefault,
      1,
      1048576
    ),
    python: validatePython(get(Inputs.Python)),
    containerMemory: given(get(Inputs.ContainerMemory)) ? containerMemory(get(Inputs.ContainerMemory)) : null,
    powerCaps: given(get(Inputs.PowerCaps)) ? powerCaps(get(Inputs.PowerCaps), device) : []
  }
  // Without a data-path/checkpoint-path the io workload's folders live under `out` and are mounted.
  if (
    config.workloads.includes('io') &&
    config.arms.some(a => a.kind === 'container') &&
    (!config.data || !config.checkpoint) &&
    MOUNT_SPLITTERS.test(config.out)
  )
    throw new InputError(Inputs.Out, get(Inputs.Out), `a folder path with ${NO_SPLITTERS}`)
  if (config.driverMount && MOUNT_SPLITTERS.test(config.driverMount))
    throw new InputError(
      Inputs.DriverMount,
      get(Inputs.DriverMount),
      `an existing directory, ${NO_SPLITTERS}`
    )
  if (config.driverMount && !fs.existsSync(config.driverMount))
    throw new InputError(
      Inputs.DriverMount,
      get(Inputs.DriverMount),
      'an existing directory with the driver libraries'
    )
  return config
}

const MEMORY_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }
/** Docker refuses smaller limits ("Minimum memory limit allowed is 6MB"). */
const MIN_CONTAINER_MEMORY = 6 * 1024 ** 2

/** Docker's memory size syntax, limited to what docker and podman both accept: `512m`, `8g`, `1.5g`. */
function containerMemory(raw: string): string {
  const v = raw.trim().toLowerCase()
  const m = /^(\d+(?:\.\d+)?)([kmg]?)$/.exec(v)
  if (!m?.[1] || Number(m[1]) * (MEMORY_UNITS[m[2] ?? ''] ?? 1) < MIN_CONTAINER_MEMORY)
    throw new InputError(
      Inputs.ContainerMemory,
      raw,
      'a memory size of at least 6m: a number with an optional unit k, m or g, e.g. 8g or 512m (empty = no limit)'
    )
  return v
}

/** Watts, e.g. `400,550,700`: each once, plausible for a GPU board; only meaningful with device gpu. */
function powerCaps(raw: string, device: Device): number[] {
  const allowed = 'a comma list of power limits in watts, e.g. 400,550,700 (each from 50 to 2000, each once)'
  const caps = list(Inputs.PowerCaps, raw).map(v => {
    const w = parseNumber(v, { kind: 'real', min: 50, max: 2000 })
    if (!w.ok) throw new InputError(Inputs.PowerCaps, v, allowed)
    return w.value
  })
  if (new Set(caps).size !== caps.length) throw new InputError(Inputs.PowerCaps, raw, allowed)
  if (device !== 'gpu')
    throw new InputError(Inputs.PowerCaps, raw, 'empty with device: cpu (caps need a GPU)')
  return caps
}

function validatePython(raw: string): string {
  const v = raw.trim()
  if (!/^[\w./+-]+$/.test(v))
    throw new InputError(Inputs.Python, raw, 'a python interpreter name or path, e.g. python3')
  return v
}

/** Which mode the action runs in (the CLI has a command per mode). */
export function modeOf(inputs: RawInputs): Mode {
  return oneOf(Inputs.Mode, inputs[Inputs.Mode] || DEFAULTS[Inputs.Mode], MODES)
}

export interface AggregateConfig {
  /** Result folders, each holding summary.json and results.jsonl. */
  dirs: string[]
  /** Folders given that held no result folder at all, to warn about. */
  skipped: string[]
  out: string
  maxOverheadPct: number
  alpha: number
  seed: number
  failOnRegression: boolean
}

/**
 * `mode: aggregate`: the folders to merge. Each entry is a result folder, or a folder whose direct
 * subfolders are result folders (where download-artifact puts one folder per matrix row); a subfolder
 * without summary.json (a leg that stopped before writing it) is left out and reported.
 */
export function loadAggregateConfig(sources: ConfigSources): AggregateConfig {
  const { workspace } = sources
  const get = (name: Inputs): string => {
    for (const src of [sources.flags ?? {}, sources.inputs ?? {}]) if (given(src[name])) return src[name]
    return DEFAULTS[name]
  }
  const allowed = 'result folders (with summary.json), or folders holding them, inside the workspace'
  const raw = get(Inputs.AggregateDirs)
  if (!given(raw.trim())) throw new InputError(Inputs.AggregateDirs, raw, allowed)
  const dirs: string[] = []
  const skipped: string[] = []
  const isResult = (d: string): boolean => fs.existsSync(path.join(d, 'summary.json'))
  for (const entry of list(Inputs.AggregateDirs, raw)) {
    const dir = workspacePath(Inputs.AggregateDirs, entry, workspace)
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
      throw new InputError(Inputs.AggregateDirs, entry, `${allowed}; it is not a folder`)
    if (isResult(dir)) {
      dirs.push(dir)
      continue
    }
    const subs = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter(e => e.isDirectory())
      .map(e => path.join(dir, e.name))
      .sort()
    dirs.push(...subs.filter(isResult))
    skipped.push(...subs.filter(d => !isResult(d)))
    if (!subs.some(isResult)) skipped.push(dir)
  }
  if (dirs.length === 0)
    throw new InputError(Inputs.AggregateDirs, raw, `${allowed}; none holds summary.json`)
  return {
    dirs,
    skipped,
    out: workspacePath(Inputs.Out, get(Inputs.Out), workspace),
    maxOverheadPct: percent(Inputs.MaxOverhead, get(Inputs.MaxOverhead), 100),
    alpha: fraction(Inputs.Alpha, get(Inputs.Alpha), 0, 0.5),
    seed: integer(Inputs.Seed, get(Inputs.Seed), 0, 2 ** 31 - 1),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression))
  }
}

export interface TrendConfig {
  /** Baseline file whose history is analysed. */
  baselinePath: string
  /** Metrics to analyse (empty: every steady-state metric). */
  metrics: string[]
  /** Smallest change reported, percent: the max-overhead limit. */
  minChangePct: number
  /** Open and close GitHub issues for change points (needs a token with issues: write). */
  issues: boolean
  token: string | null
  failOnRegression: boolean
  /** Where the file is fetched from when the workspace has none (entry/action/baseline-branch.ts). */
  baselineBranch: string | null
  /** Folder for trend.md and trend.json. */
  out: string
}

/** `mode: trend`: change points over the baseline file's history; runs no workload. */
export function loadTrendConfig(sources: ConfigSources): TrendConfig {
  const get = (name: Inputs): string => {
    for (const src of [sources.flags ?? {}, sources.inputs ?? {}]) if (given(src[name])) return src[name]
    return DEFAULTS[name]
  }
  const metrics = get(Inputs.TrendMetrics)
  const issues = bool(Inputs.TrendIssues, get(Inputs.TrendIssues))
  const token = get(Inputs.GithubToken)
  if (issues && !given(token))
    throw new InputError(Inputs.GithubToken, '', 'a token with issues: write (trend-issues is true)')
  return {
    baselinePath: workspacePath(Inputs.BaselinePath, get(Inputs.BaselinePath), sources.workspace),
    metrics: given(metrics.trim()) ? list(Inputs.TrendMetrics, metrics) : [],
    minChangePct: percent(Inputs.MaxOverhead, get(Inputs.MaxOverhead), 100),
    issues,
    token: given(token) ? token : null,
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    baselineBranch: branchName(get(Inputs.BaselineBranch)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), sources.workspace)
  }
}

/** The config as it may be shown in reports and logs: no token. */
export function redactConfig(config: Config): Omit<Config, 'githubToken'> & { githubToken: string | null } {
  return { ...config, githubToken: config.githubToken ? '***' : null }
}
