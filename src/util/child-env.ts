/**
 * The environment a native workload gets: an allow-list, never the runner's whole environment (which holds
 * INPUT_GITHUB-TOKEN, GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN and any secret
 * a workflow put in `env:`). Containers get only what the tool passes with `-e`.
 */
import { isSecretName } from './secret-names.js'

/** Variables passed through by exact name: the process basics a Python + CUDA program needs. */
const PASS_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TERM',
  'LD_LIBRARY_PATH',
  'PYTHONPATH',
  'PYTHONHOME',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'OMP_NUM_THREADS',
  'MKL_NUM_THREADS',
  'OPENBLAS_NUM_THREADS',
  'HF_HOME',
  'TORCH_HOME',
  'XDG_CACHE_HOME'
])

/** Prefixes passed through: locale, the CUDA/NVIDIA runtime knobs, PyTorch's allocator settings, the tool's own. */
const PASS_PREFIXES = ['LC_', 'CUDA_', 'NVIDIA_', 'NCCL_', 'PYTORCH_', 'GPU_OVERHEAD_']

/** Never passed, whatever the lists above say: the runner's own variables. */
const DENY = /^(INPUT_|ACTIONS_|GITHUB_|RUNNER_)/i

/** A secret under an allowed prefix (`NVIDIA_NGC_PAT`, `CUDA_PASSWD`) is never passed either: util/secret-names. */
export function isPassedToWorkloads(name: string): boolean {
  if (DENY.test(name) || isSecretName(name)) return false
  return PASS_NAMES.has(name) || PASS_PREFIXES.some(p => name.startsWith(p))
}

/** The allow-listed part of `base`, plus `extra` (the tool's own settings, which win). */
export function scrubbedEnv(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string> = {}
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(base)) if (v !== undefined && isPassedToWorkloads(k)) env[k] = v
  return { ...env, ...extra }
}

/**
 * The container runtime's own client settings (where the engine is, its config files, rootless podman's
 * runtime dir): the docker/podman client process needs them, the container never sees them (it gets only `-e`).
 */
const RUNTIME_CLIENT_NAMES = [
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'CONTAINER_HOST',
  'CONTAINERS_CONF',
  'CONTAINERS_STORAGE_CONF',
  'CONTAINERS_REGISTRIES_CONF',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'DBUS_SESSION_BUS_ADDRESS'
]

/** The workload allow-list plus the runtime client's settings: the env of the docker/podman client process. */
export function runtimeClientEnv(base: NodeJS.ProcessEnv): Record<string, string> {
  const extra: Record<string, string> = {}
  for (const k of RUNTIME_CLIENT_NAMES) {
    const v = base[k]
    if (v !== undefined && !isSecretName(k)) extra[k] = v
  }
  return scrubbedEnv(base, extra)
}
