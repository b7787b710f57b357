import type { ContainerRuntime } from '../types/index.js'
import { EnvironmentError } from '../util/errors.js'
import { firstLine } from '../util/text.js'
import { PULL_TIMEOUT_MS, hungEngineLine, inspectImageCall, pullImage } from '../tools/docker.js'
import { imageRefOf, imageRefOrNull, pickRepoDigest, type ImageRef } from '../config/index.js'
import { compareVersions, majorMinor, parseVersion } from './cuda-compat.js'
import { startRefusal } from './container-init.js'

// ---- NVIDIA_REQUIRE_CUDA ----

export interface RequireConstraint {
  key: string
  op: '>=' | '<=' | '=' | '<' | '>'
  value: string
}

/** `NVIDIA_REQUIRE_CUDA`: whitespace separates alternatives (OR), commas join constraints (AND). */
export interface RequireCuda {
  alternatives: RequireConstraint[][]
  /** Tokens that did not parse (reported, never guessed). */
  unparsed: string[]
}

export function parseRequireCuda(text: string): RequireCuda {
  const alternatives: RequireConstraint[][] = []
  const unparsed: string[] = []
  for (const alt of text.trim().split(/\s+/)) {
    if (alt === '') continue
    const constraints: RequireConstraint[] = []
    for (const token of alt.split(',')) {
      const m = /^([a-z_]+)(>=|<=|=|<|>)(.+)$/i.exec(token.trim())
      if (!m?.[1] || !m[2] || !m[3]) {
        unparsed.push(token)
        continue
      }
      constraints.push({ key: m[1].toLowerCase(), op: m[2] as RequireConstraint['op'], value: m[3] })
    }
    if (constraints.length > 0) alternatives.push(constraints)
  }
  return { alternatives, unparsed }
}

/** The CUDA version the requirement asks for (`cuda>=X` alternatives; the lowest if several). */
export function requiredCudaOf(req: RequireCuda): string | null {
  const versions = req.alternatives
    .flat()
    .filter(c => c.key === 'cuda' && (c.op === '>=' || c.op === '=') && parseVersion(c.value) !== null)
    .map(c => c.value)
  versions.sort(compareVersions)
  return versions[0] ?? null
}

/** Driver branches the image accepts through forward compatibility (`brand=...,driver>=535,driver<536`). */
export function forwardCompatBranches(req: RequireCuda): number[] {
  const branches = new Set<number>()
  for (const alt of req.alternatives) {
    if (!alt.some(c => c.key === 'brand')) continue
    for (const c of alt) {
      if (c.key === 'driver' && c.op === '>=') {
        const major = parseVersion(c.value)?.[0]
        if (major !== undefined) branches.add(major)
      }
    }
  }
  return [...branches].sort((a, b) => a - b)
}

// ---- Image facts ----

export interface ImageFacts {
  ref: string
  /** Image ID (`sha256:...`, the config digest). */
  id: string
  /** Content digest from RepoDigests, or the image ID when there is none (locally built). */
  digest: string
  digest_source: 'repo-digest' | 'image-id'
  repo_tags: string[]
  repo_digests: string[]
  created: string | null
  architecture: string | null
  os: string | null
  /** `CUDA_VERSION` as set (nvidia/cuda `12.4.1`, NGC four parts `12.2.2.009`). */
  cuda_version: string | null
  /** NGC's `CUDA_DRIVER_VERSION`: the driver the image's toolkit was released with. */
  cuda_driver_version: string | null
  require_cuda: string | null
  require_cuda_parsed: RequireCuda | null
  /** The CUDA version the driver gate checks: CUDA_VERSION, else a meaningful `cuda>=` requirement. */
  required_cuda: string | null
  /** NVIDIA_REQUIRE_CUDA asks for less than the image's CUDA (NGC's `cuda>=9.0`): not a real requirement. */
  require_vacuous: boolean
  /** `NV_CUDA_COMPAT_PACKAGE` (nvidia/cuda images). */
  compat_package: string | null
  /** The image carries the forward-compatibility libraries (compat package, or `cuda/compat` on LD_LIBRARY_PATH). */
  forward_compat: boolean
  forward_compat_branches: number[]
  /** `NVIDIA_PRODUCT_NAME` (`CUDA`, `PyTorch`, ...). */
  product: string | null
  env: Record<string, string>
  labels: Record<string, string>
  /** How the image starts a command: its ENTRYPOINT (NGC: /opt/nvidia/nvidia_entrypoint.sh), WORKDIR and USER. */
  entrypoint: string[]
  workdir: string | null
  user: string | null
  /** True when the image had to be pulled for this check. */
  pulled: boolean
}

