/** The process to start for one planned run: the workloads folder, and the native or container spec of an arm on a lane. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config, WorkloadDefinition } from '../config/index.js'
import { EnvironmentError } from '../util/errors.js'
import { nativeSpec } from './native.js'
import type { Lane, PlannedRun } from '../plan/index.js'
import type { PreflightOutcome } from '../preflight/index.js'
import { containerGpuArgs, nativeGpuEnv, type GpuArgsInput } from '../tools/gpu-access.js'
import { containerSpec } from './container.js'
import type { IoFolders } from './io-data.js'
import {
  EVENTS_ENV,
  EVENTS_FILE,
  RUN_CONTAINER_DIR,
  RUN_ID_ENV,
  type RunFolder,
  type RunFolders
} from './run-folders.js'
import { CHECKPOINT_CONTAINER_PATH } from '../config/index.js'
import { containerCommandParts, nativeCommandSpec, type CommandRunInput } from './command-spec.js'
import type { RunSpec } from './context.js'
import type { ProcessSpec } from './process-types.js'
import { launchFacts } from './launch-facts.js'
import { armImage, armRuntime } from '../launchers/index.js'

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

/** A user command's start, before the channel and private folder are placed (native or container paths). */
type CommandStart = Omit<CommandRunInput, 'eventsFile' | 'runDir'>

/** What the native and the container spec of one run share: its folders, its GPU selection, its start. */
interface RunStart {
  input: ProcessSpecInput
  run: RunFolder
  gpuInput: GpuArgsInput
  script: string
  timeoutMs: number
  /** A user command's start; null for a built-in (its script under Python). */
  cmdInput: CommandStart | null
}

export function processSpec(input: ProcessSpecInput): RunSpec {
  const { planned, config, io, lane, folders, definition } = input
  const timeoutMs = config.runTimeoutS * 1000
  const inContainer = planned.arm.kind !== 'native'
  const writesCheckpoints = definition.usesIoFolders && io !== null
  const { start } = definition
  const script = start.kind === 'script' ? start.script : ''
  const label = `${planned.workload}-${planned.arm.label}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`
  // Its own folders: the event channel, and io's checkpoint writes (docs/security.md, "Shared folders").
  const run = folders.create(label, inContainer, writesCheckpoints ? io.checkpoint.host : null)
  const channel = runChannel(input, run)
  const gpuInput = {
    device: config.device,
    gpuAccess: config.gpuAccess,
    gpus: config.gpus,
    driverMount: config.driverMount
  }
  // A user command starts its own argv (in the workspace); a built-in, its script under Python.
  const cmdInput =
    start.kind === 'command'
      ? {
          command: start.command,
          workspace: config.workspace ?? process.cwd(),
          workloadsDir: input.workloadsDir,
          runId: run.runId,
          env: inContainer ? {} : nativeGpuEnv(gpuInput, lane),
          timeoutMs
        }
      : null
  const runStart = { input, run, gpuInput, script, timeoutMs, cmdInput }
  return { ...(inContainer ? containerRunSpec(runStart) : nativeRunSpec(runStart)), ...channel }
}

/** The run's event channel, private folder and result reading: the same for a native and a container run. */
function runChannel(input: ProcessSpecInput, run: RunFolder): Partial<RunSpec> {
  const { planned, config, pre, definition } = input
  return {
    // A command that speaks the protocol may print it (format auto or protocol); a built-in only writes the channel.
    ...(definition.start.kind === 'command' &&
    (definition.resultFormat === 'auto' || definition.resultFormat === 'protocol')
      ? { stdoutEvents: true }
      : {}),
    eventsPath: run.eventsFile,
    runDir: run.dir,
    runId: run.runId,
    cleanup: () => run.remove(),
    resultFormat: definition.resultFormat,
    // Read when the process reports its stack (a config without container facts never needs them).
    launchFacts: () => launchFacts(planned.arm, config, pre)
  }
}

function nativeRunSpec({ input, run, gpuInput, script, timeoutMs, cmdInput }: RunStart): ProcessSpec {
  const { config, io, lane, definition, hold, turns = false } = input
  if (cmdInput)
    return nativeCommandSpec({
      ...cmdInput,
      eventsFile: run.eventsFile,
      runDir: run.dir,
      isolate: input.pre.isolateNative === true
    })
  const ioPaths = io ? { data: io.data.host, checkpoint: run.checkpoint ?? '' } : { data: '', checkpoint: '' }
  return nativeSpec({
    python: config.python,
    workloadsDir: input.workloadsDir,
    script,
    args: definition.args(config, ioPaths),
    env: { ...nativeGpuEnv(gpuInput, lane), [EVENTS_ENV]: run.eventsFile, [RUN_ID_ENV]: run.runId },
    timeoutMs,
    hold,
    turns
  })
}

function containerRunSpec({ input, run, gpuInput, script, timeoutMs, cmdInput }: RunStart): ProcessSpec {
  const { planned, config, checkId, io, pre, lane, definition, hold, turns = false } = input
  const image = planned.arm.image ?? ''
  const imageId = armImage(pre.images, planned.arm, config.containerRuntime)?.id
  // Run exactly what was inspected: the ID, never a tag that could move during the check.
  if (!imageId) {
    run.remove()
    throw new EnvironmentError(
      `image ${image || '(none)'} has no inspected image ID; preflight must inspect every image an arm runs (check the container-runtime and the image input)`
    )
  }
  const ioPaths = io
    ? { data: io.data.container, checkpoint: io.checkpoint.container }
    : { data: '', checkpoint: '' }
  const parts = cmdInput
    ? containerCommandParts({
        ...cmdInput,
        eventsFile: `${RUN_CONTAINER_DIR}/${EVENTS_FILE}`,
        runDir: RUN_CONTAINER_DIR
      })
    : null
  const mounts = [
    { host: run.dir, container: RUN_CONTAINER_DIR, readOnly: false },
    ...(parts?.mounts ?? []),
    ...(definition.usesIoFolders && io !== null && run.checkpoint !== null
      ? [io.data, { host: run.checkpoint, container: CHECKPOINT_CONTAINER_PATH, readOnly: false }]
      : [])
  ]
  return containerSpec({
    runtime: armRuntime(planned.arm, config.containerRuntime),
    imageRef: imageId,
    name: `gpu-overhead-${checkId}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`,
    checkId,
    // The copy in the check's work folder: a remote engine sees that folder only.
    workloadsDir: input.folders.workloads(input.workloadsDir),
    script,
    args: definition.args(config, ioPaths),
    mounts,
    gpuArgs: containerGpuArgs(gpuInput, lane),
    env: parts?.env ?? { [EVENTS_ENV]: `${RUN_CONTAINER_DIR}/${EVENTS_FILE}`, [RUN_ID_ENV]: run.runId },
    ...(parts ? { command: { argv: parts.argv, workdir: parts.workdir } } : {}),
    launchArgs: config.containerArgs,
    timeoutMs,
    memory: config.containerMemory,
    hold,
    turns
  })
}
