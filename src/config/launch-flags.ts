/**
 * `container-args`: how the container arm is launched, as production launches it (NGC asks for
 * `--ipc=host --ulimit memlock=-1 --ulimit stack=67108864`; Kubernetes and Slurm set CPU sets and memory).
 * A trusted input only (workflow input or CLI flag, never the checked-out config file: see docs/security.md),
 * and an allow-list all the same: flags that change the measurement's setting, never ones that widen what the
 * image can reach (mounts, devices, capabilities, network, privileges, namespaces other than IPC).
 * Parsed into an argument array (`--flag value` pairs); no shell is involved and no quoting is understood:
 * one flag per line or whitespace-separated, values without spaces.
 */
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { at, first } from '../util/must.js'

const SIZE = /^\d{1,16}(\.\d{1,6})?[bkmg]?$/i
const CPU_LIST = /^\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?){0,255}$/
const ULIMITS = [
  'core',
  'cpu',
  'data',
  'fsize',
  'locks',
  'memlock',
  'msgqueue',
  'nice',
  'nofile',
  'nproc',
  'rss',
  'rtprio',
  'rttime',
  'sigpending',
  'stack'
] as const
const LIMIT = '(-1|unlimited|\\d{1,20})'
const ULIMIT = new RegExp(`^(${ULIMITS.join('|')})=${LIMIT}(:${LIMIT})?$`)
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/
/** Our own protocol variables: the workflow may not redirect a run's channel. */
const RESERVED_ENV = /^GPU_OVERHEAD_/
/**
 * What the NVIDIA Container Toolkit reads from the container's environment to choose its devices, driver
 * capabilities and requirement checks: set by the tool's GPU access mode, never by a flag (it would change which
 * GPUs, or which driver parts, the container gets, behind the arm's fingerprint).
 */
const TOOLKIT_ENV =
  /^NVIDIA_(VISIBLE_DEVICES|DRIVER_CAPABILITIES|REQUIRE_\w*|DISABLE_REQUIRE|MIG_\w*|IMEX_\w*|GDRCOPY|GDS|MOFED|NVSWITCH|FABRIC\w*)$/i
/** The tool's own folders in the container: a tmpfs over one (or over /) would hide what it mounts there. */
const TOOL_DIRS = ['/gpu-overhead', '/data', '/checkpoints']
const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})?$/
const TMPFS = /^(\/[A-Za-z0-9_./-]{0,254})(:[A-Za-z0-9=,]{1,200})?$/

interface FlagRule {
  /**
   * The flags this rule checks, each passed to the engine as given: flags that share a rule share its value
   * check only (`--pids-limit 64` stays `--pids-limit 64`, never the first name's `--cpu-shares 64`). A short
   * name maps to its own long name in SHORT.
   */
  names: readonly string[]
  valid(value: string): boolean
  allowed: string
  /** A value the rule accepts: the argv test of every allow-listed flag is generated from these. */
  example: string
}

/** The engine's own short spellings, each to the one long flag it means (docker run --help). */
const SHORT: Readonly<Record<string, string>> = {
  '-m': '--memory',
  '-e': '--env',
  '-u': '--user',
  '-w': '--workdir'
}

