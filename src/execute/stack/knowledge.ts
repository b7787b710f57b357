/**
 * What a difference between the arms' stacks can do, and how to fix it: a table of known
 * environment variables (one-line meaning + fix each), rules for whole families of variables, and
 * rules for the stack facts the workloads record (workloads/_stack.py). The explainer ranks by these
 * fields only — no variable is special-cased in code, so an unknown one still ranks by its family.
 * Long by nature (a data table, one entry per variable); the code is the last 30 lines.
 */
import { DOMAINS, type Domain, type Impact } from '../../types/index.js'

export { DOMAINS, type Domain, type Impact }

export interface Knowledge {
  impact: Impact
  domains: readonly Domain[]
  meaning: string
  fix: string
}

const GPU: readonly Domain[] = ['gpu-compute']
const CPU: readonly Domain[] = ['cpu-compute']
const ALL: readonly Domain[] = DOMAINS
const COMPUTE: readonly Domain[] = ['gpu-compute', 'cpu-compute', 'launch']

const SAME_ENV = 'set it the same way in both arms (image ENV or the workflow env), or remove it'

/** Known variables. Keys are exact names. */
export const ENV_KNOWLEDGE: Readonly<Record<string, Knowledge>> = {
  NVIDIA_TF32_OVERRIDE: {
    impact: 3,
    domains: GPU,
    meaning:
      'NVIDIA_TF32_OVERRIDE=0 turns TF32 off inside cuBLAS/cuDNN for the whole process, whatever the framework asks: fp32 products that were allowed to use TF32 tensor cores run as full fp32 (several times slower)',
    fix: `remove NVIDIA_TF32_OVERRIDE from the image (NGC images do not set it) or ${SAME_ENV}`
  },
  TORCH_ALLOW_TF32_CUBLAS_OVERRIDE: {
    impact: 3,
    domains: GPU,
    meaning:
      'forces torch.backends.cuda.matmul.allow_tf32 on: fp32 matrix products run as TF32 (faster, ~10-bit mantissa)',
    fix: `remove it, or ${SAME_ENV}; set the precision in code (torch.set_float32_matmul_precision)`
  },
  TORCH_BLAS_PREFER_CUBLASLT: {
    impact: 3,
    domains: GPU,
    meaning: 'makes torch route products through cuBLASLt instead of cuBLAS (other kernels and heuristics)',
    fix: SAME_ENV
  },
  CUBLAS_WORKSPACE_CONFIG: {
    impact: 3,
    domains: GPU,
    meaning:
      'sets the size and count of cuBLAS workspaces (e.g. :4096:8 or :16:8 for deterministic runs); small workspaces rule out the fastest split-K algorithms',
    fix: `${SAME_ENV}; unset it unless you need bit-wise determinism`
  },
  CUBLASLT_WORKSPACE_SIZE: {
    impact: 3,
    domains: GPU,
    meaning:
      "size (KiB) of the cuBLASLt workspace torch allocates; a smaller one rules out some of cuBLASLt's algorithms",
    fix: SAME_ENV
  },
  CUBLAS_LOGINFO_DBG: {
    impact: 2,
    domains: GPU,
    meaning: 'cuBLAS API logging: every call is formatted and written out',
    fix: 'unset it outside debugging'
  },
  CUBLASLT_LOG_LEVEL: {
    impact: 2,
    domains: GPU,
    meaning: 'cuBLASLt logging level; any level above 0 logs calls and slows them',
    fix: 'unset it outside debugging'
  },
  CUDNN_LOGINFO_DBG: {
    impact: 2,
    domains: GPU,
    meaning: 'cuDNN API logging: slows every cuDNN call',
    fix: 'unset it outside debugging'
  },
  CUDNN_LOGLEVEL_DBG: {
    impact: 2,
    domains: GPU,
    meaning: 'cuDNN (v9) logging level; above 0 slows every call',
    fix: 'unset it outside debugging'
  },
  CUDA_LAUNCH_BLOCKING: {
    impact: 3,
    domains: ['gpu-compute', 'launch'],
    meaning:
      'CUDA_LAUNCH_BLOCKING=1 makes every kernel launch wait for the kernel: the CPU can no longer queue work ahead, so launch-bound work (decode) slows a lot',
    fix: 'unset it outside debugging'
  },
  CUDA_DEVICE_MAX_CONNECTIONS: {
    impact: 2,
    domains: ['gpu-compute', 'launch'],
    meaning:
      'number of hardware work queues a context uses; 1 serialises streams (Megatron sets it on purpose)',
    fix: SAME_ENV
  },
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: {
    impact: 3,
    domains: GPU,
    meaning: 'under MPS, the share of SMs this client may use: below 100 the GPU is partly withheld',
    fix: SAME_ENV
  },
  CUDA_MPS_PIPE_DIRECTORY: {
    impact: 2,
    domains: ['gpu-compute', 'memory'],
    meaning: 'points the process at an MPS daemon: it shares the GPU with other MPS clients',
    fix: 'run both arms with or both without MPS'
  },
  CUDA_MODULE_LOADING: {
    impact: 2,
    domains: ['startup', 'memory'],
    meaning:
      'LAZY (default since CUDA 12.2) loads kernels at first use; EAGER loads every kernel of every library at start-up (slower start, hundreds of MiB more device memory)',
    fix: `${SAME_ENV}; LAZY unless a kernel must not load mid-run`
  },
  CUDA_CACHE_DISABLE: {
    impact: 2,
    domains: ['startup'],
    meaning:
      'CUDA_CACHE_DISABLE=1 turns off the PTX JIT cache: kernels without SASS for this GPU are compiled again in every process',
    fix: 'unset it'
  },
  CUDA_CACHE_PATH: {
    impact: 1,
    domains: ['startup'],
    meaning:
      'where the PTX JIT cache lives; a path on the container writable layer starts empty in every container',
    fix: 'mount a persistent volume at this path in the container, or ship SASS for the GPU in the image'
  },
  CUDA_CACHE_MAXSIZE: {
    impact: 1,
    domains: ['startup'],
    meaning: 'size limit of the PTX JIT cache; too small and JIT results are evicted between runs',
    fix: SAME_ENV
  },
  CUDA_FORCE_PTX_JIT: {
    impact: 2,
    domains: ['startup', 'gpu-compute'],
    meaning: 'CUDA_FORCE_PTX_JIT=1 ignores shipped SASS and JIT-compiles every kernel from PTX',
    fix: 'unset it'
  },
  CUDA_DISABLE_PTX_JIT: {
    impact: 1,
    domains: ['startup'],
    meaning: 'CUDA_DISABLE_PTX_JIT=1 refuses PTX JIT: kernels without SASS for this GPU fail to load',
    fix: SAME_ENV
  },
  CUDA_VISIBLE_DEVICES: {
    impact: 2,
    domains: ALL,
    meaning: 'which GPUs the process sees and in which order: the arms may run on different GPUs',
    fix: 'pin both arms to the same GPU (the `gpus` input)'
  },
  CUDA_DEVICE_ORDER: {
    impact: 1,
    domains: ALL,
    meaning: 'FASTEST_FIRST (default) or PCI_BUS_ID: the same index can name another GPU',
    fix: 'set CUDA_DEVICE_ORDER=PCI_BUS_ID in both arms'
  },
  PYTORCH_CUDA_ALLOC_CONF: {
    impact: 2,
    domains: ['memory', 'gpu-compute'],
    meaning:
      "configures torch's caching allocator (expandable_segments, max_split_size_mb, garbage_collection_threshold): changes fragmentation, memory held and allocation cost",
    fix: SAME_ENV
  },
  PYTORCH_ALLOC_CONF: {
    impact: 2,
    domains: ['memory', 'gpu-compute'],
    meaning: "configures torch's caching allocator (newer name of PYTORCH_CUDA_ALLOC_CONF)",
    fix: SAME_ENV
  },
  PYTORCH_NO_CUDA_MEMORY_CACHING: {
    impact: 3,
    domains: ['memory', 'gpu-compute', 'launch'],
    meaning:
      'PYTORCH_NO_CUDA_MEMORY_CACHING=1 disables the caching allocator: every tensor is a cudaMalloc/cudaFree (synchronising, slow)',
    fix: 'unset it outside memory debugging'
  },
  TORCH_CUDNN_V8_API_DISABLED: {
    impact: 2,
    domains: GPU,
    meaning: 'falls back from the cuDNN v8 frontend API to the legacy one (other kernels)',
    fix: SAME_ENV
  },
  TORCH_USE_CUDA_DSA: {
    impact: 2,
    domains: GPU,
    meaning: 'device-side assertions: extra checks inside kernels',
    fix: 'unset it outside debugging'
  },
  TORCH_SHOW_CPP_STACKTRACES: {
    impact: 0,
    domains: [],
    meaning: 'prints C++ stack traces on errors only',
    fix: 'none needed'
  },
  OMP_NUM_THREADS: {
    impact: 3,
    domains: CPU,
    meaning:
      'number of OpenMP threads (torch intra-op, OpenBLAS/MKL built with OpenMP): fewer threads, slower CPU math',
    fix: `${SAME_ENV}; the default is one per CPU in the affinity mask`
  },
  MKL_NUM_THREADS: {
    impact: 3,
    domains: CPU,
    meaning: 'threads MKL uses for BLAS/LAPACK',
    fix: SAME_ENV
  },
  OPENBLAS_NUM_THREADS: {
    impact: 3,
    domains: CPU,
    meaning: 'threads OpenBLAS uses (NumPy matmul on CPU)',
    fix: SAME_ENV
  },
  GOTO_NUM_THREADS: { impact: 3, domains: CPU, meaning: 'threads OpenBLAS uses (old name)', fix: SAME_ENV },
  BLIS_NUM_THREADS: { impact: 3, domains: CPU, meaning: 'threads BLIS uses', fix: SAME_ENV },
  VECLIB_MAXIMUM_THREADS: {
    impact: 2,
    domains: CPU,
    meaning: 'threads Apple Accelerate uses',
    fix: SAME_ENV
  },
  NUMEXPR_NUM_THREADS: { impact: 1, domains: CPU, meaning: 'threads numexpr uses', fix: SAME_ENV },
  OPENBLAS_CORETYPE: {
    impact: 2,
    domains: CPU,
    meaning:
      'forces the kernels of one CPU family in OpenBLAS instead of the detected one (e.g. Haswell kernels on an AVX-512 CPU)',
    fix: `${SAME_ENV}; leave it unset to use the kernels detected for this CPU`
  },
  OPENBLAS_VERBOSE: {
    impact: 0,
    domains: [],
    meaning: 'prints the kernels OpenBLAS picked',
    fix: 'none needed'
  },
  MKL_CBWR: {
    impact: 2,
    domains: CPU,
    meaning: 'conditional numerical reproducibility: MKL uses one fixed (often slower) code path',
    fix: SAME_ENV
  },
  MKL_ENABLE_INSTRUCTIONS: {
    impact: 2,
    domains: CPU,
    meaning: 'caps the instruction set MKL may use (e.g. AVX2 on an AVX-512 CPU)',
    fix: SAME_ENV
  },
  MKL_DEBUG_CPU_TYPE: {
    impact: 2,
    domains: CPU,
    meaning: "forces MKL's code path for a CPU type",
    fix: SAME_ENV
  },
  OMP_PROC_BIND: {
    impact: 2,
    domains: CPU,
    meaning: 'binds OpenMP threads to places: changes cache sharing and can stack threads on few cores',
    fix: SAME_ENV
  },
  OMP_PLACES: { impact: 2, domains: CPU, meaning: 'where OpenMP threads may run', fix: SAME_ENV },
  GOMP_CPU_AFFINITY: { impact: 2, domains: CPU, meaning: 'pins GNU OpenMP threads to CPUs', fix: SAME_ENV },
  KMP_AFFINITY: { impact: 2, domains: CPU, meaning: 'pins Intel OpenMP threads to CPUs', fix: SAME_ENV },
  OMP_WAIT_POLICY: {
    impact: 2,
    domains: CPU,
    meaning: 'ACTIVE threads spin between parallel regions, PASSIVE threads sleep (latency vs CPU use)',
    fix: SAME_ENV
  },
  KMP_BLOCKTIME: {
    impact: 2,
    domains: CPU,
    meaning: 'how long Intel OpenMP threads spin before sleeping',
    fix: SAME_ENV
  },
  GOMP_SPINCOUNT: {
    impact: 2,
    domains: CPU,
    meaning: 'how long GNU OpenMP threads spin before sleeping',
    fix: SAME_ENV
  },
  OMP_DYNAMIC: {
    impact: 2,
    domains: CPU,
    meaning: 'lets OpenMP use fewer threads than asked',
    fix: SAME_ENV
  },
  LD_PRELOAD: {
    impact: 3,
    domains: ALL,
    meaning:
      'injects libraries into the process (another malloc, a profiler, a shim) ahead of everything else',
    fix: SAME_ENV
  },
  LD_LIBRARY_PATH: {
    impact: 1,
    domains: ALL,
    meaning:
      'where shared libraries are looked up first; the libraries actually loaded are compared separately',
    fix: 'compare the loaded libraries below; make the image find the same ones'
  },
  LD_BIND_NOW: {
    impact: 1,
    domains: ['startup'],
    meaning: 'resolves every symbol at load time (slower start)',
    fix: SAME_ENV
  },
  GLIBC_TUNABLES: {
    impact: 2,
    domains: ['cpu-compute', 'memory'],
    meaning: 'glibc tunables (malloc arenas, thresholds, CPU feature masks)',
    fix: SAME_ENV
  },
  MALLOC_ARENA_MAX: {
    impact: 1,
    domains: ['cpu-compute', 'memory'],
    meaning: 'glibc malloc arena count',
    fix: SAME_ENV
  },
  PYTHONMALLOC: {
    impact: 2,
    domains: ['cpu-compute', 'launch'],
    meaning: "Python's allocator (debug or malloc instead of pymalloc)",
    fix: SAME_ENV
  },
  PYTHONHASHSEED: { impact: 0, domains: [], meaning: 'hash randomisation seed', fix: 'none needed' },
  NCCL_P2P_DISABLE: {
    impact: 3,
    domains: ['comm'],
    meaning: 'turns off peer-to-peer (NVLink/PCIe) transfers between GPUs',
    fix: SAME_ENV
  },
  NCCL_SHM_DISABLE: {
    impact: 3,
    domains: ['comm'],
    meaning: 'turns off shared-memory transport between processes',
    fix: SAME_ENV
  },
  NCCL_IB_DISABLE: { impact: 3, domains: ['comm'], meaning: 'turns off InfiniBand/RoCE', fix: SAME_ENV },
  NCCL_NVLS_ENABLE: {
    impact: 2,
    domains: ['comm'],
    meaning: 'NVLink SHARP (multicast) on or off',
    fix: SAME_ENV
  },
  NCCL_ALGO: { impact: 2, domains: ['comm'], meaning: 'forces the collective algorithm', fix: SAME_ENV },
  NCCL_PROTO: { impact: 2, domains: ['comm'], meaning: 'forces the collective protocol', fix: SAME_ENV },
  NCCL_DEBUG: { impact: 1, domains: ['comm'], meaning: 'NCCL logging', fix: 'unset it outside debugging' },
  // Declarations images carry for tools (the container toolkit, humans); the process ignores them.
  CUDA_VERSION: {
    impact: 0,
    domains: [],
    meaning: "the image's declared CUDA toolkit version (a label; the loaded libraries are what count)",
    fix: 'none needed'
  },
  CUDA_DRIVER_VERSION: {
    impact: 0,
    domains: [],
    meaning: 'the driver the image was built for (a label)',
    fix: 'none needed'
  },
  CUDA_HOME: {
    impact: 0,
    domains: [],
    meaning: 'where build tools look for the CUDA toolkit',
    fix: 'none needed'
  },
  CUDA_PATH: {
    impact: 0,
    domains: [],
    meaning: 'where build tools look for the CUDA toolkit',
    fix: 'none needed'
  },
  NVIDIA_REQUIRE_CUDA: {
    impact: 0,
    domains: [],
    meaning: 'driver requirement checked by the NVIDIA container toolkit at start',
    fix: 'none needed'
  },
  NVIDIA_VISIBLE_DEVICES: {
    impact: 0,
    domains: [],
    meaning: 'GPUs the NVIDIA container toolkit exposes (CUDA_VISIBLE_DEVICES is what the process uses)',
    fix: 'none needed'
  },
  NVIDIA_DRIVER_CAPABILITIES: {
    impact: 0,
    domains: [],
    meaning: 'driver libraries the NVIDIA container toolkit mounts',
    fix: 'none needed'
  },
  NVIDIA_PRODUCT_NAME: { impact: 0, domains: [], meaning: 'image label', fix: 'none needed' },
  NVIDIA_BUILD_ID: { impact: 0, domains: [], meaning: 'image label', fix: 'none needed' },
  NVIDIA_PYTORCH_VERSION: { impact: 0, domains: [], meaning: 'image label', fix: 'none needed' },
  PYTORCH_VERSION: {
    impact: 0,
    domains: [],
    meaning: 'image label (the imported torch version is compared separately)',
    fix: 'none needed'
  },
  PYTORCH_BUILD_VERSION: { impact: 0, domains: [], meaning: 'image label', fix: 'none needed' },
  PYTORCH_BUILD_NUMBER: { impact: 0, domains: [], meaning: 'image label', fix: 'none needed' },
  TORCH_CUDA_ARCH_LIST: {
    impact: 0,
    domains: [],
    meaning:
      'architectures to build CUDA extensions for (build time only; the loaded build is compared separately)',
    fix: 'none needed'
  },
  NCCL_VERSION: { impact: 0, domains: [], meaning: 'image label', fix: 'none needed' },
  PYTORCH_HOME: { impact: 0, domains: [], meaning: 'where torch.hub caches downloads', fix: 'none needed' }
}

