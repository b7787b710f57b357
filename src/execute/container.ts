/**
 * The container arm: `docker run --rm --network none` (or podman) with the workloads folder read-only,
 * the data/checkpoint bind mounts, the image by digest/ID, a run label, and the GPU per access mode.
 */
import { CONTAINER_WORKLOADS_DIR, RUN_LABEL } from '../types/inputs.js'
import type { ContainerRuntime, Workload } from '../types/index.js'
import { execCapture } from '../util/exec.js'
import { HOLD_ENV, WORKLOAD_ENV } from './native.js'
import type { ProcessSpec } from './process.js'

export interface BindMount {
  host: string
  container: string
  readOnly: boolean
}

export interface ContainerRunInput {
  runtime: ContainerRuntime
  /** Image reference to run: `repo@sha256:…` or the local image ID, resolved at preflight. */
  imageRef: string
  name: string
  checkId: string
  workloadsDir: string
  workload: Workload
  args: string[]
  mounts: BindMount[]
  gpuArgs: string[]
  env: Record<string, string>
  timeoutMs: number
  /** `--memory` limit (swap included, so the limit is real); null/absent = none. */
  memory?: string | null
  /** Prestart: `-i` keeps stdin open into the container, where the workload waits for "go" after its imports. */
  hold?: boolean
}

export function containerArgs(input: ContainerRunInput): string[] {
  const args = [
    'run',
    '--rm',
    '--network',
    'none',
    '--name',
    input.name,
    '--label',
    `${RUN_LABEL}=${input.checkId}`,
    '--security-opt',
    'no-new-privileges',
    '-v',
    `${input.workloadsDir}:${CONTAINER_WORKLOADS_DIR}:ro`
  ]
  // --memory-swap equal to --memory: no swap on top, so going over it is an OOM kill, not a slow crawl.
  if (input.memory) args.push('--memory', input.memory, '--memory-swap', input.memory)
  if (input.hold) args.push('-i')
  for (const m of input.mounts) args.push('-v', `${m.host}:${m.container}${m.readOnly ? ':ro' : ''}`)
  const env = { ...WORKLOAD_ENV, ...(input.hold ? HOLD_ENV : {}), ...input.env }
  for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`)
  args.push(...input.gpuArgs)
  args.push(input.imageRef, 'python3', `${CONTAINER_WORKLOADS_DIR}/${input.workload}.py`, ...input.args)
  return args
}

export function containerSpec(input: ContainerRunInput): ProcessSpec {
  return {
    command: input.runtime,
    args: containerArgs(input),
    timeoutMs: input.timeoutMs,
    ...(input.hold ? { hold: true } : {}),
    // Killing the client does not stop the container: kill it by name too.
    onKill: async () => {
      await execCapture(input.runtime, ['kill', input.name])
    }
  }
}

/** Removes every container this check started that is still around (cancel, crash). */
export async function killCheckContainers(runtime: ContainerRuntime, checkId: string): Promise<number> {
  const ps = await execCapture(runtime, ['ps', '-q', '--filter', `label=${RUN_LABEL}=${checkId}`])
  const ids = ps.stdout.split('\n').filter(Boolean)
  if (ids.length > 0) await execCapture(runtime, ['rm', '-f', ...ids])
  return ids.length
}
