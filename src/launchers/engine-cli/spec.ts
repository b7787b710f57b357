/**
 * A workload process in an image through an engine's CLI (docker, podman; tools/docker.ts builds the argv):
 * the image by its inspected ID, the workloads folder (its copy in the work folder) read-only, the run's
 * private folder at RUN_CONTAINER_DIR, io's folders, the GPU per access mode, every git folder under a mount
 * masked, and the workflow's container-args as given.
 */
import * as path from 'node:path'
import { CONTAINER_WORKLOADS_DIR, freezeContainer, killContainer, runArgs } from '../../tools/docker.js'
import { containerGpuArgs } from '../../tools/gpu-access.js'
import type { ContainerRuntime, Mount } from '../../types/index.js'
import { runtimeClientEnv } from '../../util/child-env.js'
import { EnvironmentError } from '../../util/errors.js'
import type { LaunchRequest, LaunchSpec } from '../launch-request.js'
import {
  channelEnv,
  commandArgv,
  commandEnv,
  seenEventsFile,
  stdinProtocol,
  WORKLOAD_ENV
} from '../workload-env.js'
import { gitMaskArgs } from './git-mask.js'

/** Where a container run's private folder is mounted (read-write, that run's container only). */
export const RUN_CONTAINER_DIR = '/gpu-overhead/run'
/** Where a container arm's CUDA JIT cache for the check is mounted (LaunchRequest `jitCache`). */
export const JIT_CACHE_CONTAINER_DIR = '/gpu-overhead/jit-cache'
/** Asks the workload to list the container's other processes over each measured region (workloads/_peers.py). */
export const PEERS_ENV = { GPU_OVERHEAD_PEERS: 'pid-namespace' } as const

export interface ContainerRunInput {
  runtime: ContainerRuntime
  /** Image reference to run: `repo@sha256:…` or the local image ID, resolved at preflight. */
  imageRef: string
  name: string
  checkId: string
  workloadsDir: string
  /** The built-in's script in the workloads folder (its definition's start). */
  script: string
  args: string[]
  mounts: Mount[]
  gpuArgs: string[]
  env: Record<string, string>
  timeoutMs: number
  /** The workflow's launch flags (config.containerArgs: allow-listed, trusted inputs only), as an argv. */
  launchArgs?: readonly string[]
  /** `--memory` limit (swap included, so the limit is real); null/absent = none. */
  memory?: string | null
  /** A user command instead of a built-in workload script, run in this working folder. */
  command?: { argv: readonly string[]; workdir: string }
  /** Prestart: `-i` keeps stdin open into the container, where the workload waits for "go" after its imports. */
  hold?: boolean
  /** Turns: `-i` too; the workload waits for "turn" before each measured iteration. */
  turns?: boolean
}

export function containerArgs(input: ContainerRunInput): string[] {
  const mounts = [
    { host: input.workloadsDir, container: CONTAINER_WORKLOADS_DIR, readOnly: true },
    ...input.mounts
  ]
  return runArgs({
    image: input.imageRef,
    label: input.checkId,
    name: input.name,
    mounts,
    env: { ...WORKLOAD_ENV, ...PEERS_ENV, ...stdinProtocol(input).env, ...input.env },
    interactive: input.hold === true || input.turns === true,
    memory: input.memory ?? null,
    gpuArgs: input.gpuArgs,
    extraArgs: [...gitMaskArgs(mounts), ...(input.launchArgs ?? [])],
    ...(input.command ? { workdir: input.command.workdir } : {}),
    command: input.command
      ? input.command.argv
      : ['python3', `${CONTAINER_WORKLOADS_DIR}/${input.script}`, ...input.args]
  })
}

export function containerSpec(input: ContainerRunInput): LaunchSpec {
  return {
    command: input.runtime,
    args: containerArgs(input),
    // The client (not the container) needs the runtime's own settings, e.g. CONTAINERS_CONF, DOCKER_HOST.
    env: runtimeClientEnv(process.env),
    timeoutMs: input.timeoutMs,
    ...stdinProtocol(input).spec,
    // Turns freeze a container between its turns; prestart freezes a held one until its release (launch.ts).
    ...(input.turns || input.hold
      ? { freeze: (frozen: boolean) => freezeContainer(input.runtime, input.name, frozen) }
      : {}),
    // Killing the client does not stop the container: kill it by name too (thawed first: a frozen
    // container ignores the kill).
    onKill: async () => {
      if (input.turns || input.hold) await freezeContainer(input.runtime, input.name, false)
      await killContainer(input.runtime, input.name)
    }
  }
}

/** One request on an engine: the run's folders mounted, the channel and `{out}` at their container paths. */
export function engineProcessSpec(runtime: ContainerRuntime, r: LaunchRequest): LaunchSpec {
  // Run exactly what was inspected: the ID, never a tag that could move during the check.
  const imageId = r.image.id
  if (!imageId)
    throw new EnvironmentError(
      `image ${r.image.ref || '(none)'} has no inspected image ID; preflight must inspect every image an arm runs (check the container-runtime and the image input)`
    )
  const { workload, run } = r
  const seen = {
    eventsFile: seenEventsFile(r.events, path.posix.join(RUN_CONTAINER_DIR, path.basename(run.eventsFile))),
    runDir: RUN_CONTAINER_DIR,
    runId: run.runId,
    helper: CONTAINER_WORKLOADS_DIR
  }
  const command = workload.kind === 'command' ? workload : null
  const io = r.io
    ? { data: r.io.data.container, checkpoint: r.io.checkpoint.container }
    : { data: '', checkpoint: '' }
  return containerSpec({
    runtime,
    imageRef: imageId,
    name: r.name,
    checkId: r.checkId,
    // The copy in the check's work folder: a remote engine sees that folder only.
    workloadsDir: r.workloads.shared(),
    script: workload.kind === 'script' ? workload.script : '',
    args: workload.kind === 'script' ? workload.args(io) : [],
    mounts: [
      { host: run.dir, container: RUN_CONTAINER_DIR, readOnly: false },
      // A user command sees the workspace read-only at its own path, and runs there.
      ...(command ? [{ host: command.workspace, container: command.workspace, readOnly: true }] : []),
      ...(r.io ? [r.io.data, r.io.checkpoint] : []),
      ...(r.jitCache ? [r.jitCache] : [])
    ],
    gpuArgs: containerGpuArgs(r.gpu, r.lane),
    env: {
      ...(command ? commandEnv(seen) : channelEnv(seen)),
      ...(r.jitCache ? { CUDA_CACHE_PATH: r.jitCache.container } : {})
    },
    ...(command
      ? {
          command: {
            argv: commandArgv(command.command, RUN_CONTAINER_DIR, command.workspace),
            workdir: command.workspace
          }
        }
      : {}),
    launchArgs: r.containerArgs,
    timeoutMs: r.timeoutMs,
    memory: r.memory,
    hold: r.hold,
    turns: r.turns
  })
}
