/**
 * The one module that builds docker/podman command lines (argument arrays, never a shell string). Every
 * container it starts — workload or probe — gets `--rm --network none --security-opt no-new-privileges`
 * and the check's run label (so a cancel can find and remove it), and runs the image the caller inspected.
 * The small engine calls (version, image inspect, pull, kill, cleanup) are here too.
 */
import { spawnSync } from 'node:child_process'
import type { Mount, ContainerRuntime } from '../types/index.js'
import { appendAll } from '../util/arrays.js'
import { EXIT_TIMED_OUT, execCapture, type ExecOptions, type ExecResult } from '../util/exec.js'

/** Bound of each clean-up call (kill, ps, rm): a hung engine must not hold the runner after a timeout. */
export const CLEANUP_TIMEOUT_MS = 15_000
/** Tries of a pause or unpause that runc could not finish freezing (100 ms, then 300 ms apart). */
const FREEZE_ATTEMPTS = 3
/**
 * An image pull (an NGC image is ~10 GB) may take minutes; bounded all the same: by this, and by what the caller
 * has left of its budget (a check: run-timeout, preflight/image.ts).
 */
export const PULL_TIMEOUT_MS = 3_600_000
/** A probe container (io check: starts the image, writes and reads a few hundred MiB). */
export const PROBE_TIMEOUT_MS = 900_000

/** Label key on every container this tool starts; its value is the check id (or the probe's own id). */
export const RUN_LABEL = 'gpu-overhead-action.check'
/** Second label: what the container is for, so a probe is never taken for a workload (and the reverse). */
export const ROLE_LABEL = 'gpu-overhead-action.role'
export type ContainerRole = 'workload' | 'probe'
/**
 * Processes and threads a container may hold (`--pids-limit`; threads count). PyTorch starts a few hundred
 * threads on a large host, DataLoader workers each as many: far below this. The workflow's own `--pids-limit`
 * in container-args comes later on the command line and wins.
 */
export const CONTAINER_PIDS_LIMIT = 8192
/** Where the workloads folder is mounted read-only in the container. */
export const CONTAINER_WORKLOADS_DIR = '/gpu-overhead/workloads'

export interface ContainerRun {
  /** Image to run: the inspected image ID (`sha256:…`) or `repo@sha256:…`, never a tag that can move. */
  image: string
  /** Value of the run label: the check id, so `removeLabelled` finds everything one check started. */
  label: string
  /** Default `workload`; preflight's short containers (io probe, --init probe) say `probe`. */
  role?: ContainerRole
  name?: string
  mounts?: readonly Mount[]
  env?: Readonly<Record<string, string>>
  /** `--memory` limit, swap included (so going over it is an OOM kill, not a slow crawl); null = none. */
  memory?: string | null
  /** `-i`: keep stdin open (the workload waits on it to start measuring; execute/process.ts). */
  interactive?: boolean
  /** GPU access flags (tools/gpu-access.ts). */
  gpuArgs?: readonly string[]
  /** Caller-given runtime arguments the workloads get too (e.g. `--tmpfs /scratch`), already an argv. */
  extraArgs?: readonly string[]
  entrypoint?: string
  /** `-w`: the working folder inside the container (a user command runs in the workspace's own path). */
  workdir?: string
  /** Command and arguments inside the container. */
  command: readonly string[]
}

/** `-v HOST:CONTAINER[:ro]` for a bind mount (paths are validated by config; no `:` or `,` inside). */
export function volumeArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap(m => ['-v', `${m.host}:${m.container}${m.readOnly ? ':ro' : ''}`])
}

/** `--mount type=bind,…`: fails when the host path is missing instead of creating it (probes use this). */
export function bindMountArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap(m => [
    '--mount',
    `type=bind,source=${m.host},target=${m.container}${m.readOnly ? ',readonly=true' : ''}`
  ])
}