interface InspectJson {
  Id?: unknown
  RepoTags?: unknown
  RepoDigests?: unknown
  Created?: unknown
  Architecture?: unknown
  Os?: unknown
  Config?: {
    Env?: unknown
    Labels?: unknown
    Entrypoint?: unknown
    WorkingDir?: unknown
    User?: unknown
  } | null
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null
}

export function envMap(env: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const e of env) {
    const eq = e.indexOf('=')
    if (eq > 0) out[e.slice(0, eq)] = e.slice(eq + 1)
  }
  return out
}

/**
 * Turn `docker image inspect` / `podman image inspect` JSON (an array, or one object) into facts. `image` is
 * the parsed reference (a recorded output's plain string is parsed leniently: null when it is not one).
 */
export function parseImageInspect(json: unknown, image: ImageRef | string): ImageFacts {
  const ref = typeof image === 'string' ? image : image.ref
  const obj = (Array.isArray(json) ? json[0] : json) as InspectJson | undefined
  if (!obj || typeof obj !== 'object' || typeof obj.Id !== 'string') {
    throw new EnvironmentError(`image inspect of ${ref} returned no image object`)
  }
  const parsedRef = typeof image === 'string' ? imageRefOrNull(image) : image
  const id = obj.Id.startsWith('sha256:') ? obj.Id : `sha256:${obj.Id}`
  const repoDigests = strings(obj.RepoDigests)
  const repoDigest = parsedRef ? pickRepoDigest(parsedRef, repoDigests) : null
  const env = envMap(strings(obj.Config?.Env))
  const labelsRaw = obj.Config?.Labels
  const labels: Record<string, string> = {}
  if (labelsRaw && typeof labelsRaw === 'object') {
    for (const [k, v] of Object.entries(labelsRaw as Record<string, unknown>))
      if (typeof v === 'string') labels[k] = v
  }

  const cudaVersion = str(env.CUDA_VERSION?.trim())
  const cudaVersionOk = cudaVersion !== null && (parseVersion(cudaVersion)?.length ?? 0) >= 2
  const requireRaw = str(env.NVIDIA_REQUIRE_CUDA?.trim())
  const require = requireRaw ? parseRequireCuda(requireRaw) : null
  const requireCuda = require ? requiredCudaOf(require) : null
  // NGC sets cuda>=9.0 on CUDA 12/13 images: weaker than the image's own CUDA, so not the requirement.
  const vacuous =
    requireCuda !== null &&
    ((cudaVersionOk && compareVersions(majorMinor(requireCuda), majorMinor(cudaVersion)) < 0) ||
      (parseVersion(requireCuda)?.[0] ?? 0) < 11)
  const requiredCuda = cudaVersionOk ? cudaVersion : vacuous ? null : requireCuda
  const compatPackage = str(env.NV_CUDA_COMPAT_PACKAGE?.trim())
  const ldPath = env.LD_LIBRARY_PATH ?? ''
  const forwardCompat =
    compatPackage !== null || /(^|:)\/usr\/local\/cuda[^:]*\/compat(\/lib)?\/?(:|$)/.test(ldPath)
  const driverVersion = str(env.CUDA_DRIVER_VERSION?.trim())

  return {
    ref,
    id,
    digest: repoDigest ?? id,
    digest_source: repoDigest ? 'repo-digest' : 'image-id',
    repo_tags: strings(obj.RepoTags),
    repo_digests: repoDigests,
    created: str(obj.Created),
    architecture: str(obj.Architecture),
    os: str(obj.Os),
    cuda_version: cudaVersion,
    cuda_driver_version: driverVersion && parseVersion(driverVersion) ? driverVersion : null,
    require_cuda: requireRaw,
    require_cuda_parsed: require,
    required_cuda: requiredCuda,
    require_vacuous: vacuous,
    compat_package: compatPackage,
    forward_compat: forwardCompat,
    forward_compat_branches: require ? forwardCompatBranches(require) : [],
    product: str(env.NVIDIA_PRODUCT_NAME),
    env,
    labels,
    entrypoint: strings(obj.Config?.Entrypoint).slice(0, 32),
    workdir: str(obj.Config?.WorkingDir),
    user: str(obj.Config?.User),
    pulled: false
  }
}

/** The engine's first line of complaint: `image inspect` of a missing image prints an empty `[]` first. */
function engineLine(text: string): string {
  return firstLine(text.replace(/^\s*\[\]\s*$/gm, ''))
}

