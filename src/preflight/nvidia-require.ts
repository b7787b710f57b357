/**
 * Evaluate an image's `NVIDIA_REQUIRE_*` variables the way the NVIDIA Container Toolkit does before it
 * lets a `--gpus` container start (libnvidia-container `src/cli/dsl.c` + `configure.c`, and the hook's
 * `GetRequirements` in nvidia-container-toolkit `internal/config/image/cuda_image.go`):
 * - every `NVIDIA_REQUIRE_*` variable is one requirement (except `NVIDIA_REQUIRE_JETPACK*`); all must hold;
 *   `NVIDIA_DISABLE_REQUIRE=true` turns the check off; an image with `CUDA_VERSION` but no
 *   `NVIDIA_REQUIRE_CUDA` gets the legacy requirement `cuda>=MAJOR.MINOR`;
 * - inside one requirement a space separates alternatives (OR) and a comma joins conditions (AND);
 * - a condition is `property op value`, op one of `= != < <= > >=`; properties (case-insensitive):
 *   `cuda` (the CUDA version the driver supports, MAJOR.MINOR), `driver` (the driver version), `arch`
 *   (the GPU's compute capability) and `brand` (the GPU's brand, `=`/`!=` only, case-insensitive);
 * - versions compare numerically part by part, trailing `.0` parts ignored; anything but digits and dots is
 *   an invalid expression, and so is an unknown property or operator: the toolkit then refuses the
 *   container ("invalid expression"), so we report it as unsatisfiable too;
 * - brand and arch are evaluated per visible GPU, each GPU must satisfy every requirement;
 * - the refusal names the requirement's FIRST alternative: "unsatisfied condition: cuda>=13.2".
 * Facts we do not know (e.g. the brand) evaluate to `unknown` (three-valued logic), so an outcome that
 * depends on them is reported as undecided rather than guessed. Pure: no I/O. One file on purpose (a little
 * over 300 lines): the grammar, its evaluation and its messages mirror the toolkit's one module.
 */

export const REQUIRE_PREFIX = 'NVIDIA_REQUIRE_'
const JETPACK_PREFIX = 'NVIDIA_REQUIRE_JETPACK'
const DISABLE_VAR = 'NVIDIA_DISABLE_REQUIRE'
const REQUIRE_CUDA_VAR = 'NVIDIA_REQUIRE_CUDA'
const CUDA_VERSION_VAR = 'CUDA_VERSION'
const CUDA_HINT = ', please update your driver to a newer version, or use an earlier cuda container'
const OPERATOR_CHARS = /[<>=!]/
const OPERATORS = ['=', '!=', '<', '<=', '>', '>='] as const
type Operator = (typeof OPERATORS)[number]
type Truth = true | false | 'unknown'

/** What the host offers, per the toolkit's properties. null = not known. */
export interface HostFacts {
  /** CUDA version the driver supports (nvidia-smi "CUDA Version"), e.g. `13.0`. */
  driverCuda: string | null
  /** Driver version, e.g. `580.159.04`. */
  driver: string | null
  /** One entry per visible GPU; an empty list evaluates brand/arch as satisfied (as the toolkit does). */
  gpus: { brand: string | null; arch: string | null }[]
}

export interface Requirement {
  /** The variable it came from, or `CUDA_VERSION (legacy)`. */
  source: string
  expression: string
}

export interface RequirementOutcome extends Requirement {
  result: 'satisfied' | 'unsatisfied' | 'unknown' | 'invalid'
  /** The toolkit's words for a refusal: `unsatisfied condition: cuda>=13.2` (or `invalid expression: ...`). */
  message: string | null
  /** Conditions that were false (first failing condition of each alternative), for the report. */
  failed: string[]
  /** Conditions that could not be decided because a fact (brand, compute capability …) is unknown. */
  undecided: string[]
}

