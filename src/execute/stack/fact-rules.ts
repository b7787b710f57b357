/**
 * Rules for stack facts (flattened keys of the `stack` event), first match wins. Keys that differ
 * by nature between processes or arms (pid, paths of the interpreter) are `ignore`d.
 */
import { ENV_KNOWLEDGE } from './env-knowledge.js'
import { ALL, CPU, GPU, acts, type Knowledge } from './knowledge.js'
import { must } from '../../util/must.js'

export interface FactRule {
  pattern: RegExp
  ignore?: boolean
  /** Part of the stack digest, never a finding (a fact another key states better). */
  digestOnly?: boolean
  /** The fact matters only when this holds for the two arms' flattened stacks (else impact 0). */
  mattersIf?: (base: ReadonlyMap<string, string>, cand: ReadonlyMap<string, string>) => boolean
  label?: string
  knowledge?: Knowledge
}

const LIB_FIX =
  "build the image from the same library versions as the host, or accept the difference as the image's own"

const SDPA_FIX = 'enable the same SDPA backends in both arms (torch.nn.attention.sdpa_kernel)'

const rule = (pattern: RegExp, label: string, knowledge: Knowledge): FactRule => ({
  pattern,
  label,
  knowledge
})

export const FACT_RULES: readonly FactRule[] = [
  { pattern: /^(python\.executable|python\.compiler|os\.kernel|cpu\.model|cpu\.governor)$/, ignore: true },
  { pattern: /^torch\.cuda\.jit_cache\.(path|exists|files)$/, ignore: true },
  { pattern: /^numpy\.blas\.(loaded|threadpoolctl)(\.|$)/, ignore: true },
  { pattern: /^env\./, ignore: true }, // environment variables get their own findings (envKnowledge)
  rule(
    /^torch\.precision\./,
    'precision flag',
    acts(
      3,
      GPU,
      'a torch precision switch in effect differs: fp32 products/convolutions may run as TF32 or with reduced-precision reductions in one arm only',
      'set the precision in code (torch.set_float32_matmul_precision, torch.backends.*.allow_tf32) so it does not depend on the image'
    )
  ),
  rule(
    /^torch\.sdpa\./,
    'attention backend',
    acts(
      3,
      ['gpu-compute'],
      'the scaled-dot-product-attention backends enabled differ: attention runs another kernel (flash, memory-efficient, cuDNN or math)',
      SDPA_FIX
    )
  ),
  rule(
    /^llm\.(prefill|decode)$/,
    'LLM execution mode',
    acts(
      3,
      ['launch', 'gpu-compute'],
      'one arm replays the prefill or decode as a CUDA graph, the other dispatches every kernel from Python (eager): slower and noisier per request',
      "read the llm workload's stderr in the eager arm: its graph failed to capture or its tokens differed from eager work"
    )
  ),
  rule(
    /^llm\.sdpa_decode$/,
    'attention backend',
    acts(
      3,
      ['gpu-compute'],
      'the decode attention runs another SDPA kernel (cuDNN, memory-efficient or math): the first backend that runs the shapes differs between the arms',
      SDPA_FIX
    )
  ),
  rule(
    /^numpy\.blas\.(name|library|config|build\.)/,
    'BLAS library',
    acts(
      3,
      CPU,
      "NumPy's products run in another BLAS (reference BLAS is unblocked and single-threaded: many times slower than OpenBLAS/MKL)",
      'install the same BLAS in the image (e.g. libopenblas0-pthread, or NumPy wheels from PyPI that bundle OpenBLAS)'
    )
  ),
  rule(
    /^numpy\.blas\.threads$|^torch\.num_(interop_)?threads$/,
    'thread count',
    acts(
      3,
      CPU,
      'CPU math uses a different number of threads',
      'give both arms the same CPUs and thread settings (OMP_NUM_THREADS, container --cpus/--cpuset-cpus)'
    )
  ),
  // /sys/fs/cgroup's own files: a container's limits, but the host's root for a native process, so "no file"
  // against "max 100000" looked like a CPU allotment difference. cpu_limit and memory_limit are the limits in
  // effect; these stay in the digest that keys stored baselines.
  { pattern: /^cpu\.cgroup_(cpu|memory)_max$/, digestOnly: true },
  rule(
    /^cpu\.(affinity|affinity_count|cpu_limit|cpu_count)$/,
    'CPU allotment',
    acts(
      3,
      ['cpu-compute', 'launch'],
      'the arms may run on different CPUs or under a different CPU quota (container --cpus/--cpuset-cpus)',
      'give the container the same CPUs as the native run, or pin both arms to the same cpuset'
    )
  ),
  rule(
    /^launch\.shm_bytes$/,
    'shared memory (/dev/shm)',
    acts(
      2,
      ['comm', 'memory'],
      "/dev/shm is another size in each arm (Docker's default is 64 MiB): DataLoader workers, NCCL and torch.multiprocessing pass tensors through it, and fail or slow down when it is small",
      'launch the container as production does: {{container-args: --ipc=host}} or {{container-args: --shm-size=<size>}} (NGC asks for --ipc=host)'
    )
  ),
  rule(
    /^launch\.ulimit_(memlock|stack)$/,
    'ulimit',
    acts(
      2,
      ['memory', 'comm', 'launch'],
      'a resource limit differs: a small memlock limit keeps CUDA/NCCL/RDMA from pinning host memory (slower copies), a small stack limit breaks deep native call chains',
      'set the limits NGC asks for: {{container-args: --ulimit memlock=-1 --ulimit stack=67108864}}'
    )
  ),
  rule(
    /^launch\.ulimit_(nofile|nproc)$/,
    'ulimit',
    acts(
      1,
      ['io', 'launch'],
      'an open-file or process-count limit differs',
      'set it alike: {{container-args: --ulimit nofile=…}}'
    )
  ),
  rule(
    /^launch\.(uid|gid|image_user)$/,
    'user',
    acts(
      1,
      ['io', 'startup'],
      'the workload runs as another user: caches (CUDA JIT, torch, pip) and writable folders can differ',
      "run both arms as the same user (the image's USER, or {{container-args: --user UID:GID}})"
    )
  ),
  rule(
    /^launch\.(entrypoint|how|workdir)$/,
    'how the process starts',
    acts(
      1,
      ['startup', 'launch'],
      "the container's processes start through the image's ENTRYPOINT (and its WORKDIR), as production runs them: the entrypoint's scripts run first and may set environment variables",
      "none needed when production starts the image the same way; the entrypoint's output is in each run's log"
    )
  ),
  rule(
    /^launch\.ipc$/,
    'IPC namespace',
    acts(
      1,
      ['comm', 'memory'],
      'the container has its own IPC namespace (private shared memory) unless launched with --ipc=host',
      '{{container-args: --ipc=host}} if production launches it that way'
    )
  ),
  { pattern: /^launch\.container_args$/, ignore: true },
  rule(
    /^cpu\.memory_limit$/,
    'memory limit',
    acts(
      1,
      ['memory', 'io'],
      'a cgroup memory limit applies in one arm (page cache and host memory are capped)',
      'give the container the memory the job needs (--memory)'
    )
  ),
  rule(
    /^torch\.cuda\.sass_for_device$/,
    'kernels for this GPU',
    acts(
      3,
      ['startup', 'gpu-compute'],
      "the torch build has no SASS for this GPU's architecture in one arm: every kernel is JIT-compiled from PTX at first use (slow first kernels; cached only when the JIT cache persists)",
      'use a torch build whose arch list includes this GPU (TORCH_CUDA_ARCH_LIST), or keep CUDA_CACHE_PATH on a persistent volume'
    )
  ),
  {
    ...rule(
      /^torch\.cuda\.jit_cache\.(bytes|disabled)$/,
      'CUDA JIT cache',
      acts(
        1,
        ['startup'],
        'the PTX JIT cache holds different amounts: a fresh container starts with an empty cache, so PTX kernels are compiled again in every container',
        'mount a persistent volume at CUDA_CACHE_PATH (default ~/.nv/ComputeCache), or ship SASS for the GPU'
      )
    ),
    // Nothing is JIT-compiled when the build has SASS for the GPU: the cache is then never read.
    mattersIf: (b, c) =>
      b.get('torch.cuda.sass_for_device') === 'false' || c.get('torch.cuda.sass_for_device') === 'false'
  },
  rule(
    /^torch\.cuda\.module_loading$/,
    'CUDA module loading',
    must(ENV_KNOWLEDGE['CUDA_MODULE_LOADING'], 'ENV_KNOWLEDGE describes CUDA_MODULE_LOADING')
  ),
  rule(
    /^torch\.cuda\.(driver|driver_api)$/,
    'driver',
    acts(
      2,
      ALL,
      'the arms talk to different driver versions (a compat package in the image overrides the host driver)',
      'remove the cuda-compat libraries from the image or match the host driver'
    )
  ),
  rule(
    /^torch\.cuda\.(runtime|cublas|cublaslt|cudnn|nccl)$|^libraries\.(cudart|cublas|cublaslt|cudnn|nccl|nvrtc|nvjitlink|cusparselt)$/,
    'CUDA library',
    acts(
      3,
      ['gpu-compute', 'startup', 'memory', 'comm'],
      'another version/build of a CUDA library runs the hot path (other kernels and heuristics)',
      LIB_FIX
    )
  ),
  rule(
    /^torch\.(version|git_version|cuda_build|cuda\.arch_list)/,
    'torch build',
    acts(
      3,
      ['gpu-compute', 'cpu-compute', 'launch', 'startup', 'memory'],
      'another torch build runs the workload',
      LIB_FIX
    )
  ),
  rule(/^numpy\.version$/, 'NumPy version', acts(2, CPU, 'another NumPy version runs the CPU math', LIB_FIX)),
  rule(
    /^libraries\.(blas|lapack)$/,
    'BLAS/LAPACK files loaded',
    acts(2, CPU, 'another BLAS/LAPACK library is loaded', 'install the same BLAS in the image')
  ),
  rule(
    /^libraries\.(openmp|malloc)$/,
    'runtime library',
    acts(2, ['cpu-compute', 'launch', 'memory'], 'another OpenMP runtime or malloc is loaded', LIB_FIX)
  ),
  rule(
    /^python\.(version|implementation)$/,
    'Python',
    acts(
      2,
      ['launch', 'startup', 'cpu-compute', 'io'],
      'another Python interpreter runs the workload (interpreter speed, import time)',
      'use the same Python version in the image as natively (the `python` input picks the native one)'
    )
  ),
  rule(
    /^(os\.libc|libraries\.libc)$/,
    'C library',
    acts(1, ['cpu-compute', 'startup', 'io'], 'another C library (memcpy, malloc, math functions)', LIB_FIX)
  ),
  rule(/^libraries\./, 'loaded library', acts(1, ALL, 'a different shared library is loaded', LIB_FIX))
]

/** Any other recorded fact that differs. */
export const UNKNOWN_FACT: Knowledge = acts(
  1,
  ALL,
  'a recorded fact of the stack differs',
  'make the image match the native stack in this respect'
)
