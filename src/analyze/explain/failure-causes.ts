/**
 * The causes a failed arm's error is read against (failures.ts causeOf): each rule's words, what they mean and
 * the fix, first match wins.
 */
import type { ContainerRuntime } from '../../types/index.js'
import {
  CGROUPS_HYBRID_FIX,
  MISSING_INIT_FIX,
  startRefusal,
  type StartRefusal
} from '../../preflight/index.js'

export interface ArmFailure {
  environment: string
  workload: string
  error: string
  /** A user command's words as recorded in its run's params (joined by spaces); absent for a built-in. */
  command?: string
}

export interface Cause {
  key: string
  label: string
  value: string
  meaning: string
  fix: string
  fromImage?: boolean
}

export type Arm = 'container' | 'native'
/** A text that may differ by the failing arm; `$1` stands for what the rule's pattern caught. */
export type Text = string | Readonly<Record<Arm, string>>

/** One cause: what an error says, what that means and how to fix it. */
export interface CauseRule {
  /** The error's words (a RegExp: `$1` in key, meaning and fix is its first group), or a test of them. */
  pattern: RegExp | ((error: string) => boolean)
  /** A container arm's failure only (the engine, the image); absent: either arm. */
  containerOnly?: true
  key: string
  label: string
  meaning: Text
  /** A function: the fix depends on the container runtime (null: not known). */
  fix: Text | ((runtime: ContainerRuntime | null) => string)
  /** The failing arm's cell: the error (default), or what the pattern caught (`$1`). */
  value?: 'error' | 'caught'
  /** In a container arm, a more precise cause that replaces this one (the image's ENV hiding the GPUs). */
  refine?: (imageEnv: Readonly<Record<string, string>>) => Cause | null
}

/** Both runtimes' fixes when the runtime is not known. */
const byRuntime =
  (fix: Readonly<Record<ContainerRuntime, string>>) =>
  (runtime: ContainerRuntime | null): string =>
    runtime !== null ? fix[runtime] : `podman: ${fix.podman}; docker: ${fix.docker}`
/** The preflight's own words for a refusal of this kind (preflight/container-init.ts). */
const refused =
  (kind: StartRefusal['kind']) =>
  (error: string): boolean =>
    startRefusal('podman', error)?.kind === kind

/** The image's declared GPU visibility, when it hides every GPU: what the container saw no GPU for. */
const VISIBILITY: readonly {
  name: string
  hides: (value: string) => boolean
  meaning: string
  fix: string
}[] = [
  {
    name: 'CUDA_VISIBLE_DEVICES',
    hides: () => true,
    meaning:
      'the image sets CUDA_VISIBLE_DEVICES: CUDA in the container sees only the GPUs it names, counted inside the container (an empty value, a UUID or an index that is not there hides every GPU)',
    fix: "remove ENV CUDA_VISIBLE_DEVICES from the image, or override it for the check: container-args '-e CUDA_VISIBLE_DEVICES=0' (the container's own GPU numbering)"
  },
  {
    name: 'NVIDIA_VISIBLE_DEVICES',
    hides: v => /^(void|none|)$/i.test(v.trim()),
    meaning: 'the image tells the NVIDIA runtime to expose no GPU (void/none/empty)',
    fix: 'remove ENV NVIDIA_VISIBLE_DEVICES from the image (NVIDIA base images set it to all)'
  }
]

/** The first of VISIBILITY the image's ENV sets so that it hides the GPUs, as a cause; null when none. */
function visibilityCause(imageEnv: Readonly<Record<string, string>>): Cause | null {
  for (const v of VISIBILITY) {
    const value = imageEnv[v.name]
    if (value === undefined || !v.hides(value)) continue
    return {
      key: `env:${v.name}`,
      label: `the image's ${v.name}`,
      value: value === '' ? '(empty)' : value,
      meaning: v.meaning,
      fix: v.fix,
      fromImage: true
    }
  }
  return null
}

/** A missing module or library: the image's to ship, or the native Python's to install. */
const MISSING_FIX: Text = {
  container:
    'use an image that ships it (GPU runs need python3 with torch; {{device: cpu}} needs NumPy), or install it in the image',
  native: 'install it for the native Python (the interpreter {{python}} names)'
}

