/**
 * Preflight for a whole check: GPU facts and checks once, the driver gate for every image an arm runs,
 * mount checks with the folders the io workload will really get. Bad input and a broken environment
 * throw (exit 2); check outcomes come back as results.
 */
import {
  bindSpecOf,
  judgeMount,
  refusalMessage,
  type Config,
  type ImageRef,
  type MountPurpose
} from '../config/index.js'
import { Inputs } from '../types/inputs.js'
import { containerGpuArgs } from '../tools/gpu-access.js'
import type { GpuReport } from './gpu.js'
import type { ImageFacts } from './image.js'
import { runPreflight } from './run.js'
import { resolveLanes } from './lanes.js'
import type { Lane } from '../types/index.js'
import { NVIDIA_REQUIRE_CHECK } from './driver-checks.js'
import { DRIVER_GATE } from './driver-gate-types.js'
import { checkContainerInit } from './container-init.js'
import { llmMemoryRow, matmulMemoryRow } from './memory-checks.js'
import type { ContainerRuntime, Mount, PreflightResult } from '../types/index.js'
import { armLauncher, armRuntime, imageKey, imageRuntimes } from '../launchers/index.js'
import { appendAll } from '../util/arrays.js'
import type { Logger } from '../util/log.js'
import { dockerRootDir, engineVersion } from '../tools/docker.js'
import { nativeIsolation, runsNativeCommands } from './native-isolation.js'

/** The rows that depend on the image alone, so every image of an image bump gets its own. */
const IMAGE_GATES: readonly string[] = [DRIVER_GATE, NVIDIA_REQUIRE_CHECK]

export interface PreflightOutcome {
  results: PreflightResult[]
  gpus: GpuReport | null
  /** Facts per image reference an arm runs. */
  images: Map<string, ImageFacts>
  runtimeVersion: string | null
  warnings: string[]
  /** What this configuration cannot measure, and why (the report lists them). */
  notMeasured: { what: string; why: string }[]
  /** The native arm's user commands run in their own namespaces (preflight/native-isolation.ts). */
  isolateNative?: boolean
  /** One lane per GPU the check runs on, resolved here once, right after the GPU facts (null: one unpinned process). */
  lanes: Lane[] | null
}

/** Before preflight ran (the INCOMPLETE placeholder's): nothing known. */
export function emptyPreflightOutcome(): PreflightOutcome {
  return {
    results: [],
    gpus: null,
    images: new Map(),
    runtimeVersion: null,
    warnings: [],
    notMeasured: [],
    lanes: null
  }
}

/** Each result as one log line: passes and skips as info, the rest as warnings. */
export function logPreflight(results: readonly PreflightResult[], logger: Logger): void {
  for (const p of results) {
    const line = `${p.name}: ${p.status} — ${p.message}${p.fix ? ` Fix: ${p.fix}` : ''}`
    if (p.status === 'pass' || p.status === 'skip') logger.info(line)
    else logger.warn(line)
  }
}

function notMeasured(config: Config): PreflightOutcome['notMeasured'] {
  const out: PreflightOutcome['notMeasured'] = []
  if (!config.arms.some(a => a.kind === 'container'))
    out.push({
      what: 'container overhead',
      why: `no container arm (arms: ${config.arms.map(a => a.label).join(', ')}): this is a calibration of the native side only`
    })
  if (config.device === 'cpu')
    out.push({
      what: 'GPU work, CUDA init, telemetry, energy',
      why: 'device is cpu: the workloads ran on the CPU'
    })
  return out
}

/**
 * The mount policy's decisions, shown in the preflight table: config already refused `/`, system folders,
 * sockets and devices; here the Docker data root that `docker info` reports is refused too, and every
 * decision is listed with the resolved path (docs/security.md).
 */
async function mountPolicyRows(config: Config): Promise<PreflightResult[]> {
  const asked: { input: string; path: string; purpose: MountPurpose }[] = []
  if (config.data) asked.push({ input: Inputs.DataPath, path: config.data.host, purpose: 'data' })
  if (config.checkpoint)
    asked.push({ input: Inputs.CheckpointPath, path: config.checkpoint.host, purpose: 'checkpoint' })
  if (config.driverMount)
    asked.push({ input: Inputs.DriverMount, path: config.driverMount, purpose: 'driver' })
  // A user command sees the workspace read-only at its own path in the container.
  if (config.workspace && config.definitions.some(d => d.start.kind === 'command'))
    asked.push({ input: Inputs.Commands, path: config.workspace, purpose: 'data' })
  if (!asked.length || !config.arms.some(a => a.kind === 'container')) return []
  // Every engine's data root an arm runs on (arms may use different launchers).
  const roots = await Promise.all(
    imageRuntimes(config.arms, config.containerRuntime).map(r => dockerRootDir(r))
  )
  const extraForbidden = roots.filter((r): r is string => r !== null && r.startsWith('/'))
  return asked.map(a => {
    const d = judgeMount({ input: a.input, path: a.path, kind: 'folder', purpose: a.purpose, extraForbidden })
    return {
      name: `mounts:policy:${a.input}`,
      status: d.allowed ? 'pass' : 'fail',
      message: d.allowed ? `${a.input}: ${d.reason}` : `${a.input}: ${d.resolved ?? d.given} ${d.reason}`,
      fix: d.allowed ? null : refusalMessage(d),
      details: { given: d.given, resolved: d.resolved, allowed: d.allowed }
    } satisfies PreflightResult
  })
}

