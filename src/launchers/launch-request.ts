/**
 * What execute/ asks a launcher to start (LaunchRequest), and what it gets back (LaunchSpec): one workload
 * process, planned on the host's terms (host folders, the GPU lane, the check's trusted launch settings). The
 * launcher decides how the process sees them: the native one passes host paths, an engine mounts them.
 */
import type { CommandWorkload, Lane, Mount } from '../types/index.js'
import type { GpuArgsInput } from '../tools/gpu-access.js'

/** A built-in: its script in the workloads folder under Python, its arguments from io's folders as seen. */
export interface ScriptStart {
  kind: 'script'
  script: string
  /** The script's arguments, given io's data and checkpoint folders as the process sees them ('' = none). */
  args(io: { data: string; checkpoint: string }): string[]
}

/** A user command (config `commands`): its own argv, run in the workspace. */
export interface CommandStart {
  kind: 'command'
  command: CommandWorkload
  /** The workspace on the host: the working folder, and `{workspace}` in the command's words. */
  workspace: string
}

export interface LaunchRequest {
  /** The check's id: a container's clean-up label. */
  checkId: string
  /** A name unique in the check (a container's `--name`): `gpu-overhead-<check>-<order>[-gpu<lane>]`. */
  name: string
  workload: ScriptStart | CommandStart
  /** The run's private folder on the host, its events file there, and the id its start event must echo. */
  run: { dir: string; eventsFile: string; runId: string }
  /**
   * Where the process sends its events: the events file in the run folder (`folder`), or framed on its stdout
   * (`stdout`: the launcher's capabilities say it shares no folder with this host).
   */
  events: 'folder' | 'stdout'
  /**
   * The workloads folder: where the tool was installed, and a copy in the work folder (made on first call)
   * for a launcher whose processes see only that folder (a remote engine).
   */
  workloads: { installed: string; shared(): string }
  /**
   * io's folders for a built-in that uses them: the data folder (read-only) and this run's own checkpoint
   * folder, each with where a container mounts it; null = none.
   */
  io: { data: Mount; checkpoint: Mount } | null
  /**
   * The container arm's CUDA JIT cache, kept for the check (execute/run-folders.ts `jitCache`): mounted
   * read-write at `container`, where CUDA_CACHE_PATH points; null = none (the native arm keeps the runner's).
   */
  jitCache: Mount | null
  /** The arm's image reference, and the ID preflight inspected (what an image launcher runs, never a tag). */
  image: { ref: string | null; id: string | null }
  /** GPU access (device, gpu-access, gpus, driver-mount) and the lane this process is placed on (null: none). */
  gpu: GpuArgsInput
  lane: Lane | null
  /** The host's interpreter for a built-in on the host. */
  python: string
  /** The workflow's container-args (allow-listed, trusted), passed as given; and `--memory` (null = none). */
  containerArgs: readonly string[]
  memory: string | null
  /** A host command in its own user, PID and mount namespaces (tools/unshare.ts), where preflight found them. */
  isolate: boolean
  timeoutMs: number
  /** Prestart: waits for "go" on stdin after its imports. Turns: waits for "turn" before each iteration. */
  hold: boolean
  turns: boolean
}

/** The process to start: argv, environment (an allow-list), bounds, and how to freeze or kill what it starts. */
export interface LaunchSpec {
  command: string
  args: string[]
  env?: NodeJS.ProcessEnv
  cwd?: string
  timeoutMs: number
  /** Keep stdin open for "go" (hold) or "turn" (turns): execute/process.ts. */
  hold?: boolean
  turns?: boolean
  /** Freezes (true) or thaws every process it started; resolves to null or why it failed. */
  freeze?: (frozen: boolean) => Promise<string | null>
  /** Called (best effort) after a timeout or cancel, e.g. `docker kill <name>`. */
  onKill?: () => Promise<void>
}
