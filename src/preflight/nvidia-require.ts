/**
 * An image's `NVIDIA_REQUIRE_*` requirements as the NVIDIA Container Toolkit decides them before a `--gpus`
 * container starts. Which requirements: nvidia-container-toolkit `internal/config/image/cuda_image.go`
 * (`GetRequirements`, `IsLegacy`, `HasDisableRequire`, `parseMajorMinorVersion`) at
 * d34b3046758cb1a5db606b2a39519c731bbf9f56 (2026-08-21), with its semver library (Masterminds/semver v3.5.0,
 * vendored there: `NewVersion` coerces through its loose pattern):
 * - every `NVIDIA_REQUIRE_*` variable is one requirement, except `NVIDIA_REQUIRE_JETPACK*`; all must hold;
 * - `NVIDIA_DISABLE_REQUIRE` parsed by Go's strconv.ParseBool turns the check off;
 * - a legacy image (`CUDA_VERSION` set, `NVIDIA_REQUIRE_CUDA` empty or absent) gets `cuda>=MAJOR.MINOR` from a
 *   semver parse of `CUDA_VERSION` (`13` → `cuda>=13.0`, `v12.6` → `cuda>=12.6`); a version semver refuses
 *   (`12.2.2.009`) makes the hook fail, so the container does not start.
 * How each is evaluated: toolkit-dsl.ts (libnvidia-container dsl.c/configure.c), per visible GPU.
 * Facts we do not know (a brand, a compute capability) are explored by toolkit-dsl, so an outcome that depends on
 * them is reported as undecided rather than guessed. Pure: no I/O.
 */
import { evaluatePredicate, known, MAX_REQUIREMENTS, UNKNOWN, type DslContext } from './toolkit-dsl.js'
import { toolkitBrand } from './toolkit-brand.js'

export const REQUIRE_PREFIX = 'NVIDIA_REQUIRE_'
const JETPACK_PREFIX = 'NVIDIA_REQUIRE_JETPACK'
const DISABLE_VAR = 'NVIDIA_DISABLE_REQUIRE'
const REQUIRE_CUDA_VAR = 'NVIDIA_REQUIRE_CUDA'
const CUDA_VERSION_VAR = 'CUDA_VERSION'
export const LEGACY_SOURCE = `${CUDA_VERSION_VAR} (legacy)`

/** What the host offers, per the toolkit's properties. null = not known. */
export interface HostFacts {
  /** CUDA version the driver supports (nvidia-smi "CUDA Version"), e.g. `13.0`. */
  driverCuda: string | null
  /** Driver version, e.g. `580.159.04`. */
  driver: string | null
  /**
   * One entry per visible GPU: nvidia-smi's "Product Brand" and compute capability (`9.0`); an empty list is
   * "no GPU visible", where the toolkit lets brand and arch conditions hold.
   */
  gpus: { brand: string | null; arch: string | null }[]
}

export interface Requirement {
  /** The variable it came from, or `CUDA_VERSION (legacy)`. */
  source: string
  expression: string
  /** Set when the toolkit cannot even build the requirement (a legacy CUDA_VERSION semver refuses). */
  error?: string
}

export interface RequirementOutcome extends Requirement {
  result: 'satisfied' | 'unsatisfied' | 'unknown' | 'invalid'
  /** The toolkit's words for a refusal: `unsatisfied condition: cuda>=13.2, please update …`, `invalid expression`. */
  message: string | null
  /** The conditions found false (first false condition of each alternative tried), or the invalid one. */
  failed: string[]
  /** Facts (`brand`, `arch`, `cuda`, `driver`) the outcome waits on because they are unknown. */
  undecided: string[]
}

const UINT32_MAX = 4294967295n
const UINT64_MAX = 2n ** 64n - 1n
/** Masterminds/semver v3 `looseSemVerRegex`, anchored as `NewVersion` (CoerceNewVersion) uses it. */
const LOOSE_SEMVER =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/
const SEMVER_MAX_LEN = 256

/**
 * cuda_image.go `parseMajorMinorVersion`: `MAJOR.MINOR` of a semver-parsed version, or an Error with the
 * toolkit's reason. Ported cases: its TestParseMajorMinorVersionValid/Invalid (test/preflight/toolkit-cases.ts).
 */