const FLAGS: readonly FlagRule[] = [
  {
    names: ['--ipc'],
    valid: v => ['host', 'private', 'shareable', 'none'].includes(v),
    allowed: 'host, private, shareable or none',
    example: 'host'
  },
  { names: ['--shm-size'], valid: v => SIZE.test(v), allowed: 'a size such as 8g or 512m', example: '8g' },
  {
    names: ['--ulimit'],
    valid: v => ULIMIT.test(v),
    allowed: `NAME=SOFT[:HARD] with NAME one of ${ULIMITS.join(', ')} and limits -1, unlimited or a number`,
    example: 'memlock=-1'
  },
  {
    names: ['--cpus'],
    valid: v => /^\d{1,4}(\.\d{1,3})?$/.test(v) && Number(v) > 0,
    allowed: 'a positive number of CPUs, e.g. 8 or 7.5',
    example: '7.5'
  },
  {
    names: ['--cpuset-cpus', '--cpuset-mems'],
    valid: v => CPU_LIST.test(v),
    allowed: 'a list such as 0-7,16',
    example: '0'
  },
  {
    names: ['--cpu-shares', '--pids-limit'],
    valid: v => /^-?\d{1,9}$/.test(v),
    allowed: 'an integer',
    example: '64'
  },
  {
    names: ['--memory', '-m', '--memory-swap'],
    valid: v => SIZE.test(v) || v === '-1',
    allowed: 'a size such as 16g',
    example: '512m'
  },
  {
    names: ['-e', '--env'],
    valid: v => {
      const eq = v.indexOf('=')
      const name = eq < 0 ? v : v.slice(0, eq)
      return eq > 0 && ENV_NAME.test(name) && !RESERVED_ENV.test(name) && !TOOLKIT_ENV.test(name)
    },
    allowed:
      'NAME=VALUE (NAME not starting with GPU_OVERHEAD_, which the tool sets, nor a variable the NVIDIA toolkit reads to choose devices: NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES, NVIDIA_REQUIRE_*, …; set gpus and gpu-access instead)',
    example: 'OMP_NUM_THREADS=8'
  },
  {
    names: ['--tmpfs'],
    valid: v => {
      const m = TMPFS.exec(v)
      const raw = m?.[1] ?? ''
      if (m === null || /(^|\/)\.\.(\/|$)/.test(raw)) return false
      // Judged as the engine resolves it: `//gpu-overhead` and `/./gpu-overhead/` are /gpu-overhead.
      const dir = path.posix.normalize(raw).replace(/(.)\/+$/, '$1')
      return dir !== '/' && !TOOL_DIRS.some(t => dir === t || dir.startsWith(`${t}/`))
    },
    allowed:
      "an absolute folder other than / and the tool's own (/gpu-overhead, /data, /checkpoints), with optional mount options, e.g. /scratch:size=8g",
    example: '/scratch:size=8g'
  },
  {
    names: ['--user', '-u'],
    valid: v => USER.test(v),
    allowed: 'USER[:GROUP] by name or number, e.g. 1000:1000',
    example: '1000:1000'
  },
  {
    names: ['--workdir', '-w'],
    valid: v => /^\/[A-Za-z0-9_./-]{0,254}$/.test(v) && !/(^|\/)\.\.(\/|$)/.test(v),
    allowed: 'an absolute folder',
    example: '/scratch'
  }
]

const ALLOWED_LIST = FLAGS.map(f => f.names.join('/')).join(', ')
const MAX_TOKENS = 128

/** Every allow-listed flag with a value its rule accepts (the argv test covers each, from the allow-list). */
export const LAUNCH_FLAG_EXAMPLES: readonly (readonly [string, string])[] = FLAGS.flatMap(f =>
  f.names.map(n => [n, f.example] as const)
)

/** `container-args` → the validated argv (each flag as given, short ones as their long name; `--flag value` pairs). */
export function containerLaunchArgs(raw: string, containerMemory: string | null): string[] {
  const tokens = raw
    .split('\n')
    .map(line => line.replace(/(^|\s)#.*$/, ''))
    .join(' ')
    .split(/\s+/)
    .filter(Boolean)
  if (tokens.length > MAX_TOKENS)
    throw new InputError(Inputs.ContainerArgs, `${tokens.length} words`, `at most ${MAX_TOKENS} words`)
  const out: string[] = []
  for (let i = 0; i < tokens.length; i++) {
    const token = at(tokens, i)
    const eq = token.startsWith('--') ? token.indexOf('=') : -1
    const name = eq > 0 ? token.slice(0, eq) : token
    const rule = FLAGS.find(f => f.names.includes(name))
    if (!rule)
      throw new InputError(
        Inputs.ContainerArgs,
        token,
        `one of the launch flags ${ALLOWED_LIST} (mounts, devices, capabilities, privileges, network and runtime are never accepted)`
      )
    let value: string | undefined
    if (eq > 0) value = token.slice(eq + 1)
    else value = tokens[++i]
    if (value === undefined || value === '' || !rule.valid(value))
      throw new InputError(Inputs.ContainerArgs, `${name} ${value ?? ''}`.trim(), `${name} ${rule.allowed}`)
    // As given: a long name as it is, a short one as its own long name (never another flag of the rule).
    const canonical = SHORT[name] ?? name
    if ((canonical === '--memory' || canonical === '--memory-swap') && containerMemory !== null)
      throw new InputError(
        Inputs.ContainerArgs,
        `${name} ${value}`,
        'no --memory/--memory-swap while container-memory is set (it sets both); use one of them'
      )
    out.push(canonical, value)
  }
  if (out.includes('--memory-swap') && !out.includes('--memory'))
    throw new InputError(
      Inputs.ContainerArgs,
      raw.trim(),
      '--memory-swap together with --memory (the engine refuses a swap limit without a memory limit)'
    )
  return out
}

/** What the launch flags set, for the report and the stack facts (`--ulimit` may repeat). */
export function launchFlagFacts(args: readonly string[]): Record<string, string> {
  const facts: Record<string, string> = {}
  for (let i = 0; i + 1 < args.length; i += 2) {
    const key = at(args, i).replace(/^--/, '')
    const value = at(args, i + 1)
    if (key === 'ulimit' || key === 'env' || key === 'tmpfs') {
      const sub = first(value.split(/[=:]/))
      facts[`${key}.${sub}`] = key === 'env' ? value.slice(sub.length + 1) : value
    } else facts[key] = value
  }
  return facts
}