/** The `run` argv for one container. */
export function runArgs(run: ContainerRun, mountStyle: 'volume' | 'mount' = 'volume'): string[] {
  const args = [
    'run',
    '--rm',
    // A real PID 1 (tini): reaps and forwards signals, so a setsid'd child dies with the container.
    '--init',
    '--network',
    'none',
    ...(run.name ? ['--name', run.name] : []),
    '--label',
    `${RUN_LABEL}=${run.label}`,
    '--label',
    `${ROLE_LABEL}=${run.role ?? 'workload'}`,
    '--security-opt',
    'no-new-privileges',
    // No capabilities (the workloads read, write their 0777 run folders and compute; the NVIDIA toolkit sets the
    // GPU up from outside) and a bound on processes and threads (a fork bomb stops there, not at the host's).
    '--cap-drop',
    'ALL',
    '--pids-limit',
    String(CONTAINER_PIDS_LIMIT)
  ]
  if (run.memory) args.push('--memory', run.memory, '--memory-swap', run.memory)
  if (run.interactive) args.push('-i')
  const mounts = run.mounts ?? []
  appendAll(args, mountStyle === 'mount' ? bindMountArgs(mounts) : volumeArgs(mounts))
  for (const [k, v] of Object.entries(run.env ?? {})) args.push('-e', `${k}=${v}`)
  if (run.workdir) args.push('-w', run.workdir)
  appendAll(appendAll(args, run.gpuArgs ?? []), run.extraArgs ?? [])
  if (run.entrypoint) args.push('--entrypoint', run.entrypoint)
  args.push(run.image)
  return appendAll(args, run.command)
}

/** Runs a short-lived container to completion and captures its output. */
export function runContainer(
  runtime: ContainerRuntime,
  run: ContainerRun,
  mountStyle: 'volume' | 'mount' = 'volume',
  options: ExecOptions = {}
): Promise<ExecResult> {
  return execCapture(runtime, runArgs(run, mountStyle), { timeoutMs: PROBE_TIMEOUT_MS, ...options })
}

/**
 * A question to the engine (inspect, version, info) that a healthy daemon answers in well under a second.
 * Bounded so a hung daemon fails the check within 2 minutes, whatever asks it first.
 */
export const ENGINE_CALL_TIMEOUT_MS = 45_000

/** Runtimes whose engine let a call run past its limit in this process: every later call fails at once. */
const hungEngines = new Set<ContainerRuntime>()

/** One line for a hung engine (the check's error, the report's preflight row). */
export function hungEngineLine(runtime: ContainerRuntime): string {
  return `${runtime}'s engine did not answer within ${ENGINE_CALL_TIMEOUT_MS / 1000} s; it looks hung: restart it (systemctl restart ${runtime === 'podman' ? 'podman' : 'docker'}) or check DOCKER_HOST`
}

/**
 * An engine call under ENGINE_CALL_TIMEOUT_MS (or `timeoutMs`); after one timed out, the rest are not even started.
 * `answers: false` for a call whose time is not the engine's answer time (a pull downloads): its timeout is its own
 * (the tree killed all the same), and does not count the engine as hung.
 */
async function engineCall(
  runtime: ContainerRuntime,
  args: string[],
  timeoutMs = ENGINE_CALL_TIMEOUT_MS,
  answers = true
): Promise<ExecResult> {
  if (hungEngines.has(runtime))
    return { exitCode: EXIT_TIMED_OUT, stdout: '', stderr: hungEngineLine(runtime), timedOut: true }
  const res = await execCapture(runtime, args, { timeoutMs })
  if (res.timedOut && answers) {
    hungEngines.add(runtime)
    return { ...res, stderr: hungEngineLine(runtime) }
  }
  return res
}

/** For tests: forget which engines hung. */
export function forgetHungEngines(): void {
  hungEngines.clear()
}

export function inspectImageCall(runtime: ContainerRuntime, ref: string): Promise<ExecResult> {
  return engineCall(runtime, ['image', 'inspect', ref])
}

/**
 * A pull may take long (a large image), but never longer than `timeoutMs` (at most PULL_TIMEOUT_MS), after which its
 * process tree is killed (`timedOut`); it never starts against an engine that already hung.
 */
export function pullImage(
  runtime: ContainerRuntime,
  ref: string,
  timeoutMs: number = PULL_TIMEOUT_MS
): Promise<ExecResult> {
  return engineCall(runtime, ['pull', '--quiet', ref], Math.min(timeoutMs, PULL_TIMEOUT_MS), false)
}