/**
 * Each image launcher the arms use, with its settings parsed (a malformed DOCKER_HOST or CONTAINER_HOST stops
 * the check with one line): the report says which engine each arm ran on, a remote one by its address.
 */
function launcherRows(config: Config): PreflightResult[] {
  const used = [...new Set(config.arms.map(a => armLauncher(a, config.containerRuntime)))]
  return used
    .filter(l => l.runsImage)
    .map(l => {
      const settings = l.settings(process.env)
      return {
        name: `launcher:${l.name}`,
        status: 'pass',
        message: l.describe(settings),
        fix: null,
        details: { endpoint: settings.endpoint }
      } satisfies PreflightResult
    })
}

interface ImageOnEngine {
  image: ImageRef
  runtime: ContainerRuntime
}

/** Every image an arm runs, with the engine it runs on, once each, in arm order. */
function imagesOnEngines(config: Config): ImageOnEngine[] {
  const out: ImageOnEngine[] = []
  for (const arm of config.arms) {
    const image = config.images.find(i => i.ref === arm.image)
    if (arm.kind !== 'container' || !image) continue
    const runtime = armRuntime(arm, config.containerRuntime)
    if (!out.some(p => p.runtime === runtime && p.image.ref === image.ref)) out.push({ image, runtime })
  }
  return out
}

export async function preflightStage(
  config: Config,
  io: { data: Mount; checkpoint: Mount } | null,
  checkId?: string
): Promise<PreflightOutcome> {
  // Each image is inspected and probed on the engine of the arm that runs it (docker:A,podman:B); one
  // reference on two engines is two images there.
  const pairs = imagesOnEngines(config)
  const base = {
    device: config.device,
    gpuAccess: config.gpuAccess,
    runtime: pairs[0]?.runtime ?? config.containerRuntime,
    strict: config.strict,
    checkId,
    gpuDevices: config.gpus === 'all' ? 'all' : config.gpus.join(','),
    extraDockerArgs: containerGpuArgs(config),
    // An image pull is bounded by the check's time-budget too, where one is set, not only by its own hour.
    ...(config.timeBudgetS === null ? {} : { timeBudgetS: config.timeBudgetS })
  }
  const results: PreflightResult[] = []
  const facts = new Map<string, ImageFacts>()
  let gpus: GpuReport | null = null
  const first = pairs[0] ?? null
  const rest = pairs.slice(1)
  const keep = (pair: ImageOnEngine, image: ImageFacts): void => {
    facts.set(imageKey(pair.runtime, pair.image.ref), image)
    if (!facts.has(pair.image.ref)) facts.set(pair.image.ref, image)
  }
  const out = await runPreflight({
    ...base,
    image: first?.image ?? null,
    data: io ? bindSpecOf(io.data) : null,
    ckpt: io ? bindSpecOf(io.checkpoint) : null
  })
  appendAll(results, out.results)
  if (config.device === 'gpu') gpus = { gpus: out.gpus, driver: out.driver, cuda_version: out.driver_cuda }
  // GPU placement, once: an unknown or mixed selection is an input error before any image is probed further.
  const lanes = config.device === 'gpu' && gpus ? resolveLanes(config.gpus, gpus.gpus) : null
  if (first && out.image) keep(first, out.image)
  // One container start with the workloads' flags: a runtime that cannot run --init fails here, once.
  if (out.image && config.arms.some(a => a.kind === 'container'))
    results.push(await checkContainerInit(base.runtime, out.image.id, checkId))
  for (const pair of rest) {
    // Other images (image bump, another engine): only their own driver gate is new.
    const more = await runPreflight({ ...base, runtime: pair.runtime, image: pair.image })
    if (more.image) keep(pair, more.image)
    const where = pairs.filter(p => p.image.ref === pair.image.ref).length > 1 ? ` on ${pair.runtime}` : ''
    for (const r of more.results.filter(r => IMAGE_GATES.includes(r.name)))
      results.push({ ...r, name: `${r.name} (${pair.image.ref}${where})` })
  }
  appendAll(results, launcherRows(config))
  appendAll(results, await mountPolicyRows(config))
  if (config.definitions.some(d => d.checksLlmMemory)) results.push(llmMemoryRow(config, gpus, lanes))
  if (config.definitions.some(d => d.name === 'matmul')) results.push(matmulMemoryRow(config, gpus, lanes))
  // Before any command runs: the pull request's code must not read the action's process (docs/security.md).
  const isolation = runsNativeCommands(config) ? await nativeIsolation() : null
  if (isolation) results.push(isolation.row)
  let runtimeVersion: string | null = null
  if (pairs.length) {
    runtimeVersion = await engineVersion(base.runtime)
  }
  return {
    results,
    gpus,
    images: facts,
    runtimeVersion,
    warnings: [],
    notMeasured: notMeasured(config),
    isolateNative: isolation?.isolate ?? false,
    lanes
  }
}
