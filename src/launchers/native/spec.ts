/**
 * A workload process on this host: a built-in's script under the host's Python, or a user command in the
 * workspace (in its own namespaces where preflight found them: tools/unshare.ts). Both get an allow-list of the
 * runner's environment, never INPUT_*, GITHUB_TOKEN or ACTIONS_* (docs/security.md), and host paths.
 */
import * as path from 'node:path'
import { nativeGpuEnv } from '../../tools/gpu-access.js'
import { isolatedArgv } from '../../tools/unshare.js'
import { scrubbedEnv } from '../../util/child-env.js'
import { must } from '../../util/must.js'
import type { LaunchRequest, LaunchSpec } from '../launch-request.js'
import {
  channelEnv,
  commandArgv,
  commandEnv,
  seenEventsFile,
  stdinProtocol,
  WORKLOAD_ENV
} from '../workload-env.js'

export interface NativeRunInput {
  python: string
  workloadsDir: string
  /** The built-in's script in the workloads folder (its definition's start). */
  script: string
  args: string[]
  env: Record<string, string>
  timeoutMs: number
  /** Prestart: the workload imports, then waits for "go" on stdin before any device work. */
  hold?: boolean
  /** Turns: the workload waits for "turn" on stdin before each measured iteration (execute/turns.ts). */
  turns?: boolean
}

export function nativeSpec(input: NativeRunInput): LaunchSpec {
  const stdin = stdinProtocol(input)
  return {
    command: input.python,
    args: [path.join(input.workloadsDir, input.script), ...input.args],
    env: scrubbedEnv(process.env, { ...WORKLOAD_ENV, ...stdin.env, ...input.env }),
    timeoutMs: input.timeoutMs,
    ...stdin.spec
  }
}

/** One request on this host: every path as the host has it. */
export function hostProcessSpec(r: LaunchRequest): LaunchSpec {
  const gpuEnv = nativeGpuEnv(r.gpu, r.lane)
  const { workload } = r
  const run = { ...r.run, eventsFile: seenEventsFile(r.events, r.run.eventsFile) }
  if (workload.kind === 'command') {
    const [first, ...rest] = commandArgv(workload.command, run.dir, workload.workspace)
    const program = must(first, 'a command workload has a non-empty argv')
    // The pull request's code: where the host allows, it cannot see or read the action's process (its token).
    const { command, args } = r.isolate ? isolatedArgv(program, rest) : { command: program, args: rest }
    const seen = {
      eventsFile: run.eventsFile,
      runDir: run.dir,
      runId: run.runId,
      helper: r.workloads.installed
    }
    return {
      command,
      args,
      cwd: workload.workspace,
      env: scrubbedEnv(process.env, { ...commandEnv(seen), ...gpuEnv }),
      timeoutMs: r.timeoutMs
    }
  }
  const io = r.io ? { data: r.io.data.host, checkpoint: r.io.checkpoint.host } : { data: '', checkpoint: '' }
  return nativeSpec({
    python: r.python,
    workloadsDir: r.workloads.installed,
    script: workload.script,
    args: workload.args(io),
    env: { ...gpuEnv, ...channelEnv(run) },
    timeoutMs: r.timeoutMs,
    hold: r.hold,
    turns: r.turns
  })
}