/** Map a container-runtime failure that is about the runtime itself (missing, daemon down) to EnvironmentError. */
export function runtimeFailure(
  runtime: ContainerRuntime,
  res: { exitCode: number; stderr: string }
): EnvironmentError | null {
  // A hung engine: one line, and no pull after it (tools/docker.ts engineCall).
  if (res.stderr === hungEngineLine(runtime)) return new EnvironmentError(hungEngineLine(runtime))
  // 127 is also what the runtime returns when the container's command is missing: tell them apart.
  if (res.exitCode === 127 && /Unable to locate executable file|ENOENT/.test(res.stderr)) {
    return new EnvironmentError(
      `${runtime} not found on PATH: install ${runtime}, or choose the other runtime`
    )
  }
  if (
    /Cannot connect to the Docker daemon|Is the docker daemon running|permission denied while trying to connect/i.test(
      res.stderr
    )
  ) {
    return new EnvironmentError(
      `${runtime} cannot reach its engine: ${engineLine(res.stderr)}; start it, or check DOCKER_HOST and permissions`
    )
  }
  // What fails every container on this host: a missing init binary (every container runs with --init; podman
  // without catatonit), crun on hybrid cgroups.
  const refusal = startRefusal(runtime, res.stderr)
  if (refusal !== null) return new EnvironmentError(refusal.message)
  return null
}

/**
 * The time an image may take to be there (inspected, and pulled when absent): a check with a time-budget gives it,
 * counted from the inspect, so a pull gets what is left of it. Not run-timeout: that bounds one measured process,
 * and a first pull of an NGC image (10–20 GB) routinely takes longer.
 */
export interface ImageBudget {
  /** Epoch milliseconds by which the pull must have finished. */
  deadlineMs: number
  /** What set it, as the error names it: `time-budget 900 s`. */
  source: string
}

/** The budget of a check's image step: time-budget seconds from now. */
export function timeBudgetBudget(timeBudgetS: number): ImageBudget {
  return { deadlineMs: Date.now() + timeBudgetS * 1000, source: `time-budget ${timeBudgetS} s` }
}

/** The pull's limit: its own, or what is left of the budget, whichever ends first; and what set it. */
function pullLimit(budget: ImageBudget | undefined): { ms: number; by: string } {
  const own = { ms: PULL_TIMEOUT_MS, by: `the pull's own limit, ${PULL_TIMEOUT_MS / 1000} s` }
  if (!budget) return own
  const left = budget.deadlineMs - Date.now()
  return left < own.ms ? { ms: Math.max(0, left), by: budget.source } : own
}

/**
 * Inspect an image with the container runtime; pull it when it is not present locally, within `budget` (and the
 * pull's own limit): a pull past it is stopped, its process tree killed, and named in one line.
 * Throws InputError for a bad reference, EnvironmentError when the image is neither present nor pullable in time.
 */
export async function inspectImage(
  ref: ImageRef | string,
  runtime: ContainerRuntime,
  options: { pull?: boolean; inputName?: string; budget?: ImageBudget } = {}
): Promise<ImageFacts> {
  const parsed = imageRefOf(ref, options.inputName)
  const inspect = async (): Promise<{ exitCode: number; stdout: string; stderr: string }> =>
    inspectImageCall(runtime, parsed.ref)
  let res = await inspect()
  const failure = runtimeFailure(runtime, res)
  if (failure) throw failure
  let pulled = false
  if (res.exitCode !== 0) {
    if (options.pull === false) {
      throw new EnvironmentError(
        `image ${parsed.ref} is not present locally (${engineLine(res.stderr)}); pull or build it first`
      )
    }
    const limit = pullLimit(options.budget)
    const ahead = `pull it on this machine before the check (${runtime} pull ${parsed.ref}), or raise time-budget`
    if (limit.ms < 1000)
      throw new EnvironmentError(
        `image ${parsed.ref} is not present locally and no time is left to pull it (${limit.by}): ${ahead}`
      )
    const pull = await pullImage(runtime, parsed.ref, limit.ms)
    if (pull.timedOut && pull.stderr !== hungEngineLine(runtime)) {
      throw new EnvironmentError(
        `image ${parsed.ref} was not pulled within ${Math.round(limit.ms / 1000)} s (${limit.by}): the pull was stopped and its process tree killed; ${ahead}`
      )
    }
    if (pull.exitCode !== 0) {
      throw new EnvironmentError(
        `image ${parsed.ref} is not present locally and could not be pulled: ${engineLine(pull.stderr + pull.stdout) || `exit ${pull.exitCode}`}; ` +
          `load or build it on this machine (docker load / docker import), or check that the registry is reachable and you are logged in`
      )
    }
    pulled = true
    res = await inspect()
    if (res.exitCode !== 0) {
      throw new EnvironmentError(
        `image ${parsed.ref} was pulled but cannot be inspected: ${engineLine(res.stderr)}`
      )
    }
  }
  let json: unknown
  try {
    json = JSON.parse(res.stdout)
  } catch {
    throw new EnvironmentError(`${runtime} image inspect ${parsed.ref} printed something that is not JSON`)
  }
  return { ...parseImageInspect(json, parsed), pulled }
}
