/**
 * Families of environment variables (by prefix), for variables not in the known table, and the
 * variables that act only where their library is loaded.
 */
import type { Domain, Impact } from '../../types/index.js'
import { COMM, COMPUTE, CPU, GPU, HOST_MEMORY } from './knowledge.js'

export interface EnvFamily {
  prefix: string
  impact: Impact
  domains: readonly Domain[]
  what: string
}

/** Families that work in the same `domains` with the same `impact`: each prefix with what it sets. */
function families(
  impact: Impact,
  domains: readonly Domain[],
  what: Readonly<Record<string, string>>
): EnvFamily[] {
  return Object.entries(what).map(([prefix, setting]) => ({ prefix, impact, domains, what: setting }))
}

/**
 * Families: an unknown variable of one of these is assumed to matter where the family works. No prefix
 * starts another (CUBLAS_ is not the start of CUBLASLT_), so the order does not matter.
 */
export const ENV_FAMILIES: readonly EnvFamily[] = [
  // CUDA math libraries.
  ...families(2, GPU, {
    CUBLASLT_: 'a cuBLASLt setting',
    CUBLAS_: 'a cuBLAS setting',
    CUDNN_: 'a cuDNN setting',
    CUFFT_: 'a cuFFT setting',
    CUSPARSE_: 'a cuSPARSE setting'
  }),
  ...families(1, GPU, { CURAND_: 'a cuRAND setting' }),
  ...families(2, ['gpu-compute', 'launch', 'startup', 'memory'], { CUDA_: 'a CUDA driver/runtime setting' }),
  ...families(2, COMM, { NCCL_: 'an NCCL setting' }),
  ...families(2, GPU, { NVTE_: 'a TransformerEngine setting' }),
  // An unknown NVIDIA_ variable is weak evidence: images set many as labels (NVIDIA_BUILD_ID, …) or for the
  // container toolkit at start (NVIDIA_VISIBLE_DEVICES, …); the one that acts in the process,
  // NVIDIA_TF32_OVERRIDE, is in the known table. Ranked first, a fixture's label led an undecided DataLoader check.
  ...families(1, GPU, { NVIDIA_: 'an NVIDIA driver or container setting' }),
  // Frameworks and compilers.
  ...families(2, ['gpu-compute', 'startup'], {
    TORCHINDUCTOR_: 'a torch.compile (Inductor) setting',
    TRITON_: 'a Triton setting'
  }),
  ...families(2, COMPUTE, { TORCH_: 'a PyTorch setting', TF_: 'a TensorFlow setting' }),
  ...families(2, [...COMPUTE, 'memory'], {
    PYTORCH_: 'a PyTorch setting',
    XLA_: 'an XLA setting',
    JAX_: 'a JAX setting'
  }),
  // CPU threading runtimes, then CPU math libraries.
  ...families(2, CPU, {
    OMP_: 'an OpenMP setting',
    GOMP_: 'a GNU OpenMP setting',
    KMP_: 'an Intel OpenMP setting'
  }),
  ...families(2, CPU, {
    MKL_: 'an MKL setting',
    OPENBLAS_: 'an OpenBLAS setting',
    GOTO_: 'an OpenBLAS setting',
    BLIS_: 'a BLIS setting',
    VECLIB_: 'an Accelerate setting'
  }),
  ...families(1, CPU, { NUMEXPR_: 'a numexpr setting' }),
  ...families(1, HOST_MEMORY, { MALLOC_: 'a glibc malloc setting' })
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
