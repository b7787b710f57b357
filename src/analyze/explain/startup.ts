/**
 * Start-up phases that took significantly longer in one arm, each with its known causes, checked
 * against the facts the processes recorded (SASS for the GPU in the build, the CUDA JIT cache, module
 * loading). A cause a recorded fact supports is said plainly; otherwise it is labelled unverified.
 */
import type { Comparison } from '../../types/index.js'
import { EXPLAINED_PHASES, isMeasuredDifference } from './measured.js'
import { flatten } from '../../execute/index.js'
import type { ArmStack } from '../../types/index.js'
import type { Finding } from '../../types/index.js'

interface PhaseCause {
  likely: string
  fix: string
}

const PHASE_CAUSES: Readonly<Record<string, PhaseCause>> = {
  interpreter_s: {
    likely:
      'the interpreter and its start-up files are read from the image’s layered file system (cold page cache in a fresh image)',
    fix: 'nothing to fix in steady state; keep the image on local disk'
  },
  imports_s: {
    likely:
      'torch/NumPy and their shared libraries (GBs) are read from the image’s layers with a cold page cache, or another Python/torch version imports more',
    fix: 'compare the Python and torch rows; a warm page cache (a second run) removes the file-system part'
  },
  device_init_s: {
    likely:
      'CUDA context creation loads the driver libraries through the container’s mounts; EAGER module loading loads every kernel now',
    fix: 'use CUDA_MODULE_LOADING=LAZY (the default) in both arms; enable persistence mode on the host'
  },
  first_kernel_s: {
    likely:
      'first kernels load from the image’s library files (cold page cache), and kernels without SASS for this GPU are JIT-compiled from PTX with a cache that starts empty in every fresh container',
    fix: 'ship SASS for the GPU (TORCH_CUDA_ARCH_LIST), or mount a persistent volume at CUDA_CACHE_PATH'
  },
  prepare_s: {
    likely:
      'warm-up and graph capture run each library kernel for the first time: cuBLAS/cuDNN load and tune them lazily, cuDNN compiles its fused attention kernels at run time, and kernels JIT-compiled from PTX go through a cache that starts empty in every fresh container',
    fix: 'nothing to fix in steady state (which gates); mount a persistent volume at CUDA_CACHE_PATH to keep JIT results between containers'
  }
}

function fact(stack: ArmStack | undefined, key: string): string | null {
  return stack ? (flatten(stack.facts).get(key) ?? null) : null
}

/** Recorded facts that support a cause of this phase in the slower arm. */
function evidence(phase: string, slow: ArmStack | undefined, fast: ArmStack | undefined): string[] {
  const out: string[] = []
  if (phase === 'first_kernel_s') {
    if (fact(slow, 'torch.cuda.sass_for_device') === 'false') {
      const arch = fact(slow, 'torch.cuda.device_arch') ?? 'this GPU'
      out.push(`torch in the slower arm has no SASS for ${arch}: its kernels are JIT-compiled from PTX`)
      const sb = Number(fact(slow, 'torch.cuda.jit_cache.bytes') ?? NaN)
      const fb = Number(fact(fast, 'torch.cuda.jit_cache.bytes') ?? NaN)
      if (Number.isFinite(sb) && Number.isFinite(fb) && sb < fb)
        out.push(`its JIT cache held ${sb} B against ${fb} B in the faster arm`)
    }
    if (fact(slow, 'env.CUDA_CACHE_DISABLE') === '1') out.push('CUDA_CACHE_DISABLE=1: the JIT cache is off')
    if (fact(slow, 'env.CUDA_FORCE_PTX_JIT') === '1')
      out.push('CUDA_FORCE_PTX_JIT=1: every kernel is JIT-compiled')
  }
  if (phase === 'device_init_s' || phase === 'first_kernel_s') {
    const ml = fact(slow, 'torch.cuda.module_loading')
    if (ml === 'EAGER' && fact(fast, 'torch.cuda.module_loading') !== 'EAGER')
      out.push('CUDA_MODULE_LOADING=EAGER in the slower arm: every kernel is loaded at start-up')
  }
  if (phase === 'imports_s') {
    for (const key of ['python.version', 'torch.version', 'numpy.version']) {
      const s = fact(slow, key)
      const f = fact(fast, key)
      if (s !== f) out.push(`${key} ${f ?? '∅'} (faster) vs ${s ?? '∅'} (slower)`)
    }
  }
  return out
}

export function startupFindings(
  comparisons: readonly Comparison[],
  stacks: readonly ArmStack[],
  baseEnv: string,
  candEnv: string,
  alpha: number
): Finding[] {
  const out: Finding[] = []
  for (const c of comparisons) {
    if (c.scope !== 'startup' || !EXPLAINED_PHASES.has(c.metric) || !isMeasuredDifference(c, alpha)) continue
    const cause = PHASE_CAUSES[c.metric]
    if (!cause) continue
    const slowEnv = c.overhead_pct >= 0 ? candEnv : baseEnv
    const fastEnv = slowEnv === candEnv ? baseEnv : candEnv
    const find = (env: string): ArmStack | undefined =>
      stacks.find(s => s.environment === env && s.workload === c.workload)
    const ev = evidence(c.metric, find(slowEnv), find(fastEnv))
    const meaning = ev.length
      ? `${slowEnv} is slower in this phase; recorded: ${ev.join('; ')}`
      : `${slowEnv} is slower in this phase; no recorded fact pins the cause — likely (unverified): ${cause.likely}`
    out.push({
      kind: 'startup',
      key: `startup:${c.workload}:${c.metric}`,
      label: `start-up ${c.metric.replace(/_s$/, '')} of ${c.workload}`,
      baseline: `${c.mean_baseline.toFixed(3)} s`,
      candidate: `${c.mean_candidate.toFixed(3)} s`,
      impact: ev.length ? 2 : 1,
      domains: ['startup'],
      explains: [],
      workloads: [c.workload],
      meaning,
      fix: cause.fix,
      relevant: false
    })
  }
  return out
}
