/**
 * The progress line's ETA, from the plan: each remaining process is expected to take as long as the processes
 * of its own workload (and kind: warm-up or measured) took so far — an LLM process is not a matmul process.
 * A workload that has not started yet borrows the mean of everything so far. With sequential stopping the
 * remaining plan is an upper bound, so the ETA is too ("≤").
 */
import type { PlannedRun } from '../plan/index.js'

const kindOf = (p: Pick<PlannedRun, 'workload' | 'warmup'>): string =>
  `${p.workload}\u0000${p.warmup ? 'w' : 'm'}`

export class PlanEta {
  private readonly sums = new Map<string, { ms: number; n: number }>()
  private totalMs = 0
  private totalN = 0

  /** One planned slot finished in `ms` (all lanes at once count as one slot). */
  record(p: Pick<PlannedRun, 'workload' | 'warmup'>, ms: number): void {
    const k = kindOf(p)
    const s = this.sums.get(k) ?? { ms: 0, n: 0 }
    s.ms += ms
    s.n++
    this.sums.set(k, s)
    this.totalMs += ms
    this.totalN++
  }

  private estimate(p: Pick<PlannedRun, 'workload' | 'warmup'>): number {
    const own = this.sums.get(kindOf(p))
    if (own) return own.ms / own.n
    // Same workload, other kind (a measured run after its warm-up): closer than the global mean.
    const other = this.sums.get(kindOf({ workload: p.workload, warmup: !p.warmup }))
    if (other) return other.ms / other.n
    return this.totalN ? this.totalMs / this.totalN : 0
  }

  /** Milliseconds the remaining slots should take. */
  remainingMs(remaining: readonly Pick<PlannedRun, 'workload' | 'warmup'>[]): number {
    return remaining.reduce((sum, p) => sum + this.estimate(p), 0)
  }
}
