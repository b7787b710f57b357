/**
 * Environment variables that can make the arms differ: a table of known ones (one-line meaning + fix
 * each); an unknown one falls back to its family (env-families.ts).
 */
import type { Domain } from '../../types/index.js'
import { ENV_FAMILIES } from './env-families.js'
import {
  ALL,
  COMM,
  CPU,
  GPU,
  HOST_MEMORY,
  SAME_ENV,
  acts,
  debugging,
  inert,
  type Knowledge
} from './knowledge.js'
import { own } from '../../util/own.js'

const LAUNCH: readonly Domain[] = ['gpu-compute', 'launch']
const ALLOCATOR: readonly Domain[] = ['memory', 'gpu-compute']
const STARTUP: readonly Domain[] = ['startup']
const IMAGE_LABEL = 'image label'
const BUILD_TOOLKIT = 'where build tools look for the CUDA toolkit'

/** Known variables. Keys are exact names. */
export const ENV_KNOWLEDGE: Readonly<Record<string, Knowledge>> = {
  NVIDIA_TF32_OVERRIDE: acts(
    3,
    GPU,
    'NVIDIA_TF32_OVERRIDE=0 turns TF32 off inside cuBLAS/cuDNN for the whole process, whatever the framework asks: fp32 products that were allowed to use TF32 tensor cores run as full fp32 (several times slower)',
    `remove NVIDIA_TF32_OVERRIDE from the image (NGC images do not set it) or ${SAME_ENV}`
  ),
  TORCH_ALLOW_TF32_CUBLAS_OVERRIDE: acts(
    3,
    GPU,
    'forces torch.backends.cuda.matmul.allow_tf32 on: fp32 matrix products run as TF32 (faster, ~10-bit mantissa)',
    `remove it, or ${SAME_ENV}; set the precision in code (torch.set_float32_matmul_precision)`
  ),
  TORCH_BLAS_PREFER_CUBLASLT: acts(
    3,
    GPU,
    'makes torch route products through cuBLASLt instead of cuBLAS (other kernels and heuristics)'
  ),
  CUBLAS_WORKSPACE_CONFIG: acts(
    3,
    GPU,
    'sets the size and count of cuBLAS workspaces (e.g. :4096:8 or :16:8 for deterministic runs); small workspaces rule out the fastest split-K algorithms',
    `${SAME_ENV}; unset it unless you need bit-wise determinism`
  ),
  CUBLASLT_WORKSPACE_SIZE: acts(
    3,
    GPU,
    "size (KiB) of the cuBLASLt workspace torch allocates; a smaller one rules out some of cuBLASLt's algorithms"
  ),
  CUBLAS_LOGINFO_DBG: debugging(2, GPU, 'cuBLAS API logging: every call is formatted and written out'),
  CUBLASLT_LOG_LEVEL: debugging(
    2,
    GPU,
    'cuBLASLt logging level; any level above 0 logs calls and slows them'
  ),
  CUDNN_LOGINFO_DBG: debugging(2, GPU, 'cuDNN API logging: slows every cuDNN call'),
  CUDNN_LOGLEVEL_DBG: debugging(2, GPU, 'cuDNN (v9) logging level; above 0 slows every call'),
  CUDA_LAUNCH_BLOCKING: debugging(
    3,
    LAUNCH,
    'CUDA_LAUNCH_BLOCKING=1 makes every kernel launch wait for the kernel: the CPU can no longer queue work ahead, so launch-bound work (decode) slows a lot'
  ),
  CUDA_DEVICE_MAX_CONNECTIONS: acts(
    2,
    LAUNCH,
    'number of hardware work queues a context uses; 1 serialises streams (Megatron sets it on purpose)'
  ),
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: acts(
    3,
    GPU,
    'under MPS, the share of SMs this client may use: below 100 the GPU is partly withheld'
  ),
  CUDA_MPS_PIPE_DIRECTORY: acts(
    2,
    ['gpu-compute', 'memory'],
    'points the process at an MPS daemon: it shares the GPU with other MPS clients',
    'run both arms with or both without MPS'
  ),
  CUDA_MODULE_LOADING: acts(
    2,
    ['startup', 'memory'],
    'LAZY (default since CUDA 12.2) loads kernels at first use; EAGER loads every kernel of every library at start-up (slower start, hundreds of MiB more device memory)',
    `${SAME_ENV}; LAZY unless a kernel must not load mid-run`
  ),
  CUDA_CACHE_DISABLE: acts(
    2,
    STARTUP,
    'CUDA_CACHE_DISABLE=1 turns off the PTX JIT cache: kernels without SASS for this GPU are compiled again in every process',
    'unset it'
  ),
  CUDA_CACHE_PATH: acts(
    1,
    STARTUP,
    'where the PTX JIT cache lives; a path on the container writable layer starts empty in every container',
    'mount a persistent volume at this path in the container, or ship SASS for the GPU in the image'
  ),
  CUDA_CACHE_MAXSIZE: acts(
    1,
    STARTUP,
    'size limit of the PTX JIT cache; too small and JIT results are evicted between runs'
  ),
  CUDA_FORCE_PTX_JIT: acts(
    2,
    ['startup', 'gpu-compute'],
    'CUDA_FORCE_PTX_JIT=1 ignores shipped SASS and JIT-compiles every kernel from PTX',
    'unset it'
  ),
  CUDA_DISABLE_PTX_JIT: acts(
    1,
    STARTUP,
    'CUDA_DISABLE_PTX_JIT=1 refuses PTX JIT: kernels without SASS for this GPU fail to load'
  ),
  CUDA_VISIBLE_DEVICES: acts(
    2,
    ALL,
    'which GPUs the process sees and in which order: the arms may run on different GPUs',
    'pin both arms to the same GPU (the `gpus` input)'
  ),
  CUDA_DEVICE_ORDER: acts(
    1,
    ALL,
    'FASTEST_FIRST (default) or PCI_BUS_ID: the same index can name another GPU',
    'set CUDA_DEVICE_ORDER=PCI_BUS_ID in both arms'
  ),
  PYTORCH_CUDA_ALLOC_CONF: acts(
    2,
    ALLOCATOR,
    "configures torch's caching allocator (expandable_segments, max_split_size_mb, garbage_collection_threshold): changes fragmentation, memory held and allocation cost"
  ),
  PYTORCH_ALLOC_CONF: acts(
    2,
    ALLOCATOR,
    "configures torch's caching allocator (newer name of PYTORCH_CUDA_ALLOC_CONF)"
  ),
  PYTORCH_NO_CUDA_MEMORY_CACHING: acts(
    3,
    ['memory', 'gpu-compute', 'launch'],
    'PYTORCH_NO_CUDA_MEMORY_CACHING=1 disables the caching allocator: every tensor is a cudaMalloc/cudaFree (synchronising, slow)',
    'unset it outside memory debugging'
  ),
  TORCH_CUDNN_V8_API_DISABLED: acts(
    2,
    GPU,
    'falls back from the cuDNN v8 frontend API to the legacy one (other kernels)'
  ),
  TORCH_USE_CUDA_DSA: debugging(2, GPU, 'device-side assertions: extra checks inside kernels'),
  TORCH_SHOW_CPP_STACKTRACES: inert('prints C++ stack traces on errors only'),
  OMP_NUM_THREADS: acts(
    3,
    CPU,
    'number of OpenMP threads (torch intra-op, OpenBLAS/MKL built with OpenMP): fewer threads, slower CPU math',
    `${SAME_ENV}; the default is one per CPU in the affinity mask`
  ),
  MKL_NUM_THREADS: acts(3, CPU, 'threads MKL uses for BLAS/LAPACK'),
  OPENBLAS_NUM_THREADS: acts(3, CPU, 'threads OpenBLAS uses (NumPy matmul on CPU)'),
  GOTO_NUM_THREADS: acts(3, CPU, 'threads OpenBLAS uses (old name)'),
  BLIS_NUM_THREADS: acts(3, CPU, 'threads BLIS uses'),
  VECLIB_MAXIMUM_THREADS: acts(2, CPU, 'threads Apple Accelerate uses'),
  NUMEXPR_NUM_THREADS: acts(1, CPU, 'threads numexpr uses'),
  OPENBLAS_CORETYPE: acts(
    2,
    CPU,
    'forces the kernels of one CPU family in OpenBLAS instead of the detected one (e.g. Haswell kernels on an AVX-512 CPU)',
    `${SAME_ENV}; leave it unset to use the kernels detected for this CPU`
  ),
  OPENBLAS_VERBOSE: inert('prints the kernels OpenBLAS picked'),
  MKL_CBWR: acts(
    2,
    CPU,
    'conditional numerical reproducibility: MKL uses one fixed (often slower) code path'
  ),
  MKL_ENABLE_INSTRUCTIONS: acts(2, CPU, 'caps the instruction set MKL may use (e.g. AVX2 on an AVX-512 CPU)'),
  MKL_DEBUG_CPU_TYPE: acts(2, CPU, "forces MKL's code path for a CPU type"),
  OMP_PROC_BIND: acts(
    2,
    CPU,
    'binds OpenMP threads to places: changes cache sharing and can stack threads on few cores'
  ),
  OMP_PLACES: acts(2, CPU, 'where OpenMP threads may run'),
  GOMP_CPU_AFFINITY: acts(2, CPU, 'pins GNU OpenMP threads to CPUs'),
  KMP_AFFINITY: acts(2, CPU, 'pins Intel OpenMP threads to CPUs'),
  OMP_WAIT_POLICY: acts(
    2,
    CPU,
    'ACTIVE threads spin between parallel regions, PASSIVE threads sleep (latency vs CPU use)'
  ),
  KMP_BLOCKTIME: acts(2, CPU, 'how long Intel OpenMP threads spin before sleeping'),
  GOMP_SPINCOUNT: acts(2, CPU, 'how long GNU OpenMP threads spin before sleeping'),
  OMP_DYNAMIC: acts(2, CPU, 'lets OpenMP use fewer threads than asked'),
  LD_PRELOAD: acts(
    3,
    ALL,
    'injects libraries into the process (another malloc, a profiler, a shim) ahead of everything else'
  ),
  LD_LIBRARY_PATH: acts(
    1,
    ALL,
    'where shared libraries are looked up first; the libraries actually loaded are compared separately',
    'compare the loaded libraries below; make the image find the same ones'
  ),
  LD_BIND_NOW: acts(1, STARTUP, 'resolves every symbol at load time (slower start)'),
  GLIBC_TUNABLES: acts(2, HOST_MEMORY, 'glibc tunables (malloc arenas, thresholds, CPU feature masks)'),
  MALLOC_ARENA_MAX: acts(1, HOST_MEMORY, 'glibc malloc arena count'),
  PYTHONMALLOC: acts(
    2,
    ['cpu-compute', 'launch'],
    "Python's allocator (debug or malloc instead of pymalloc)"
  ),
  PYTHONHASHSEED: inert('hash randomisation seed'),
  NCCL_P2P_DISABLE: acts(3, COMM, 'turns off peer-to-peer (NVLink/PCIe) transfers between GPUs'),
  NCCL_SHM_DISABLE: acts(3, COMM, 'turns off shared-memory transport between processes'),
  NCCL_IB_DISABLE: acts(3, COMM, 'turns off InfiniBand/RoCE'),
  NCCL_NVLS_ENABLE: acts(2, COMM, 'NVLink SHARP (multicast) on or off'),
  NCCL_ALGO: acts(2, COMM, 'forces the collective algorithm'),
  NCCL_PROTO: acts(2, COMM, 'forces the collective protocol'),
  NCCL_DEBUG: debugging(1, COMM, 'NCCL logging'),
  // Declarations images carry for tools (the container toolkit, humans); the process ignores them.
  CUDA_VERSION: inert(
    "the image's declared CUDA toolkit version (a label; the loaded libraries are what count)"
  ),
  CUDA_DRIVER_VERSION: inert('the driver the image was built for (a label)'),
  CUDA_HOME: inert(BUILD_TOOLKIT),
  CUDA_PATH: inert(BUILD_TOOLKIT),
  NVIDIA_REQUIRE_CUDA: inert('driver requirement checked by the NVIDIA container toolkit at start'),
  NVIDIA_VISIBLE_DEVICES: inert(
    'GPUs the NVIDIA container toolkit exposes (CUDA_VISIBLE_DEVICES is what the process uses)'
  ),
  NVIDIA_DRIVER_CAPABILITIES: inert('driver libraries the NVIDIA container toolkit mounts'),
  NVIDIA_PRODUCT_NAME: inert(IMAGE_LABEL),
  NVIDIA_BUILD_ID: inert(IMAGE_LABEL),
  NVIDIA_PYTORCH_VERSION: inert(IMAGE_LABEL),
  PYTORCH_VERSION: inert('image label (the imported torch version is compared separately)'),
  PYTORCH_BUILD_VERSION: inert(IMAGE_LABEL),
  PYTORCH_BUILD_NUMBER: inert(IMAGE_LABEL),
  TORCH_CUDA_ARCH_LIST: inert(
    'architectures to build CUDA extensions for (build time only; the loaded build is compared separately)'
  ),
  NCCL_VERSION: inert(IMAGE_LABEL),
  PYTORCH_HOME: inert('where torch.hub caches downloads')
}

/** Knowledge of one variable: the table, else its family, else a generic entry (it was recorded, so it is in a family). */
export function envKnowledge(name: string): Knowledge {
  const known = own(ENV_KNOWLEDGE, name)
  if (known) return known
  const family = ENV_FAMILIES.find(f => name.startsWith(f.prefix))
  if (family)
    return acts(
      family.impact,
      family.domains,
      `${family.what} not in this tool's table of known variables; it can change how that library works`
    )
  return acts(1, ALL, 'an environment variable not in the known table')
}