/** Families: an unknown variable of one of these is assumed to matter where the family works. */
export const ENV_FAMILIES: readonly {
  prefix: string
  impact: Impact
  domains: readonly Domain[]
  what: string
}[] = [
  { prefix: 'CUBLASLT_', impact: 2, domains: GPU, what: 'a cuBLASLt setting' },
  { prefix: 'CUBLAS_', impact: 2, domains: GPU, what: 'a cuBLAS setting' },
  { prefix: 'CUDNN_', impact: 2, domains: GPU, what: 'a cuDNN setting' },
  { prefix: 'CUFFT_', impact: 2, domains: GPU, what: 'a cuFFT setting' },
  { prefix: 'CURAND_', impact: 1, domains: GPU, what: 'a cuRAND setting' },
  { prefix: 'CUSPARSE_', impact: 2, domains: GPU, what: 'a cuSPARSE setting' },
  {
    prefix: 'CUDA_',
    impact: 2,
    domains: ['gpu-compute', 'launch', 'startup', 'memory'],
    what: 'a CUDA driver/runtime setting'
  },
  { prefix: 'NCCL_', impact: 2, domains: ['comm'], what: 'an NCCL setting' },
  { prefix: 'NVIDIA_', impact: 2, domains: GPU, what: 'an NVIDIA driver or container setting' },
  { prefix: 'NVTE_', impact: 2, domains: GPU, what: 'a TransformerEngine setting' },
  {
    prefix: 'TORCHINDUCTOR_',
    impact: 2,
    domains: ['gpu-compute', 'startup'],
    what: 'a torch.compile (Inductor) setting'
  },
  { prefix: 'TORCH_', impact: 2, domains: COMPUTE, what: 'a PyTorch setting' },
  { prefix: 'PYTORCH_', impact: 2, domains: [...COMPUTE, 'memory'], what: 'a PyTorch setting' },
  { prefix: 'TRITON_', impact: 2, domains: ['gpu-compute', 'startup'], what: 'a Triton setting' },
  { prefix: 'OMP_', impact: 2, domains: CPU, what: 'an OpenMP setting' },
  { prefix: 'GOMP_', impact: 2, domains: CPU, what: 'a GNU OpenMP setting' },
  { prefix: 'KMP_', impact: 2, domains: CPU, what: 'an Intel OpenMP setting' },
  { prefix: 'MKL_', impact: 2, domains: CPU, what: 'an MKL setting' },
  { prefix: 'OPENBLAS_', impact: 2, domains: CPU, what: 'an OpenBLAS setting' },
  { prefix: 'GOTO_', impact: 2, domains: CPU, what: 'an OpenBLAS setting' },
  { prefix: 'BLIS_', impact: 2, domains: CPU, what: 'a BLIS setting' },
  { prefix: 'VECLIB_', impact: 2, domains: CPU, what: 'an Accelerate setting' },
  { prefix: 'NUMEXPR_', impact: 1, domains: CPU, what: 'a numexpr setting' },
  { prefix: 'TF_', impact: 2, domains: COMPUTE, what: 'a TensorFlow setting' },
  { prefix: 'XLA_', impact: 2, domains: [...COMPUTE, 'memory'], what: 'an XLA setting' },
  { prefix: 'JAX_', impact: 2, domains: [...COMPUTE, 'memory'], what: 'a JAX setting' },
  { prefix: 'MALLOC_', impact: 1, domains: ['cpu-compute', 'memory'], what: 'a glibc malloc setting' }
]