/** A path the process could not open, as Python, coreutils and shells word it (one group: the path). */
const MISSING_PATH =
  /(?:can't open file|No such file or directory:|cannot access|cannot open|FileNotFoundError:[^']*) '([^']+)'/

/**
 * A relative path of the command that was looked for elsewhere than the workspace: the absolute path in the
 * error ends in one of the command's relative words, so the process ran in the folder before it. The check
 * starts the container in the workspace (-w), so something in the image moved it: its entrypoint's `cd` (often
 * to its WORKDIR or /workspace, /opt/…). Null when the error names no such path.
 */
export function movedWorkdir(f: ArmFailure): Cause | null {
  const missing = MISSING_PATH.exec(f.error)?.[1]
  if (missing === undefined || !missing.startsWith('/') || f.command === undefined) return null
  const word = f.command
    .split(/\s+/)
    .find(
      w =>
        w !== '' && !w.startsWith('/') && !w.startsWith('-') && missing.endsWith(`/${w.replace(/^\.\//, '')}`)
    )
  if (word === undefined) return null
  const rel = word.replace(/^\.\//, '')
  const ranIn = missing.slice(0, missing.length - rel.length - 1) || '/'
  return {
    key: 'failure:workdir-moved',
    label: "the image moved the command's working folder",
    value: `${word} → ${missing}`,
    meaning: `the command's relative path ${word} was looked for in ${ranIn}, not in the workspace: the check starts the container in the workspace (-w), and the image's entrypoint changed directory (a cd to its WORKDIR or ${ranIn}) before it ran the command`,
    fix: `name the path from the workspace, {workspace}/${rel} (the workspace's path in both arms, whatever the working folder), or make the entrypoint run its arguments where it was started (no cd before exec "$@")`
  }
}

/**
 * Every cause of a failed arm, ranked: the first rule whose pattern the error matches names it (an engine's
 * refusal before what its message quotes, a missing module before the out-of-memory it may mention).
 */
export const CAUSES: readonly CauseRule[] = [
  {
    pattern: refused('cgroups-hybrid'),
    containerOnly: true,
    key: 'failure:host:cgroups-hybrid',
    label: 'the engine cannot start containers on this host',
    meaning:
      "crun, the engine's OCI runtime, refuses every container on a host with hybrid cgroups (cgroup v1 controllers, and a cgroup v2 hierarchy that holds controllers too): no image starts here, so the container arm measured nothing",
    fix: byRuntime(CGROUPS_HYBRID_FIX)
  },
  {
    pattern: refused('init-missing'),
    containerOnly: true,
    key: 'failure:host:init-missing',
    label: 'the engine cannot start containers on this host',
    meaning:
      'the engine has no init binary, and every container runs with --init: no image starts here, so the container arm measured nothing',
    fix: byRuntime(MISSING_INIT_FIX)
  },
  {
    pattern: /error setting rlimit/i,
    containerOnly: true,
    key: 'failure:rlimit',
    label: 'a ulimit the engine may not set',
    meaning:
      'the engine could not set a resource limit on the container (a --ulimit of {{container-args}}, or the RLIMIT_NOFILE and RLIMIT_NPROC Podman sets on every container): raising a hard limit needs CAP_SYS_RESOURCE, which a rootless or sandboxed engine lacks',
    fix: byRuntime({
      docker:
        "lower the limit to what the runner allows (ulimit -H -a shows it), drop it from {{container-args}}, or run a rootful engine; production's limits can then not be reproduced on this runner",
      podman:
        'give the engine CAP_SYS_RESOURCE, lower or drop any --ulimit of {{container-args}}, or give Podman an OCI runtime that keeps the engine\'s own limits (docs/action.md, "Podman")'
    })
  },
  {
    // docker/podman exit 125: the engine itself refused to create or start the container.
    pattern: /exit code 125\b/,
    containerOnly: true,
    key: 'failure:engine',
    label: 'the engine refused the container',
    meaning:
      'the container engine refused to create or start the container (exit code 125): an unknown flag, a missing image, or a runtime error; its message is shown',
    fix: "read the engine's message: check container-args, the image and the engine (docker info)"
  },
  {
    pattern: /no protocol events/i,
    key: 'failure:no-events',
    label: 'the command never ran',
    meaning:
      'the process ended without a single protocol event: an ENTRYPOINT that does not end in exec "$@" (or that exits early) never starts the workload',
    fix: 'make the entrypoint run its arguments (exec "$@"); the run\'s log shows what it printed'
  },
  {
    pattern:
      /no_gpu|is_available\(\) is False|no CUDA-capable device|CUDA driver initialization failed|no CUDA GPUs are available|CUDA_ERROR_NO_DEVICE/i,
    key: 'failure:no-gpu',
    label: 'no GPU in the arm',
    meaning: {
      container:
        'CUDA in the container found no GPU: the GPU was not passed in (gpu-access), or the driver libraries are missing there',
      native: 'CUDA found no GPU for the native run'
    },
    fix: {
      container:
        'check {{gpu-access}}: gpus needs the NVIDIA Container Toolkit, cdi needs `nvidia-ctk cdi generate`, devices needs {{driver-mount}}',
      native: 'run on a GPU runner, or use {{device: cpu}}'
    },
    refine: visibilityCause
  },
  {
    pattern: /No module named '?([\w.]+)'?/,
    key: 'failure:missing:$1',
    label: 'missing library',
    value: 'caught',
    meaning: {
      container: 'the image cannot load the Python module $1',
      native: "the runner's Python cannot load the Python module $1"
    },
    fix: MISSING_FIX
  },
  {
    pattern: /(lib[\w+.-]*\.so[\w.]*): cannot open shared object file/,
    key: 'failure:missing:$1',
    label: 'missing library',
    value: 'caught',
    meaning: {
      container: 'the image cannot load the shared library $1',
      native: "the runner's Python cannot load the shared library $1"
    },
    fix: MISSING_FIX
  },
  {
    pattern: /executable file not found|python3?: (not found|No such file)|exit code 127\b/i,
    containerOnly: true,
    key: 'failure:no-python',
    label: 'no python3',
    meaning: 'the image has no python3 on its PATH (the workloads run with python3)',
    fix: 'use an image with python3 on PATH'
  },
  {
    pattern: MISSING_PATH,
    containerOnly: true,
    key: 'failure:path',
    label: 'a file the container does not have',
    value: 'caught',
    meaning:
      'the command names $1, which the container does not have: only the workspace is mounted (read-only, at its own path), so a file outside it must be in the image',
    fix: "keep the command's files in the workspace and name them from it: {workspace}/… is the workspace's path in both arms"
  },
  {
    pattern: /\boom\b|out of memory|exit code 137|Cannot allocate memory/i,
    key: 'failure:oom',
    label: 'out of memory',
    meaning: {
      container:
        'the container ran out of memory: its memory limit (container-memory or --memory) or the GPU memory is too small for the workload',
      native: 'the native run ran out of memory (host or GPU)'
    },
    fix: 'raise container-memory, or make the workload smaller (llm-preset, matmul-size)'
  },
  {
    // torch names its shared-memory segments /torch_<pid>_… (aten/src/ATen/MapAllocator.cpp: "unable to write to
    // file </torch_…>", "unable to mmap … from file </torch_…>"): a DataLoader worker's batch on a full /dev/shm.
    pattern: /Bus error|\/dev\/shm|shared memory|\(shm\)|<\/torch_\d/i,
    containerOnly: true,
    key: 'failure:shm',
    label: 'shared memory (/dev/shm)',
    meaning: "a process failed on /dev/shm: Docker's default is 64 MiB",
    fix: '{{container-args: --ipc=host}} or {{container-args: --shm-size=8g}}'
  },
  {
    pattern: /Permission denied|EACCES|Operation not permitted/i,
    containerOnly: true,
    key: 'failure:denied',
    label: 'permission denied',
    meaning:
      "the image's USER (or container-args --user) may not read the mounted workloads or write the run's folder, or a security profile refused a call",
    fix: 'run as a user that can read the workloads folder ({{container-args: --user …}}), or make it world-readable'
  }
]

/** What no rule of CAUSES names. */
export const OTHER: Omit<CauseRule, 'pattern'> = {
  key: 'failure:other',
  label: 'the arm failed',
  meaning: 'the process failed; its error and the last lines of its log are shown',
  fix: "read the run's log in the results folder (logs/); the failure is the image's or the workload's, not a measured overhead"
}