export function parseMajorMinorVersion(version: string): string | Error {
  if (version.length > SEMVER_MAX_LEN) return new Error('invalid version string: version string is too long')
  const m = LOOSE_SEMVER.exec(version)
  if (m === null) return new Error('invalid version string: invalid semantic version')
  const part = (s: string | undefined): bigint => (s === undefined ? 0n : BigInt(s.replace(/^\./, '')))
  const [major, minor, patch] = [part(m[1]), part(m[2]), part(m[3])]
  if (major > UINT64_MAX || minor > UINT64_MAX || patch > UINT64_MAX)
    return new Error('invalid version string: error parsing version segment')
  const pre = m[5]
  if (pre !== undefined && pre.split('.').some(p => /^\d+$/.test(p) && p.length > 1 && p.startsWith('0')))
    return new Error('invalid version string: version segment starts with 0')
  if (major > UINT32_MAX) return new Error('invalid major version')
  if (minor > UINT32_MAX) return new Error('invalid minor version')
  return `${major}.${minor}`
}

/** The requirements the toolkit would check for an image with environment `env`. */
export function imageRequirements(env: Readonly<Record<string, string>>): {
  disabled: boolean
  requirements: Requirement[]
} {
  if (parseGoBool(env[DISABLE_VAR])) return { disabled: true, requirements: [] }
  // Go ranges over a map (random order); sorted here so reports are stable.
  const requirements: Requirement[] = Object.entries(env)
    .filter(([k]) => k.startsWith(REQUIRE_PREFIX) && !k.startsWith(JETPACK_PREFIX))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([source, expression]) => ({ source, expression }))
  const cuda = env[CUDA_VERSION_VAR] ?? ''
  if (cuda !== '' && (env[REQUIRE_CUDA_VAR] ?? '') === '') {
    const mm = parseMajorMinorVersion(cuda)
    requirements.push(
      mm instanceof Error
        ? {
            source: LEGACY_SOURCE,
            expression: '',
            error: `failed to get requirements failed to get version: invalid CUDA version ${cuda}: ${mm.message}`
          }
        : { source: LEGACY_SOURCE, expression: `cuda>=${mm}` }
    )
  }
  return { disabled: false, requirements }
}

/** Go's strconv.ParseBool, which the hook uses for NVIDIA_DISABLE_REQUIRE (an error reads false). */
function parseGoBool(v: string | undefined): boolean {
  return v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)
}

/** The contexts configure.c evaluates in: one per visible GPU, or one without a device when none is visible. */
function contexts(host: HostFacts): DslContext[] {
  const drv = {
    cuda: host.driverCuda === null ? UNKNOWN : known(host.driverCuda),
    driver: host.driver === null ? UNKNOWN : known(host.driver)
  }
  if (host.gpus.length === 0) return [{ ...drv, device: null }]
  return host.gpus.map(g => {
    const brand = toolkitBrand(g.brand)
    return {
      ...drv,
      device: {
        arch: g.arch === null ? UNKNOWN : known(g.arch),
        brand: brand === null ? UNKNOWN : known(brand)
      }
    }
  })
}

/** Evaluate one requirement on every visible GPU: refused on one GPU is refused. */
export function evaluateRequirement(req: Requirement, host: HostFacts): RequirementOutcome {
  if (req.error !== undefined)
    return { ...req, result: 'invalid', message: req.error, failed: [], undecided: [] }
  const per = contexts(host).map(ctx => evaluatePredicate(req.expression, ctx))
  const refused = per.find(o => o.result === 'unsatisfied' || o.result === 'invalid')
  if (refused !== undefined) return { ...req, ...refused }
  const open = per.filter(o => o.result === 'unknown')
  if (open.length > 0)
    return {
      ...req,
      result: 'unknown',
      message: null,
      failed: [],
      undecided: [...new Set(open.flatMap(o => o.undecided))]
    }
  return { ...req, result: 'satisfied', message: null, failed: [], undecided: [] }
}

/** Words for the facts an undecided requirement waits on. */
const FACT_WORDS: Readonly<Record<string, string>> = {
  brand: 'the GPU brand',
  arch: "the GPU's compute capability",
  cuda: 'the CUDA version the driver supports',
  driver: 'the driver version'
}

function undecidedFacts(o: RequirementOutcome): string {
  return o.undecided.map(p => `${FACT_WORDS[p] ?? p}, which is unknown`).join(', and ')
}

