/**
 * What a fresh container pays that the check no longer repeats: a container arm's processes share one CUDA JIT
 * cache the check keeps for the arm (execute/run-folders.ts `jitCache`, CUDA_CACHE_PATH at
 * JIT_CACHE_CONTAINER_DIR), so only the arm's first process starts with an empty cache, as every production
 * start of the image does unless a persistent volume holds it. Its own record says whether it compiled anything
 * (the cache's files after its warm-up) and what that cost (its first kernel and warm-up against the later
 * processes', which reused the cache).
 */
import { flatten } from '../../execute/index.js'
import { JIT_CACHE_CONTAINER_DIR } from '../../launchers/index.js'
import type { Finding, SampleRecord, StackRecord } from '../../types/index.js'
import { medianSorted } from '../stats/index.js'

/** The start-up phases that JIT-compiled kernels lengthen: first kernel, then warm-up and graph capture. */
const JIT_PHASES = ['first_kernel_s', 'prepare_s'] as const

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(0)} KiB`
}

/** Per run of one arm and workload: first kernel + prepare, seconds (runs that recorded both). */
function jitSeconds(samples: readonly SampleRecord[], env: string, workload: string): Map<number, number> {
  const parts = new Map<number, Map<string, number>>()
  for (const s of samples) {
    if (s.environment !== env || s.workload !== workload || s.scope !== 'startup') continue
    if (!(JIT_PHASES as readonly string[]).includes(s.metric) || !Number.isFinite(s.value)) continue
    const m = parts.get(s.run) ?? new Map<string, number>()
    m.set(s.metric, s.value)
    parts.set(s.run, m)
  }
  const out = new Map<number, number>()
  for (const [run, m] of parts)
    if (JIT_PHASES.every(p => m.has(p)))
      out.set(
        run,
        JIT_PHASES.reduce((a, p) => a + (m.get(p) ?? 0), 0)
      )
  return out
}

/** The finding's key for a workload: the start-up section puts it under that workload's table. */
export function jitCacheKey(workload: string): string {
  return `startup:${workload}:jit-cache`
}

/** One finding per (container arm, workload) whose first process filled the kept cache with JIT-compiled kernels. */
export function jitCacheFindings(
  stacks: readonly StackRecord[],
  samples: readonly SampleRecord[]
): Finding[] {
  const out: Finding[] = []
  // Each arm's and workload's first process: the one that started with the empty cache.
  const firsts = new Map<string, StackRecord>()
  for (const s of stacks) {
    const key = `${s.environment}\u0000${s.workload}`
    const seen = firsts.get(key)
    if (!seen || s.run < seen.run) firsts.set(key, s)
  }
  for (const first of firsts.values()) {
    const { environment: env, workload } = first
    const facts = flatten(first.facts)
    if (facts.get('env.CUDA_CACHE_PATH') !== JIT_CACHE_CONTAINER_DIR) continue
    const files = Number(facts.get('torch.cuda.jit_cache.files') ?? NaN)
    const bytes = Number(facts.get('torch.cuda.jit_cache.bytes') ?? NaN)
    // Nothing compiled into the empty cache: this image's kernels need no JIT on this GPU.
    if (!(files > 0)) continue
    const secs = jitSeconds(samples, env, workload)
    const cold = secs.get(first.run)
    const later = [...secs].filter(([run]) => run > first.run).map(([, v]) => v)
    if (cold === undefined || later.length === 0) continue
    const warm = medianSorted([...later].sort((a, b) => a - b))
    const size = Number.isFinite(bytes) ? ` (${mib(bytes)})` : ''
    out.push({
      kind: 'startup',
      key: jitCacheKey(workload),
      label: `CUDA JIT cache of a fresh container (${workload})`,
      baseline: `${warm.toFixed(2)} s (later processes, median)`,
      candidate: `${cold.toFixed(2)} s (run ${first.run}, empty cache)`,
      impact: 1,
      domains: ['startup'],
      explains: [],
      workloads: [workload],
      meaning:
        `${env} run ${first.run} started with an empty CUDA JIT cache, as every fresh container of this image does, ` +
        `and compiled ${files} file(s)${size} of kernels into it: its first kernel and warm-up took ` +
        `${cold.toFixed(2)} s against ${warm.toFixed(2)} s (median) for its ${later.length} later process(es), which ` +
        `reused the cache this check keeps for the arm (CUDA_CACHE_PATH=${JIT_CACHE_CONTAINER_DIR}; the native arm ` +
        `keeps its own in the runner's home). A start without a kept cache pays about ${Math.max(0, cold - warm).toFixed(2)} s more`,
      fix: 'mount a persistent volume at CUDA_CACHE_PATH in the containers you run, or ship SASS for this GPU in the image (TORCH_CUDA_ARCH_LIST)',
      relevant: false
    })
  }
  return out
}