/**
 * Variables of one BLAS library only act where that library is loaded: `OPENBLAS_CORETYPE` means
 * nothing to a process whose NumPy runs on the reference BLAS. Matched against the recorded BLAS kind
 * and the BLAS files loaded.
 */
export const LIBRARY_SCOPED_ENV: readonly { prefixes: readonly string[]; library: RegExp }[] = [
  { prefixes: ['OPENBLAS_', 'GOTO_'], library: /openblas/i },
  { prefixes: ['MKL_'], library: /mkl/i },
  { prefixes: ['BLIS_'], library: /blis/i }
]

/** Knowledge of one variable: the table, else its family, else a generic entry (it was recorded, so it is in a family). */
export function envKnowledge(name: string): Knowledge {
  const known = ENV_KNOWLEDGE[name]
  if (known) return known
  const family = ENV_FAMILIES.find(f => name.startsWith(f.prefix))
  if (family)
    return {
      impact: family.impact,
      domains: family.domains,
      meaning: `${family.what} not in this tool's table of known variables; it can change how that library works`,
      fix: SAME_ENV
    }
  return { impact: 1, domains: ALL, meaning: 'an environment variable not in the known table', fix: SAME_ENV }
}

/**
 * Rules for stack facts (flattened keys of the `stack` event), first match wins. Keys that differ
 * by nature between processes or arms (pid, paths of the interpreter) are `ignore`d.
 */
