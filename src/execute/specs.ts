/** The process to start for one planned run: the workloads folder, and the native or container spec of an arm on a lane. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config, WorkloadDefinition } from '../config/index.js'
import { EnvironmentError } from '../util/errors.js'
import { nativeSpec } from './native.js'
import type { Lane, PlannedRun } from '../plan/index.js'
import type { PreflightOutcome } from '../preflight/index.js'
import { containerGpuArgs, nativeGpuEnv } from '../tools/gpu-access.js'
import { containerSpec } from './container.js'
import type { IoFolders } from './io-data.js'
import { EVENTS_ENV, EVENTS_FILE, RUN_CONTAINER_DIR, RUN_ID_ENV, type RunFolders } from './run-folders.js'
import { CHECKPOINT_CONTAINER_PATH } from '../config/index.js'
import { containerCommandParts, nativeCommandSpec } from './command-spec.js'
import type { RunSpec } from './context.js'
import { launchFacts } from './launch-facts.js'

/** The workloads folder: next to dist/ in a checkout or package, or GPU_OVERHEAD_WORKLOADS. */
export function workloadsDir(): string {
  if (process.env.GPU_OVERHEAD_WORKLOADS) return path.resolve(process.env.GPU_OVERHEAD_WORKLOADS)
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (const candidate of [path.join(here, '..', 'workloads'), path.join(here, '..', '..', 'workloads')]) {
    if (fs.existsSync(path.join(candidate, 'matmul.py'))) return candidate
  }
  throw new EnvironmentError(`cannot find the workloads folder next to ${here}; set GPU_OVERHEAD_WORKLOADS`)
}

/** `definition`: the definition of this run's workload (config.definitions), which says how it starts. */
export function processSpec(
  planned: PlannedRun,
  config: Config,
  checkId: string,
  dir: string,
  io: IoFolders | null,
  pre: PreflightOutcome,
  lane: Lane | null,
  hold: boolean,
  folders: RunFolders,
  definition: WorkloadDefinition,
  turns = false
): RunSpec {
  const timeoutMs = config.runTimeoutS * 1000
  const inContainer = planned.arm.kind !== 'native'
  const writesCheckpoints = definition.usesIoFolders && io !== null
  const { start } = definition
  const script = start.kind === 'script' ? start.script : ''
  const label = `${planned.workload}-${planned.arm.label}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`
  // Its own folders: the event channel, and io's checkpoint writes (docs/security.md, "Shared folders").
  const run = folders.create(label, inContainer, writesCheckpoints ? io.checkpoint.host : null)
  const channel = {
    // A command that speaks the protocol may print it (format auto or protocol); a built-in only writes the channel.
    ...(start.kind === 'command' &&
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
          workloadsDir: dir,
          runId: run.runId,
          env: inContainer ? {} : nativeGpuEnv(gpuInput, lane),
          timeoutMs
        }
      : null
  if (!inContainer) {
    if (cmdInput)
      return {
        ...nativeCommandSpec({ ...cmdInput, eventsFile: run.eventsFile, runDir: run.dir }),
        ...channel
      }
    const ioPaths = io
      ? { data: io.data.host, checkpoint: run.checkpoint ?? '' }
      : { data: '', checkpoint: '' }
    return {
      ...nativeSpec({
        python: config.python,
        workloadsDir: dir,
        script,
        args: definition.args(config, ioPaths),
        env: { ...nativeGpuEnv(gpuInput, lane), [EVENTS_ENV]: run.eventsFile, [RUN_ID_ENV]: run.runId },
        timeoutMs,
        hold,
        turns
      }),
      ...channel
    }
  }
  const image = planned.arm.image ?? ''
  const imageId = pre.images.get(image)?.id
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
    ...(writesCheckpoints && run.checkpoint !== null
      ? [io.data, { host: run.checkpoint, container: CHECKPOINT_CONTAINER_PATH, readOnly: false }]
      : [])
  ]
  const spec = containerSpec({
    runtime: config.containerRuntime,
    imageRef: imageId,
    name: `gpu-overhead-${checkId}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`,
    checkId,
    workloadsDir: dir,
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
  return { ...spec, ...channel }
}
