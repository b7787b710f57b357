/**
 * Which measured differences between the arms need explaining, and which domains each touches:
 * a gated metric that regressed or stayed undecided, or any metric (gated, start-up, memory) that
 * shifted significantly and by more than noise — in either direction.
 */
import { builtinDefinition } from '../../config/index.js'
import type { Comparison } from '../../types/index.js'
import type { Domain } from '../../types/index.js'
import type { MeasuredDifference } from '../../types/index.js'
import { signedPct } from '../../util/text.js'

/** Below these a significant shift is too small to be worth a cause. */
export const STEADY_FLOOR_PCT = 1
export const STARTUP_FLOOR_PCT = 10
export const STARTUP_FLOOR_S = 0.05
export const MEMORY_FLOOR_PCT = 2
export const MEMORY_FLOOR_MIB = 64

/** Per-process memory metrics the runner derives from the `memory` event (all informational by default). */
export const MEMORY_METRIC = /^(gpu_mem_|kv_cache_)/

/**
 * Start-up phases that can have a cause in the stack. launch_s (container creation) is the
 * container's own, expected cost, and the totals only repeat the phases.
 */
export const EXPLAINED_PHASES = new Set([
  'interpreter_s',
  'imports_s',
  'device_init_s',
  'first_kernel_s',
  'prepare_s'
])

export function comparisonDomains(
  c: Pick<Comparison, 'workload' | 'metric' | 'scope'>,
  device: 'gpu' | 'cpu'
): Domain[] {
  if (c.scope === 'startup') return ['startup']
  if (MEMORY_METRIC.test(c.metric)) return ['memory']
  // A built-in's definition says; a user command (or an unknown name of a result file) is compute.
  const domains = builtinDefinition(c.workload)?.domains ?? 'compute'
  if (domains === 'io') return ['io']
  const compute: Domain = device === 'gpu' ? 'gpu-compute' : 'cpu-compute'
  return domains === 'compute-and-launch' ? [compute, 'launch'] : [compute]
}

function significant(c: Comparison, alpha: number): boolean {
  const p = c.scope === 'steady' ? c.p_adjusted : (c.p_gate ?? c.p_adjusted)
  return Number.isFinite(p) && p < alpha
}

export function isMeasuredDifference(c: Comparison, alpha: number): boolean {
  if (c.verdict === 'incomparable') return false
  if (c.scope === 'steady' && c.verdict === 'regression') return true
  // Undecided with a point estimate near zero is noise: no stack difference explains that.
  if (c.scope === 'steady' && c.verdict === 'inconclusive')
    return Math.abs(c.overhead_pct) >= STEADY_FLOOR_PCT
  if (!significant(c, alpha)) return false
  const pct = Math.abs(c.overhead_pct)
  if (c.scope === 'startup')
    return (
      EXPLAINED_PHASES.has(c.metric) &&
      pct >= STARTUP_FLOOR_PCT &&
      Math.abs(c.mean_candidate - c.mean_baseline) >= STARTUP_FLOOR_S
    )
  // Other informational metrics are the writable layer's own cost (OverlayFS), not the stack's.
  if (c.scope === 'info' && !MEMORY_METRIC.test(c.metric)) return false
  if (MEMORY_METRIC.test(c.metric)) {
    const mib = c.unit === 'MiB' ? Math.abs(c.mean_candidate - c.mean_baseline) : Infinity
    return pct >= MEMORY_FLOOR_PCT && mib >= MEMORY_FLOOR_MIB
  }
  return pct >= STEADY_FLOOR_PCT
}

export function measuredDifferences(
  comparisons: readonly Comparison[],
  alpha: number,
  device: 'gpu' | 'cpu'
): MeasuredDifference[] {
  return comparisons
    .filter(c => isMeasuredDifference(c, alpha))
    .map(c => ({
      workload: c.workload,
      metric: c.metric,
      scope: c.scope,
      overhead_pct: c.overhead_pct,
      verdict: c.verdict,
      domains: comparisonDomains(c, device),
      ...(c.shared_levels ? { shared_levels: true } : {}),
      ...(c.far_blocks ? { far_blocks: c.far_blocks } : {})
    }))
}

export function describeDifference(d: MeasuredDifference): string {
  return `${d.workload} ${d.metric} ${signedPct(d.overhead_pct)}`
}
