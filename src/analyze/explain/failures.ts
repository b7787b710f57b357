/**
 * Failed arms explained: when an arm's processes fail (no GPU, a missing library, out of memory, an
 * entrypoint that never runs the command), the likely cause is named from what was recorded about that arm —
 * the image's declared ENV, the error event, the run's log — with the fix. Ranked above every other finding:
 * an arm that measured nothing is the first thing to fix.
 */
import type { ContainerRuntime, Finding, RunRecord } from '../../types/index.js'
import { startRefusal } from '../../preflight/index.js'

export interface ArmFailure {
  environment: string
  workload: string
  error: string
}

/** Failed (not cancelled, not timed-out) processes, one per arm and error kind. */
export function armFailures(runs: readonly RunRecord[]): ArmFailure[] {
  const seen = new Set<string>()
  const out: ArmFailure[] = []
  for (const r of runs) {
    if (r.status !== 'failed' || !r.error) continue
    const key = `${r.environment}\u0000${r.error.split(':')[0]}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ environment: r.environment, workload: r.workload, error: r.error })
  }
  return out
}

interface Cause {
  key: string
  label: string
  value: string
  meaning: string
  fix: string
  fromImage?: boolean
}

const NO_GPU =
  /no_gpu|is_available\(\) is False|no CUDA-capable device|CUDA driver initialization failed|no CUDA GPUs are available|CUDA_ERROR_NO_DEVICE/i
const MISSING_MODULE = /No module named '?([\w.]+)'?/
const MISSING_LIB = /(lib[\w+.-]*\.so[\w.]*): cannot open shared object file/
const NO_PYTHON = /executable file not found|python3?: (not found|No such file)|exit code 127\b/i
const OOM = /\boom\b|out of memory|exit code 137|Cannot allocate memory/i
const SHM = /Bus error|\/dev\/shm|shared memory/i
const NO_EVENTS = /no protocol events/i
const DENIED = /Permission denied|EACCES|Operation not permitted/i
const RLIMIT = /error setting rlimit/i
/** docker/podman exit 125: the engine itself refused to create or start the container. */
const ENGINE = /exit code 125\b/

/** CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES as the image declares them (its ENV), when they hide GPUs. */
function visibilityCause(imageEnv: Readonly<Record<string, string>>): Cause | null {
  const cuda = imageEnv['CUDA_VISIBLE_DEVICES']
  if (cuda !== undefined)
    return {
      key: 'env:CUDA_VISIBLE_DEVICES',
      label: "the image's CUDA_VISIBLE_DEVICES",
      value: cuda === '' ? '(empty)' : cuda,
      meaning:
        'the image sets CUDA_VISIBLE_DEVICES: CUDA in the container sees only the GPUs it names, counted inside the container (an empty value, a UUID or an index that is not there hides every GPU)',
      fix: "remove ENV CUDA_VISIBLE_DEVICES from the image, or override it for the check: container-args '-e CUDA_VISIBLE_DEVICES=0' (the container's own GPU numbering)",
      fromImage: true
    }
  const nvidia = imageEnv['NVIDIA_VISIBLE_DEVICES']
  if (nvidia !== undefined && /^(void|none|)$/i.test(nvidia.trim()))
    return {
      key: 'env:NVIDIA_VISIBLE_DEVICES',
      label: "the image's NVIDIA_VISIBLE_DEVICES",
      value: nvidia === '' ? '(empty)' : nvidia,
      meaning: 'the image tells the NVIDIA runtime to expose no GPU (void/none/empty)',
      fix: 'remove ENV NVIDIA_VISIBLE_DEVICES from the image (NVIDIA base images set it to all)',
      fromImage: true
    }
  return null
}

/** What refuses every container on this host (preflight/container-init.ts), with the runtime's own fix. */
function hostRefusalCause(e: string, runtime: ContainerRuntime | null): Cause | null {
  const refusal = startRefusal(runtime ?? 'podman', e)
  if (refusal === null) return null
  const docker = startRefusal('docker', e)?.fix
  return {
    key: `failure:host:${refusal.kind}`,
    label: 'the engine cannot start containers on this host',
    value: e,
    meaning:
      refusal.kind === 'cgroups-hybrid'
        ? "crun, the engine's OCI runtime, refuses every container on a host with hybrid cgroups (cgroup v1 controllers, and a cgroup v2 hierarchy that holds controllers too): no image starts here, so the container arm measured nothing"
        : 'the engine has no init binary, and every container runs with --init: no image starts here, so the container arm measured nothing',
    fix: runtime !== null ? refusal.fix : `podman: ${refusal.fix}; docker: ${docker}`
  }
}

function causeOf(
  f: ArmFailure,
  imageEnv: Readonly<Record<string, string>>,
  inContainer: boolean,
  runtime: ContainerRuntime | null
): Cause {
  const e = f.error
  const where = inContainer ? 'the image' : "the runner's Python"
  const host = inContainer ? hostRefusalCause(e, runtime) : null
  if (host) return host
  if (inContainer && RLIMIT.test(e))
    return {
      key: 'failure:rlimit',
      label: 'a ulimit the engine may not set',
      value: e,
      meaning:
        'the engine could not apply a --ulimit of container-args: raising a hard limit (memlock, stack) needs CAP_SYS_RESOURCE, which a rootless or sandboxed engine lacks',
      fix: "lower the limit to what the runner allows (ulimit -H -a shows it), drop it from container-args, or run a rootful engine; production's limits can then not be reproduced on this runner"
    }
  if (inContainer && ENGINE.test(e))
    return {
      key: 'failure:engine',
      label: 'the engine refused the container',
      value: e,
      meaning:
        'the container engine refused to create or start the container (exit code 125): an unknown flag, a missing image, or a runtime error; its message is shown',
      fix: "read the engine's message: check container-args, the image and the engine (docker info)"
    }
  if (NO_EVENTS.test(e))
    return {
      key: 'failure:no-events',
      label: 'the command never ran',
      value: e,
      meaning:
        'the process ended without a single protocol event: an ENTRYPOINT that does not end in exec "$@" (or that exits early) never starts the workload',
      fix: 'make the entrypoint run its arguments (exec "$@"); the run\'s log shows what it printed'
    }
  if (NO_GPU.test(e)) {
    const vis = inContainer ? visibilityCause(imageEnv) : null
    if (vis) return vis
    return {
      key: 'failure:no-gpu',
      label: 'no GPU in the arm',
      value: e,
      meaning: inContainer
        ? 'CUDA in the container found no GPU: the GPU was not passed in (gpu-access), or the driver libraries are missing there'
        : 'CUDA found no GPU for the native run',
      fix: inContainer
        ? 'check gpu-access: --gpus needs the NVIDIA Container Toolkit, cdi needs `nvidia-ctk cdi generate`, devices needs driver-mount'
        : 'run on a GPU runner, or use --device cpu'
    }
  }
  const mod = MISSING_MODULE.exec(e)
  const lib = MISSING_LIB.exec(e)
  if (mod || lib)
    return {
      key: `failure:missing:${mod?.[1] ?? lib?.[1]}`,
      label: 'missing library',
      value: mod?.[1] ?? lib?.[1] ?? e,
      meaning: `${where} cannot load ${mod ? `the Python module ${mod[1]}` : `the shared library ${lib?.[1]}`}`,
      fix: inContainer
        ? 'use an image that ships it (GPU runs need python3 with torch; --device cpu needs NumPy), or install it in the image'
        : 'install it for the native Python (input python)'
    }
  if (inContainer && NO_PYTHON.test(e))
    return {
      key: 'failure:no-python',
      label: 'no python3',
      value: e,
      meaning: 'the image has no python3 on its PATH (the workloads run with python3)',
      fix: 'use an image with python3 on PATH'
    }
  if (OOM.test(e))
    return {
      key: 'failure:oom',
      label: 'out of memory',
      value: e,
      meaning: inContainer
        ? 'the container ran out of memory: its memory limit (container-memory or --memory) or the GPU memory is too small for the workload'
        : 'the native run ran out of memory (host or GPU)',
      fix: 'raise container-memory, or make the workload smaller (llm-preset, matmul-size)'
    }
  if (inContainer && SHM.test(e))
    return {
      key: 'failure:shm',
      label: 'shared memory (/dev/shm)',
      value: e,
      meaning: "a process failed on /dev/shm: Docker's default is 64 MiB",
      fix: "container-args '--ipc=host' or '--shm-size=8g'"
    }
  if (inContainer && DENIED.test(e))
    return {
      key: 'failure:denied',
      label: 'permission denied',
      value: e,
      meaning:
        "the image's USER (or container-args --user) may not read the mounted workloads or write the run's folder, or a security profile refused a call",
      fix: "run as a user that can read the workloads folder (container-args '--user …'), or make it world-readable"
    }
  return {
    key: 'failure:other',
    label: 'the arm failed',
    value: e,
    meaning: 'the process failed; its error and the last lines of its log are shown',
    fix: "read the run's log in the results folder (logs/); the failure is the image's or the workload's, not a measured overhead"
  }
}

/** One finding per distinct cause of an arm's failures. */
export function failureFindings(
  failures: readonly ArmFailure[],
  imageEnv: Readonly<Record<string, Readonly<Record<string, string>>>>,
  containerEnvs: readonly string[],
  baselineEnv: string,
  /** The container runtime, for its own fix; null when not known (both fixes are given). */
  runtime: ContainerRuntime | null = null
): Finding[] {
  const byKey = new Map<string, Finding>()
  for (const f of failures) {
    const inContainer = containerEnvs.includes(f.environment)
    const c = causeOf(f, imageEnv[f.environment] ?? {}, inContainer, runtime)
    const key = `${f.environment}:${c.key}`
    const seen = byKey.get(key)
    if (seen) {
      if (!seen.workloads.includes(f.workload)) seen.workloads.push(f.workload)
      continue
    }
    byKey.set(key, {
      kind: 'failure',
      key,
      label: `${f.environment} arm failed: ${c.label}`,
      // The columns are the arms: the failing one shows its error, the other what it did.
      baseline: f.environment === baselineEnv ? c.value.slice(0, 300) : 'ran',
      candidate: f.environment === baselineEnv ? 'ran' : c.value.slice(0, 300),
      impact: 3,
      domains: [],
      explains: [`${f.environment} ${f.workload}: ${f.error.slice(0, 200)}`],
      workloads: [f.workload],
      meaning: c.meaning,
      fix: c.fix,
      relevant: true,
      ...(c.fromImage ? { from_image_env: true } : {})
    })
  }
  return [...byKey.values()]
}
