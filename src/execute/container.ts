/**
 * The container arm: a workload process in the image (by its inspected ID), with the workloads folder
 * read-only, the data/checkpoint bind mounts and the GPU per access mode. tools/docker.ts builds the argv.
 */
import {
  CONTAINER_WORKLOADS_DIR,
  freezeContainer,
  killContainer,
  removeLabelled,
  removeLabelledNow,
  runArgs
} from '../tools/docker.js'
import type { Mount, ContainerRuntime } from '../types/index.js'
import { runtimeClientEnv } from '../util/child-env.js'
import { gitMaskArgs } from './git-mask.js'
import { stdinProtocol, WORKLOAD_ENV } from './native.js'
import type { ProcessSpec } from './process-types.js'

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

export function containerSpec(input: ContainerRunInput): ProcessSpec {
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

/** Removes every container this check started that is still around (cancel, crash); returns those left. */
export function killCheckContainers(runtime: ContainerRuntime, checkId: string): Promise<string[]> {
  return removeLabelled(runtime, checkId)
}

/** Bounded, synchronous removal of this check's containers for a forced exit (second signal). */
export function removeCheckContainersNow(runtime: ContainerRuntime, checkId: string): void {
  removeLabelledNow(runtime, checkId)
}