/** The requirements the toolkit would check for an image with environment `env`. */
export function imageRequirements(env: Readonly<Record<string, string>>): {
  disabled: boolean
  requirements: Requirement[]
} {
  if (parseGoBool(env[DISABLE_VAR])) return { disabled: true, requirements: [] }
  const requirements: Requirement[] = Object.keys(env)
    .filter(k => k.startsWith(REQUIRE_PREFIX) && !k.startsWith(JETPACK_PREFIX))
    .sort()
    .map(k => ({ source: k, expression: env[k]! }))
  const cuda = env[CUDA_VERSION_VAR] ?? ''
  if (cuda !== '' && (env[REQUIRE_CUDA_VAR] ?? '') === '') {
    const m = /^(\d+)\.(\d+)/.exec(cuda)
    if (m !== null)
      requirements.push({ source: `${CUDA_VERSION_VAR} (legacy)`, expression: `cuda>=${m[1]}.${m[2]}` })
  }
  return { disabled: false, requirements }
}

/** Go's strconv.ParseBool, which the hook uses for NVIDIA_DISABLE_REQUIRE. */
function parseGoBool(v: string | undefined): boolean {
  return v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)
}

/**
 * libnvidia-container's version comparison: digits and dots only (else null = invalid), numeric part by
 * part, then whatever is left after stripping `.` and `0` decides (so `12.0` equals `12`).
 */
export function compareVersionsLikeToolkit(a: string, op: Operator, b: string): boolean | null {
  if (!/^[0-9.]*$/.test(a) || !/^[0-9.]*$/.test(b)) return null
  const pa = a.split('.').filter(s => s !== '')
  const pb = b.split('.').filter(s => s !== '')
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = Number(pa[i])
    const y = Number(pb[i])
    if (x !== y) {
      if (op === '=') return false
      if (op === '!=') return true
      return op === '<' || op === '<=' ? x < y : x > y
    }
  }
  const restA = pa.slice(pb.length).some(s => Number(s) !== 0)
  const restB = pb.slice(pa.length).some(s => Number(s) !== 0)
  if (op === '!=') return restA || restB
  if (!restA && !restB) return op === '=' || op === '<=' || op === '>='
  if (op === '=') return false
  return op === '<' || op === '<=' ? !restA && restB : restA && !restB
}

interface Condition {
  text: string
  property: string
  op: Operator
  value: string
}

/** Parse one condition like the toolkit; null = invalid expression. */
function parseCondition(text: string): Condition | null {
  const at = text.search(OPERATOR_CHARS)
  if (at <= 0) return null
  const rest = text.slice(at)
  const run = /^[<>=!]+/.exec(rest)![0]
  if (!(OPERATORS as readonly string[]).includes(run)) return null
  const value = rest.slice(run.length)
  if (value === '') return null
  const property = text.slice(0, at).toLowerCase()
  if (!['cuda', 'driver', 'arch', 'brand'].includes(property)) return null
  return { text, property, op: run as Operator, value }
}

/** Brand words as the toolkit compares them: NVML's brand name without spaces (`NVIDIA RTX` → `nvidiartx`). */
export function normalizeBrand(brand: string): string {
  return brand.replace(/\s+/g, '').toLowerCase()
}

function evalCondition(c: Condition, host: HostFacts, gpu: HostFacts['gpus'][number] | null): Truth | null {
  const version = (have: string | null | undefined): Truth | null => {
    if (have === null || have === undefined) return 'unknown'
    return compareVersionsLikeToolkit(have, c.op, c.value)
  }
  switch (c.property) {
    case 'cuda':
      return version(host.driverCuda)
    case 'driver':
      return version(host.driver)
    case 'arch':
      return gpu === null ? true : version(gpu.arch)
    default: {
      // brand: no visible GPU or no brand known to the toolkit → satisfied there; unknown to us → unknown.
      if (gpu === null) return true
      if (c.op !== '=' && c.op !== '!=') return null
      if (gpu.brand === null) return 'unknown'
      const same = normalizeBrand(gpu.brand) === c.value.toLowerCase()
      return c.op === '=' ? same : !same
    }
  }
}

const and = (a: Truth, b: Truth): Truth =>
  a === false || b === false ? false : a === true && b === true ? true : 'unknown'
const or = (a: Truth, b: Truth): Truth =>
  a === true || b === true ? true : a === false && b === false ? false : 'unknown'