/** The engine's server version, or null when it cannot be read. */
export async function engineVersion(runtime: ContainerRuntime): Promise<string | null> {
  const v = await engineCall(runtime, ['version', '--format', '{{.Server.Version}}'])
  return v.exitCode === 0 ? v.stdout.trim() : null
}

export async function killContainer(runtime: ContainerRuntime, name: string): Promise<void> {
  await execCapture(runtime, ['kill', name], { timeoutMs: CLEANUP_TIMEOUT_MS })
}

/** Bound of a pause or unpause between two turns (~40 ms each on a Docker engine). */
export const FREEZE_TIMEOUT_MS = 10_000

/**
 * Freezes (`pause`: the cgroup freezer) or thaws every process of a container: while the other arm's process
 * measures its turn, nothing the image started beside the workload may run. Resolves to null, or why it failed.
 */
export async function freezeContainer(
  runtime: ContainerRuntime,
  name: string,
  frozen: boolean
): Promise<string | null> {
  let why = ''
  for (let attempt = 0; attempt < FREEZE_ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise(r => setTimeout(r, 100 * 3 ** (attempt - 1)))
    const res = await execCapture(runtime, [frozen ? 'pause' : 'unpause', name], {
      timeoutMs: FREEZE_TIMEOUT_MS
    })
    if (res.exitCode === 0) return null
    // Already in the state asked for: the held container's thaw (prestart) and its turns both set it, and the
    // second thaw of one container read "is not paused" and failed the arm (seen on a loaded 2-core runner).
    if (new RegExp(frozen ? 'is already paused' : 'is not paused', 'i').test(res.stderr)) return null
    why =
      res.exitCode === EXIT_TIMED_OUT
        ? 'timed out'
        : res.stderr.trim().split('\n').at(-1) || `exit ${res.exitCode}`
    // runc gives up freezing a cgroup whose tasks do not settle in time ("unable to freeze"): a busy host's
    // transient, seen on a loaded 2-core runner mid-check. Anything else (no freezer, gone) is final.
    if (!/unable to freeze/i.test(why)) break
  }
  return `${runtime} ${frozen ? 'pause' : 'unpause'} failed: ${why.slice(0, 300)}`
}

/**
 * Removes every container carrying this run label value that is still around (cancel, crash), created-but-
 * never-started ones included (`-a`): a client killed while the engine creates its container leaves one.
 */
export async function removeLabelled(runtime: ContainerRuntime, label: string): Promise<string[]> {
  const bound = { timeoutMs: CLEANUP_TIMEOUT_MS }
  const list = async (): Promise<string[]> =>
    (await execCapture(runtime, ['ps', '-aq', '--filter', `label=${RUN_LABEL}=${label}`], bound)).stdout
      .split('\n')
      .filter(Boolean)
  // Listed again after each removal: a container whose client was killed while the engine created it appears
  // only after the first list, and a slow engine (a vfs store) may not finish one removal within its bound.
  let ids = await list()
  for (let pass = 0; pass < CLEANUP_PASSES && ids.length > 0; pass++) {
    await execCapture(runtime, ['rm', '-f', ...ids], bound)
    ids = await list()
  }
  return ids
}

/** Removal rounds (list, remove) before the clean-up names what is left. */
const CLEANUP_PASSES = 3

/** The same clean-up, synchronous and bounded, for a forced exit (second signal: nothing may be awaited). */
export function removeLabelledNow(runtime: ContainerRuntime, label: string): void {
  const opts = { encoding: 'utf8' as const, timeout: CLEANUP_TIMEOUT_MS, killSignal: 'SIGKILL' as const }
  const ps = spawnSync(runtime, ['ps', '-aq', '--filter', `label=${RUN_LABEL}=${label}`], opts)
  const ids = (ps.stdout ?? '').split('\n').filter(Boolean)
  if (ids.length > 0) spawnSync(runtime, ['rm', '-f', ...ids], opts)
}

/** The engine's data root (`docker info`), which the mount policy refuses; null when it cannot be read. */
export async function dockerRootDir(runtime: ContainerRuntime): Promise<string | null> {
  const r = await engineCall(runtime, ['info', '--format', '{{.DockerRootDir}}'])
  const dir = r.exitCode === 0 ? r.stdout.trim() : ''
  return dir.startsWith('/') ? dir : null
}