/** Why a refused requirement is refused: the false conditions, or the one that is not a valid expression. */
function refusalWords(o: RequirementOutcome): string {
  if (o.failed.length === 0) return `${o.source}: ${o.message ?? ''}`
  const at = o.result === 'invalid' ? `at ${o.failed[0] ?? ''}` : `false here: ${o.failed.join(', ')}`
  return `${o.source}: ${o.message ?? ''} (${at})`
}

export type AccessMode = 'gpus' | 'cdi' | 'devices'

export interface RequireGateResult {
  status: 'pass' | 'warn' | 'fail' | 'skip'
  message: string
  fix: string | null
  outcomes: RequirementOutcome[]
}

function hostSummary(host: HostFacts): string {
  const brands = [
    ...new Set(host.gpus.map(g => `${g.brand ?? 'unknown'} (toolkit: ${toolkitBrand(g.brand) ?? 'unknown'})`))
  ].join('/')
  const archs = [...new Set(host.gpus.map(g => g.arch ?? 'unknown'))].join('/')
  return (
    `driver ${host.driver ?? 'unknown'} supports CUDA ${host.driverCuda ?? 'unknown'}` +
    (brands ? `, GPU brand ${brands}, compute capability ${archs}` : '')
  )
}

/**
 * The gate: under `gpus` (the toolkit evaluates the requirements) an unsatisfied or invalid requirement
 * FAILs because the container cannot start; under `cdi`/`devices` nothing evaluates them, so the same
 * words come as a WARN (the image's authors say it needs more than this host has).
 */
export function requireGate(
  env: Readonly<Record<string, string>>,
  host: HostFacts,
  access: AccessMode
): RequireGateResult {
  const { disabled, requirements } = imageRequirements(env)
  if (disabled)
    return {
      status: 'skip',
      message: `${DISABLE_VAR} is set: the image's requirements are not checked`,
      fix: null,
      outcomes: []
    }
  if (requirements.length === 0)
    return {
      status: 'skip',
      message: 'the image declares no NVIDIA_REQUIRE_* requirement',
      fix: null,
      outcomes: []
    }
  const outcomes = requirements.map(r => evaluateRequirement(r, host))
  if (requirements.length > MAX_REQUIREMENTS)
    outcomes.push({
      source: REQUIRE_PREFIX + '*',
      expression: '',
      result: 'invalid',
      message: `input error: too many requirements (${requirements.length}; nvidia-container-cli takes ${MAX_REQUIREMENTS})`,
      failed: [],
      undecided: []
    })
  const bad = outcomes.filter(o => o.result === 'unsatisfied' || o.result === 'invalid')
  const unknown = outcomes.filter(o => o.result === 'unknown')
  const facts = hostSummary(host)
  if (bad.length > 0) {
    const words = bad.map(refusalWords).join('; ')
    const fix =
      'upgrade the host driver so it supports what the image requires, or pin an image whose requirement this host meets'
    return access === 'gpus'
      ? {
          status: 'fail',
          message: `${words}; ${facts}: the NVIDIA Container Toolkit refuses to start this container under --gpus`,
          fix,
          outcomes
        }
      : {
          status: 'warn',
          message: `${words}; ${facts}: under gpu-access ${access} nothing evaluates the requirement, so the container starts, but the image says this host is not enough`,
          fix,
          outcomes
        }
  }
  if (unknown.length > 0)
    return {
      status: 'warn',
      message:
        `${unknown.map(o => `${o.source} (${o.expression.split(' ')[0] ?? ''} …) could not be decided: it depends on ${undecidedFacts(o)}`).join('; ')}; ` +
        `${facts}: not passed on a guess`,
      fix: 'run on the GPU host, where nvidia-smi reports the driver, its CUDA version, the GPU brand and compute capability (gpu-overhead gate: leave out --driver), or check the requirement by hand',
      outcomes
    }
  return {
    status: 'pass',
    message:
      `the image's ${outcomes.map(o => o.source).join(', ')} hold on this host (${facts})` +
      // Under CDI or device nodes the engine starts the container whatever the image requires (CDI specs carry no
      // NVIDIA_REQUIRE_* logic): the reader should know that this row was the only check.
      (access === 'gpus'
        ? ''
        : `; under gpu-access ${access} neither the engine nor ${access === 'cdi' ? 'CDI' : 'the device nodes'} checks them: this gate did`),
    fix: null,
    outcomes
  }
}