/** Evaluate one requirement expression against the host, per visible GPU. */
export function evaluateRequirement(req: Requirement, host: HostFacts): RequirementOutcome {
  const alternatives = req.expression
    .split(' ')
    .filter(s => s !== '')
    .map(alt => alt.split(',').filter(s => s !== ''))
  const parsed: Condition[][] = []
  for (const alt of alternatives) {
    const conds: Condition[] = []
    for (const text of alt) {
      const c = parseCondition(text)
      if (c === null)
        return {
          ...req,
          result: 'invalid',
          message: `invalid expression: ${text}`,
          failed: [text],
          undecided: []
        }
      conds.push(c)
    }
    parsed.push(conds)
  }
  if (parsed.length === 0) return { ...req, result: 'satisfied', message: null, failed: [], undecided: [] }
  const targets: (HostFacts['gpus'][number] | null)[] = host.gpus.length > 0 ? host.gpus : [null]
  let overall: Truth = true
  const failed = new Set<string>()
  const undecided = new Set<string>()
  for (const gpu of targets) {
    let any: Truth = false
    for (const conds of parsed) {
      let all: Truth = true
      for (const c of conds) {
        const v = evalCondition(c, host, gpu)
        if (v === null)
          return {
            ...req,
            result: 'invalid',
            message: `invalid expression: ${c.text}`,
            failed: [c.text],
            undecided: []
          }
        if (v === false) failed.add(c.text)
        if (v === 'unknown') undecided.add(c.text)
        all = and(all, v)
        if (all === false) break
      }
      any = or(any, all)
    }
    overall = and(overall, any)
  }
  if (overall === true) return { ...req, result: 'satisfied', message: null, failed: [], undecided: [] }
  const first = req.expression.split(' ').find(s => s !== '') ?? req.expression
  const message = `unsatisfied condition: ${first}${first.startsWith('cuda>=') ? CUDA_HINT : ''}`
  return {
    ...req,
    result: overall === false ? 'unsatisfied' : 'unknown',
    message,
    failed: [...failed],
    undecided: overall === false ? [] : [...undecided]
  }
}

/** Words for the facts an undecided requirement waits on: `the GPU brand (brand=tesla,…)`. */
const FACT_WORDS: Readonly<Record<string, string>> = {
  brand: 'the GPU brand',
  arch: "the GPU's compute capability",
  cuda: 'the CUDA version the driver supports',
  driver: 'the driver version'
}

function undecidedFacts(o: RequirementOutcome): string {
  const props = [...new Set(o.undecided.map(c => parseCondition(c)?.property ?? c))]
  return props.map(p => `${FACT_WORDS[p] ?? p}, which is unknown`).join(', and ')
}

export type AccessMode = 'gpus' | 'cdi' | 'devices'

export interface RequireGateResult {
  status: 'pass' | 'warn' | 'fail' | 'skip'
  message: string
  fix: string | null
  outcomes: RequirementOutcome[]
}

function hostSummary(host: HostFacts): string {
  const brands = [...new Set(host.gpus.map(g => g.brand ?? 'unknown'))].join('/')
  return `driver ${host.driver ?? 'unknown'} supports CUDA ${host.driverCuda ?? 'unknown'}${brands ? `, GPU brand ${brands}` : ''}`
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
  const bad = outcomes.filter(o => o.result === 'unsatisfied' || o.result === 'invalid')
  const unknown = outcomes.filter(o => o.result === 'unknown')
  const facts = hostSummary(host)
  if (bad.length > 0) {
    const words = bad
      .map(o => `${o.source}: ${o.message ?? ''} (false here: ${o.failed.join(', ')})`)
      .join('; ')
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
      fix: 'run on the GPU host, where nvidia-smi -q reports the driver, its CUDA version and the GPU brand (gpu-overhead gate: leave out --driver), or check the requirement by hand',
      outcomes
    }
  return {
    status: 'pass',
    message: `the image's ${outcomes.map(o => o.source).join(', ')} hold on this host (${facts})`,
    fix: null,
    outcomes
  }
}
