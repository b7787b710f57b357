/**
 * Every container this tool starts runs with `--init` (tools/docker.ts). Podman's init binary is catatonit,
 * which Debian's podman package only recommends: without it every `podman run --init` exits 125 with
 * "container-init binary not found on the host". Docker's is docker-init (tini): a daemon whose init-path
 * is missing fails every `docker run --init` at container creation. Preflight starts one short container
 * with the same flags up front, so a missing init binary is one clear failure instead of a cryptic one per
 * workload run. The same start meets what else refuses every container on this host, whatever the image: podman's
 * crun on hybrid cgroups fails it too, with its fix, before any workload runs.
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

/**
 * crun (podman's default OCI runtime on Debian) on a host with hybrid cgroups — the v1 controllers mounted, and a
 * cgroup v2 hierarchy that holds a controller too — refuses every container (podman 4.3.1, crun 1.8.1; recorded in
 * test/__fixtures__/podman/): `Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all
 * controllers from cgroupv2`. runc starts containers on the same host (Docker's default runtime does).
 */
const CGROUPS_HYBRID = [/crun: cgroups in hybrid mode not supported[^\n]*/i]

export const MISSING_INIT_FIX: Record<ContainerRuntime, string> = {
  podman: 'install catatonit (apt-get install catatonit) or set init_path in containers.conf',
  docker:
    "install docker-init (Debian's docker.io ships /usr/bin/docker-init, a link to tini-static from the tini package) or set init-path in /etc/docker/daemon.json, then restart dockerd"
}

export const CGROUPS_HYBRID_FIX: Record<ContainerRuntime, string> = {
  podman:
    'make runc podman\'s OCI runtime (runtime = "runc" in the [engine] table of containers.conf; apt-get install runc), boot the host with cgroup v2 alone (systemd.unified_cgroup_hierarchy=1), or use container-runtime docker',
  docker:
    'make runc dockerd\'s runtime ("default-runtime": "runc" in /etc/docker/daemon.json, then restart dockerd), or boot the host with cgroup v2 alone (systemd.unified_cgroup_hierarchy=1)'
}

/** What a runtime on this host meets at every container start, whatever the image: a property of the host. */
export interface StartRefusal {
  kind: 'init-missing' | 'cgroups-hybrid'
  /** The runtime's own line (no "Error: " prefix). */
  detail: string
  /** What to change on the host. */
  fix: string
  /** The one clear line: what cannot happen and why, the fix, the runtime's own words. */
  message: string
}

const REFUSALS: readonly {
  kind: StartRefusal['kind']
  patterns: readonly RegExp[]
  what: string
  fix: Record<ContainerRuntime, string>
}[] = [
  {
    kind: 'init-missing',
    patterns: INIT_MISSING,
    what: 'cannot start containers with --init',
    fix: MISSING_INIT_FIX
  },
  {
    kind: 'cgroups-hybrid',
    patterns: CGROUPS_HYBRID,
    what: "cannot start containers on this host: its OCI runtime crun does not support the host's hybrid cgroups (cgroup v1 controllers, and a cgroup v2 hierarchy that holds controllers too)",
    fix: CGROUPS_HYBRID_FIX
  }
]

function firstMatch(patterns: readonly RegExp[], stderr: string): string | null {
  for (const re of patterns) {
    const m = re.exec(stderr)
    if (m) return m[0].trim()
  }
  return null
}

/** The runtime's own line when its init binary is missing, or null when the failure is something else. */
export function missingInitBinary(stderr: string): string | null {
  return firstMatch(INIT_MISSING, stderr)
}

/** The refusal every container start on this host meets (missing init binary, crun on hybrid cgroups), or null. */
export function startRefusal(runtime: ContainerRuntime, stderr: string): StartRefusal | null {
  for (const r of REFUSALS) {
    const detail = firstMatch(r.patterns, stderr)
    if (detail === null) continue
    const fix = r.fix[runtime]
    return { kind: r.kind, detail, fix, message: `${runtime} ${r.what}: ${fix} (${runtime} said: ${detail})` }
  }
  return null
}

/**
 * Start the image once with `--init` (no GPU, no mounts) and judge only whether the runtime can start containers
 * on this host at all: pass when the container ran, fail when the runtime says something every start meets (its
 * init binary is missing, crun on hybrid cgroups), skip otherwise (a different failure is not this check's to
 * judge; the workload run reports it in full).
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
  const refusal = startRefusal(runtime, res.stderr)
  if (refusal !== null)
    return {
      name: CONTAINER_INIT_CHECK,
      status: 'fail',
      message: refusal.message,
      fix: refusal.fix,
      details: { runtime, exit_code: res.exitCode, cause: refusal.kind }
    }
  const last = (res.stderr.trim().split('\n').slice(-1)[0] ?? '').slice(0, MAX_DETAIL_CHARS)
  return {
    name: CONTAINER_INIT_CHECK,
    status: 'skip',
    message: `the --init probe container exited ${res.exitCode}${res.timedOut ? ' (timed out)' : ''}${last ? `: ${last}` : ''}; not a runtime problem of this host, so not judged here`,
    fix: null,
    details: { runtime, exit_code: res.exitCode }
  }
}
