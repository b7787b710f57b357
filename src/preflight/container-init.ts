/**
 * Every container this tool starts runs with `--init` (tools/docker.ts). Podman's init binary is catatonit,
 * which Debian's podman package only recommends: without it every `podman run --init` exits 125 with
 * "container-init binary not found on the host". Docker's is docker-init (tini): a daemon whose init-path
 * is missing fails every `docker run --init` at container creation. Preflight starts one short container
 * with the same flags up front, so a missing init binary is one clear failure instead of a cryptic one per
 * workload run.
 */
import type { ContainerRuntime, PreflightResult } from '../types/index.js'
import { runContainer } from '../tools/docker.js'

export const CONTAINER_INIT_CHECK = 'container-init'
/** Run label of the probe container when no check id is given (a cancel still finds it). */
const INIT_PROBE_LABEL = 'init-probe'
/** Starting one container: generous for a cold podman, far below the probe limit of io-check. */
export const INIT_PROBE_TIMEOUT_MS = 120_000
/** Enough of the probe's last stderr line to say what went wrong. */
const MAX_DETAIL_CHARS = 200
/**
 * The runtimes' words when the init binary does not exist:
 * - podman, when `init_path` (default: catatonit under helper_binaries_dir) is missing;
 * - dockerd 20.10 with an `init-path` that is missing (recorded on this project's CI-like host):
 *   `error mounting "/nonexistent/docker-init" to rootfs at "/sbin/docker-init": stat …: no such file or directory`;
 * - dockerd with no docker-init on its PATH: `exec: "docker-init": executable file not found in $PATH`.
 */
const INIT_MISSING = [
  /container-init binary not found on the host[^\n]*/i,
  /error mounting "[^"\n]*" to rootfs at "\/sbin\/docker-init"[^\n]*/i,
  /exec: "docker-init": executable file not found in \$PATH[^\n]*/i
]

/** The runtime's own line when its init binary is missing, or null when the failure is something else. */
export function missingInitBinary(stderr: string): string | null {
  for (const re of INIT_MISSING) {
    const m = re.exec(stderr)
    if (m) return m[0].trim()
  }
  return null
}

export const MISSING_INIT_FIX: Record<ContainerRuntime, string> = {
  podman: 'install catatonit (apt-get install catatonit) or set init_path in containers.conf',
  docker:
    "install docker-init (Debian's docker.io ships /usr/bin/docker-init, a link to tini-static from the tini package) or set init-path in /etc/docker/daemon.json, then restart dockerd"
}

/** The one clear line for a runtime that cannot start containers with `--init`: what, how to fix, its words. */
export function missingInitMessage(runtime: ContainerRuntime, detail: string): string {
  return `${runtime} cannot start containers with --init: ${MISSING_INIT_FIX[runtime]} (${runtime} said: ${detail})`
}

/**
 * Start the image once with `--init` (no GPU, no mounts) and judge only whether the init binary was there:
 * pass when the container ran, fail when the runtime says its init binary is missing, skip otherwise (a
 * different failure is not this check's to judge; the workload run reports it in full).
 */
export async function checkContainerInit(
  runtime: ContainerRuntime,
  imageId: string,
  label: string = INIT_PROBE_LABEL
): Promise<PreflightResult> {
  const res = await runContainer(
    runtime,
    // python3 is what every workload container starts (the io-check probe asks for it too).
    { image: imageId, label, role: 'probe', entrypoint: 'python3', command: ['-c', ''] },
    'volume',
    { timeoutMs: INIT_PROBE_TIMEOUT_MS }
  )
  if (res.exitCode === 0)
    return {
      name: CONTAINER_INIT_CHECK,
      status: 'pass',
      message: `${runtime} starts containers of the image with --init`,
      fix: null
    }
  const missing = missingInitBinary(res.stderr)
  if (missing !== null)
    return {
      name: CONTAINER_INIT_CHECK,
      status: 'fail',
      message: missingInitMessage(runtime, missing),
      fix: MISSING_INIT_FIX[runtime],
      details: { runtime, exit_code: res.exitCode }
    }
  const last = (res.stderr.trim().split('\n').slice(-1)[0] ?? '').slice(0, MAX_DETAIL_CHARS)
  return {
    name: CONTAINER_INIT_CHECK,
    status: 'skip',
    message: `the --init probe container exited ${res.exitCode}${res.timedOut ? ' (timed out)' : ''}${last ? `: ${last}` : ''}; not an init binary problem, so not judged here`,
    fix: null,
    details: { runtime, exit_code: res.exitCode }
  }
}
