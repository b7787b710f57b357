/**
 * A user command (config `commands`) as one process of an arm: natively in the workspace (a scrubbed
 * environment, like the built-ins), in the container with the workspace mounted read-only at the same path and
 * its working folder there, through the image's ENTRYPOINT. Both get the run's channel (GPU_OVERHEAD_EVENTS),
 * its private folder (GPU_OVERHEAD_OUT: where a command may write result files) and the folder of the Python
 * helper (GPU_OVERHEAD_HELPER: `import gpu_overhead`, docs/protocol.md).
 */
import type { CommandWorkload, Mount } from '../types/index.js'
import { CONTAINER_WORKLOADS_DIR } from '../tools/docker.js'
import { scrubbedEnv } from '../util/child-env.js'
import { isolatedArgv } from '../tools/unshare.js'
import { must } from '../util/must.js'
import { WORKLOAD_ENV } from './native.js'
import type { ProcessSpec } from './process-types.js'

export const OUT_ENV = 'GPU_OVERHEAD_OUT'
export const HELPER_ENV = 'GPU_OVERHEAD_HELPER'

export interface CommandRunInput {
  command: CommandWorkload
  workspace: string
  workloadsDir: string
  /** The run's channel and private folder, as the process sees them. */
  eventsFile: string
  runDir: string
  runId: string
  /** GPU selection for the process (CUDA_VISIBLE_DEVICES…). */
  env: Record<string, string>
  timeoutMs: number
  /** Native only: in its own user, PID and mount namespaces (tools/unshare.ts), where preflight found them. */
  isolate?: boolean
}

function channelEnv(i: CommandRunInput, helper: string): Record<string, string> {
  return {
    ...WORKLOAD_ENV,
    GPU_OVERHEAD_EVENTS: i.eventsFile,
    GPU_OVERHEAD_RUN_ID: i.runId,
    [OUT_ENV]: i.runDir,
    [HELPER_ENV]: helper
  }
}

/** `{out}` in a command's words: the run's own output folder as the process sees it (a tool's result file). */
export const OUT_PLACEHOLDER = '{out}'

/**
 * `{workspace}` in a command's words: the workspace, which is the same path in both arms (mounted read-only at
 * its own path in the container). A path written with it does not depend on the working folder, which an
 * image's entrypoint may change (`cd /workspace`) before it runs the command.
 */
export const WORKSPACE_PLACEHOLDER = '{workspace}'

function argvFor(i: CommandRunInput): string[] {
  return i.command.argv.map(w =>
    w.split(OUT_PLACEHOLDER).join(i.runDir).split(WORKSPACE_PLACEHOLDER).join(i.workspace)
  )
}

export function nativeCommandSpec(i: CommandRunInput): ProcessSpec {
  const [first, ...rest] = argvFor(i)
  const program = must(first, 'a command workload has a non-empty argv')
  // The pull request's code: where the host allows, it cannot see or read the action's process (its token).
  const { command, args } = i.isolate ? isolatedArgv(program, rest) : { command: program, args: rest }
  return {
    command,
    args,
    cwd: i.workspace,
    env: scrubbedEnv(process.env, { ...channelEnv(i, i.workloadsDir), ...i.env }),
    timeoutMs: i.timeoutMs
  }
}

/** What the container needs beyond a built-in's: the workspace (read-only, same path), its working folder. */
export function containerCommandParts(i: CommandRunInput): {
  mounts: Mount[]
  env: Record<string, string>
  workdir: string
  argv: string[]
} {
  return {
    mounts: [{ host: i.workspace, container: i.workspace, readOnly: true }],
    env: { ...channelEnv(i, CONTAINER_WORKLOADS_DIR), ...i.env },
    workdir: i.workspace,
    argv: argvFor(i)
  }
}
