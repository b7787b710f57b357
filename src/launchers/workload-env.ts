/**
 * The workload protocol's side of a process's start (workloads/_protocol.py, docs/protocol.md): the variables
 * that tell it where its channel, private folder and helper are, whether it holds or takes turns, and a user
 * command's words with `{out}` and `{workspace}` filled in. Every launcher sets them the same way; only the
 * paths differ (as the process sees them).
 */
import type { CommandWorkload } from '../types/index.js'

/** Environment every workload process gets: unbuffered JSON lines, nothing written next to the scripts. */
export const WORKLOAD_ENV = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } as const
/** What asks a workload to hold after its imports (workloads/_protocol.py, Protocol.hold). */
export const HOLD_ENV = { GPU_OVERHEAD_HOLD: 'stdin' } as const
/** What asks a workload to measure in turns (workloads/_protocol.py, Protocol.take_turn). */
export const TURNS_ENV = { GPU_OVERHEAD_TURNS: 'stdin' } as const
/** The protocol's channel variables (workloads/_protocol.py). */
export const EVENTS_ENV = 'GPU_OVERHEAD_EVENTS'
export const RUN_ID_ENV = 'GPU_OVERHEAD_RUN_ID'
/**
 * GPU_OVERHEAD_EVENTS's value for a launcher whose process shares no folder with this host
 * (`sharedFolder: false`): the workload prints its events on its own stdout, each line framed by EVENT_FRAME
 * (the protocol's version in it), and every other line there stays the run's log (docs/protocol.md).
 */
export const EVENTS_ON_STDOUT = 'stdout'
export const EVENT_FRAME = 'gpu-overhead:2 '
/** A user command's private folder (where it may write result files) and the Python helper's folder. */
export const OUT_ENV = 'GPU_OVERHEAD_OUT'
export const HELPER_ENV = 'GPU_OVERHEAD_HELPER'

/** `{out}` in a command's words: the run's own output folder as the process sees it (a tool's result file). */
export const OUT_PLACEHOLDER = '{out}'
/**
 * `{workspace}` in a command's words: the workspace, which is the same path in both arms (mounted read-only at
 * its own path in the container). A path written with it does not depend on the working folder, which an
 * image's entrypoint may change (`cd /workspace`) before it runs the command.
 */
export const WORKSPACE_PLACEHOLDER = '{workspace}'

/** The protocol variables of a held or turn-taking process, and the spec fields that keep its stdin open. */
export function stdinProtocol(input: { hold?: boolean; turns?: boolean }): {
  env: Record<string, string>
  spec: { hold?: true; turns?: true }
} {
  return {
    env: { ...(input.hold ? HOLD_ENV : {}), ...(input.turns ? TURNS_ENV : {}) },
    spec: { ...(input.hold ? { hold: true } : {}), ...(input.turns ? { turns: true } : {}) }
  }
}

/** Where a process sees its channel, its private folder and the helper's folder. */
export interface SeenPaths {
  eventsFile: string
  runDir: string
  runId: string
  helper: string
}

/** The events file as the process sees it, or EVENTS_ON_STDOUT when its events are framed on stdout. */
export function seenEventsFile(events: 'folder' | 'stdout', file: string): string {
  return events === 'stdout' ? EVENTS_ON_STDOUT : file
}

/** A built-in's channel variables. */
export function channelEnv(seen: Pick<SeenPaths, 'eventsFile' | 'runId'>): Record<string, string> {
  return { [EVENTS_ENV]: seen.eventsFile, [RUN_ID_ENV]: seen.runId }
}

/** A user command's: the channel, its private folder and the helper (`import gpu_overhead`). */
export function commandEnv(seen: SeenPaths): Record<string, string> {
  return { ...WORKLOAD_ENV, ...channelEnv(seen), [OUT_ENV]: seen.runDir, [HELPER_ENV]: seen.helper }
}

/** The command's words with `{out}` (its private folder as seen) and `{workspace}` filled in. */
export function commandArgv(command: CommandWorkload, runDir: string, workspace: string): string[] {
  return command.argv.map(w =>
    w.split(OUT_PLACEHOLDER).join(runDir).split(WORKSPACE_PLACEHOLDER).join(workspace)
  )
}
