/** The process to start for one planned run: a request to the arm's launcher, plus the run's channel. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHECKPOINT_CONTAINER_PATH, type Config, type WorkloadDefinition } from '../config/index.js'
import {
  armImage,
  armLauncher,
  JIT_CACHE_CONTAINER_DIR,
  type Launcher,
  type LaunchRequest
} from '../launchers/index.js'
import type { PlannedRun } from '../plan/index.js'
import type { Lane } from '../types/index.js'
import type { PreflightOutcome } from '../preflight/index.js'
import { EnvironmentError } from '../util/errors.js'
import type { RunSpec } from './context.js'
import type { IoFolders } from './io-data.js'
import { launchFacts } from './launch-facts.js'
import type { ProcessSpec } from './process-types.js'
import type { RunFolder, RunFolders } from './run-folders.js'

/** The workloads folder: next to dist/ in a checkout or package, or GPU_OVERHEAD_WORKLOADS. */
export function workloadsDir(): string {
  if (process.env.GPU_OVERHEAD_WORKLOADS) return path.resolve(process.env.GPU_OVERHEAD_WORKLOADS)
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (const candidate of [path.join(here, '..', 'workloads'), path.join(here, '..', '..', 'workloads')]) {
    if (fs.existsSync(path.join(candidate, 'matmul.py'))) return candidate
  }
  throw new EnvironmentError(`cannot find the workloads folder next to ${here}; set GPU_OVERHEAD_WORKLOADS`)
}

/** What processSpec needs to start one planned run. */
export interface ProcessSpecInput {
  planned: PlannedRun
  config: Config
  checkId: string
  /** The workloads folder (workloadsDir). */
  workloadsDir: string
  io: IoFolders | null
  pre: PreflightOutcome
  lane: Lane | null
  hold: boolean
  folders: RunFolders
  /** The definition of this run's workload (config.definitions), which says how it starts. */
  definition: WorkloadDefinition
  turns?: boolean
}

export function processSpec(input: ProcessSpecInput): RunSpec {
  const { planned, config, io, lane, folders, definition, checkId } = input
  const launcher = armLauncher(planned.arm, config.containerRuntime)
  const writesCheckpoints = definition.usesIoFolders && io !== null
  const label = `${planned.workload}-${planned.arm.label}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`
  // Its own folders: the event channel, and io's checkpoint writes (docs/security.md, "Shared folders"). An
  // image's USER may be another user: its folders are made writable for it.
  const run = folders.create(label, launcher.runsImage, writesCheckpoints ? io.checkpoint.host : null)
  const { start } = definition
  const image = armImage(input.pre.images, planned.arm, config.containerRuntime)
  const request: LaunchRequest = {
    checkId,
    name: `gpu-overhead-${checkId}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`,
    // A user command starts its own argv (in the workspace); a built-in, its script under Python.
    workload:
      start.kind === 'command'
        ? { kind: 'command', command: start.command, workspace: config.workspace ?? process.cwd() }
        : { kind: 'script', script: start.script, args: paths => definition.args(config, paths) },
    run: { dir: run.dir, eventsFile: run.eventsFile, runId: run.runId },
    events: eventsOnStdout(launcher) ? 'stdout' : 'folder',
    // The copy in the check's work folder is made only when a launcher asks (a remote engine sees that only).
    workloads: { installed: input.workloadsDir, shared: () => folders.workloads(input.workloadsDir) },
    io:
      writesCheckpoints && run.checkpoint !== null
        ? {
            data: io.data,
            checkpoint: { host: run.checkpoint, container: CHECKPOINT_CONTAINER_PATH, readOnly: false }
          }
        : null,
    jitCache: keepsJitCache(launcher, config, image?.env ?? {})
      ? {
          // One per arm and workload: each workload's first container process starts empty, as a fresh one.
          host: folders.jitCache(`${planned.arm.label}\u0000${planned.workload}`),
          container: JIT_CACHE_CONTAINER_DIR,
          readOnly: false
        }
      : null,
    image: { ref: planned.arm.image, id: image?.id ?? null },
    gpu: {
      device: config.device,
      gpuAccess: config.gpuAccess,
      gpus: config.gpus,
      driverMount: config.driverMount
    },
    lane,
    python: config.python,
    containerArgs: config.containerArgs,
    memory: config.containerMemory,
    isolate: input.pre.isolateNative === true,
    timeoutMs: config.runTimeoutS * 1000,
    hold: input.hold,
    turns: input.turns ?? false
  }
  let spec: ProcessSpec
  try {
    spec = launcher.processSpec(request)
  } catch (e) {
    run.remove()
    throw e
  }
  return { ...spec, ...runChannel(input, run, eventsOnStdout(launcher)) }
}

/**
 * Whether a container arm gets a CUDA JIT cache kept for the check (run-folders.ts `jitCache`): on a GPU, for
 * a launcher that mounts this host's folders, unless the image or the workflow's container-args already say
 * where the cache lives or turn it off (their choice stands).
 */
function keepsJitCache(
  launcher: Launcher,
  config: Config,
  imageEnv: Readonly<Record<string, string>>
): boolean {
  if (config.device !== 'gpu' || !launcher.runsImage || !launcher.capabilities.sharedFolder) return false
  const own = (name: string): boolean => name in imageEnv || config.containerArgs.some(a => a.includes(name))
  return !own('CUDA_CACHE_PATH') && !own('CUDA_CACHE_DISABLE')
}

/** A launcher that shares no folder with this host carries the events framed on the process's stdout. */
function eventsOnStdout(launcher: Launcher): boolean {
  return !launcher.capabilities.sharedFolder
}

/** The run's event channel, private folder and result reading: the same for every launcher. */
function runChannel(input: ProcessSpecInput, run: RunFolder, framed: boolean): Partial<RunSpec> {
  const { planned, config, pre, definition } = input
  return {
    // A command that speaks the protocol may print it (format auto or protocol); a built-in only writes the channel.
    ...(definition.start.kind === 'command' &&
    (definition.resultFormat === 'auto' || definition.resultFormat === 'protocol')
      ? { stdoutEvents: true }
      : {}),
    ...(framed ? { framedEvents: true } : { eventsPath: run.eventsFile }),
    runDir: run.dir,
    runId: run.runId,
    cleanup: () => run.remove(),
    resultFormat: definition.resultFormat,
    // Read when the process reports its stack (a config without container facts never needs them).
    launchFacts: () => launchFacts(planned.arm, config, pre)
  }
}