export interface FactRule {
  pattern: RegExp
  ignore?: boolean
  /** The fact matters only when this holds for the two arms' flattened stacks (else impact 0). */
  mattersIf?: (base: ReadonlyMap<string, string>, cand: ReadonlyMap<string, string>) => boolean
  label?: string
  knowledge?: Knowledge
}

const LIB_FIX =
  "build the image from the same library versions as the host, or accept the difference as the image's own"

export const FACT_RULES: readonly FactRule[] = [
  { pattern: /^(python\.executable|python\.compiler|os\.kernel|cpu\.model|cpu\.governor)$/, ignore: true },
  { pattern: /^torch\.cuda\.jit_cache\.(path|exists|files)$/, ignore: true },
  { pattern: /^numpy\.blas\.(loaded|threadpoolctl)(\.|$)/, ignore: true },
  { pattern: /^env\./, ignore: true }, // environment variables get their own findings (envKnowledge)
  {
    pattern: /^torch\.precision\./,
    label: 'precision flag',
    knowledge: {
      impact: 3,
      domains: GPU,
      meaning:
        'a torch precision switch in effect differs: fp32 products/convolutions may run as TF32 or with reduced-precision reductions in one arm only',
      fix: 'set the precision in code (torch.set_float32_matmul_precision, torch.backends.*.allow_tf32) so it does not depend on the image'
    }
  },
  {
    pattern: /^torch\.sdpa\./,
    label: 'attention backend',
    knowledge: {
      impact: 3,
      domains: ['gpu-compute'],
      meaning:
        'the scaled-dot-product-attention backends enabled differ: attention runs another kernel (flash, memory-efficient, cuDNN or math)',
      fix: 'enable the same SDPA backends in both arms (torch.nn.attention.sdpa_kernel)'
    }
  },
  {
    pattern: /^numpy\.blas\.(name|library|config|build\.)/,
    label: 'BLAS library',
    knowledge: {
      impact: 3,
      domains: CPU,
      meaning:
        "NumPy's products run in another BLAS (reference BLAS is unblocked and single-threaded: many times slower than OpenBLAS/MKL)",
      fix: 'install the same BLAS in the image (e.g. libopenblas0-pthread, or NumPy wheels from PyPI that bundle OpenBLAS)'
    }
  },
  {
    pattern: /^numpy\.blas\.threads$|^torch\.num_(interop_)?threads$/,
    label: 'thread count',
    knowledge: {
      impact: 3,
      domains: CPU,
      meaning: 'CPU math uses a different number of threads',
      fix: 'give both arms the same CPUs and thread settings (OMP_NUM_THREADS, container --cpus/--cpuset-cpus)'
    }
  },
  {
    pattern: /^cpu\.(affinity|affinity_count|cgroup_cpu_max|cpu_count)$/,
    label: 'CPU allotment',
    knowledge: {
      impact: 3,
      domains: ['cpu-compute', 'launch'],
      meaning:
        'the arms may run on different CPUs or under a different CPU quota (container --cpus/--cpuset-cpus)',
      fix: 'give the container the same CPUs as the native run, or pin both arms to the same cpuset'
    }
  },
  {
    pattern: /^cpu\.cgroup_memory_max$/,
    label: 'memory limit',
    knowledge: {
      impact: 1,
      domains: ['memory', 'io'],
      meaning: 'a cgroup memory limit applies in one arm (page cache and host memory are capped)',
      fix: 'give the container the memory the job needs (--memory)'
    }
  },
  {
    pattern: /^torch\.cuda\.sass_for_device$/,
    label: 'kernels for this GPU',
    knowledge: {
      impact: 3,
      domains: ['startup', 'gpu-compute'],
      meaning:
        "the torch build has no SASS for this GPU's architecture in one arm: every kernel is JIT-compiled from PTX at first use (slow first kernels; cached only when the JIT cache persists)",
      fix: 'use a torch build whose arch list includes this GPU (TORCH_CUDA_ARCH_LIST), or keep CUDA_CACHE_PATH on a persistent volume'
    }
  },
  {
    pattern: /^torch\.cuda\.jit_cache\.(bytes|disabled)$/,
    label: 'CUDA JIT cache',
    // Nothing is JIT-compiled when the build has SASS for the GPU: the cache is then never read.
    mattersIf: (b, c) =>
      b.get('torch.cuda.sass_for_device') === 'false' || c.get('torch.cuda.sass_for_device') === 'false',
    knowledge: {
      impact: 1,
      domains: ['startup'],
      meaning:
        'the PTX JIT cache holds different amounts: a fresh container starts with an empty cache, so PTX kernels are compiled again in every container',
      fix: 'mount a persistent volume at CUDA_CACHE_PATH (default ~/.nv/ComputeCache), or ship SASS for the GPU'
    }
  },
  {
    pattern: /^torch\.cuda\.module_loading$/,
    label: 'CUDA module loading',
    knowledge: ENV_KNOWLEDGE['CUDA_MODULE_LOADING']!
  },
  {
    pattern: /^torch\.cuda\.(driver|driver_api)$/,
    label: 'driver',
    knowledge: {
      impact: 2,
      domains: ALL,
      meaning:
        'the arms talk to different driver versions (a compat package in the image overrides the host driver)',
      fix: 'remove the cuda-compat libraries from the image or match the host driver'
    }
  },
  {
    pattern:
      /^torch\.cuda\.(runtime|cublas|cublaslt|cudnn|nccl)$|^libraries\.(cudart|cublas|cublaslt|cudnn|nccl|nvrtc|nvjitlink|cusparselt)$/,
    label: 'CUDA library',
    knowledge: {
      impact: 3,
      domains: ['gpu-compute', 'startup', 'memory', 'comm'],
      meaning: 'another version/build of a CUDA library runs the hot path (other kernels and heuristics)',
      fix: LIB_FIX
    }
  },
  {
    pattern: /^torch\.(version|git_version|cuda_build|cuda\.arch_list)/,
    label: 'torch build',
    knowledge: {
      impact: 3,
      domains: ['gpu-compute', 'cpu-compute', 'launch', 'startup', 'memory'],
      meaning: 'another torch build runs the workload',
      fix: LIB_FIX
    }
  },
  {
    pattern: /^numpy\.version$/,
    label: 'NumPy version',
    knowledge: { impact: 2, domains: CPU, meaning: 'another NumPy version runs the CPU math', fix: LIB_FIX }
  },
  {
    pattern: /^libraries\.(blas|lapack)$/,
    label: 'BLAS/LAPACK files loaded',
    knowledge: {
      impact: 2,
      domains: CPU,
      meaning: 'another BLAS/LAPACK library is loaded',
      fix: 'install the same BLAS in the image'
    }
  },
  {
    pattern: /^libraries\.(openmp|malloc)$/,
    label: 'runtime library',
    knowledge: {
      impact: 2,
      domains: ['cpu-compute', 'launch', 'memory'],
      meaning: 'another OpenMP runtime or malloc is loaded',
      fix: LIB_FIX
    }
  },
  {
    pattern: /^python\.(version|implementation)$/,
    label: 'Python',
    knowledge: {
      impact: 2,
      domains: ['launch', 'startup', 'cpu-compute', 'io'],
      meaning: 'another Python interpreter runs the workload (interpreter speed, import time)',
      fix: 'use the same Python version in the image as natively (the `python` input picks the native one)'
    }
  },
  {
    pattern: /^(os\.libc|libraries\.libc)$/,
    label: 'C library',
    knowledge: {
      impact: 1,
      domains: ['cpu-compute', 'startup', 'io'],
      meaning: 'another C library (memcpy, malloc, math functions)',
      fix: LIB_FIX
    }
  },
  {
    pattern: /^libraries\./,
    label: 'loaded library',
    knowledge: { impact: 1, domains: ALL, meaning: 'a different shared library is loaded', fix: LIB_FIX }
  }
]

/** Any other recorded fact that differs. */
export const UNKNOWN_FACT: Knowledge = {
  impact: 1,
  domains: ALL,
  meaning: 'a recorded fact of the stack differs',
  fix: 'make the image match the native stack in this respect'
}
