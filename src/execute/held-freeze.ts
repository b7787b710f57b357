/**
 * When prestart freezes a held container (launch.ts), decided once per check from what the containers report.
 *
 * A held process imports (CPU only, before any CUDA call) while another process measures. Freezing its
 * container from its first event kept whatever the image runs beside the workload (an entrypoint's daemon)
 * from running beside that measurement, but it pushed the container's imports behind the release, onto the
 * check's critical path: 2.5 s of every container process on the H100 (start-up 3.5 s after the release
 * against 0.84 s natively, docs/evidence/2026-12-06-h100-podman-cdi.md). So a held container is frozen once
 * its imports are done, and at that moment it lists every other process it runs (workloads/_peers.py,
 * window "prestart"). Once one lists any, or cannot say, every later held container is frozen from its first
 * event again, and the check's warnings say which container, what ran, and which step measured beside it.
 */
import type { CotenantList } from '../types/index.js'

/** At most this many process names in the warning (the list itself is bounded by the workload). */
const MAX_NAMES = 4

export class HeldFreeze {
  // Set by the first report of another process; from then on every held container freezes from its start.
  private warning: string | null = null

  /** Whether a held container is frozen from its first event (else once its imports are done). */
  get fromStart(): boolean {
    return this.warning !== null
  }

  /**
   * A held container's own report at its hold (`who`: its workload, arm and run; `during`: what measured while
   * it started, null: nothing). Returns the warning when this report is the one that turns the early freeze
   * on, else null.
   */
  observe(list: CotenantList, who: string, during: string | null = null): string | null {
    if (this.fromStart || (list.unavailable === null && list.total === 0)) return null
    const what =
      list.unavailable !== null
        ? `could not list its other processes (${list.unavailable})`
        : `ran ${list.total} other process${list.total === 1 ? '' : 'es'} beside the workload (${names(list)})`
    // A container its own step started ran beside no measurement; one held behind a step ran beside that step.
    const where = during === null ? `the container of ${who}` : `the held container of ${who}`
    const beside = during === null ? '' : ` while ${during} measured (what ran there may have slowed it)`
    this.warning =
      `prestart: ${where} ${what}${beside}; from then on every held container was frozen from its start ` +
      '(its imports then run after its release: a longer check, the same measurements)'
    return this.warning
  }

  /** What the check's warnings say (nothing when every held container ran the workload alone). */
  warnings(): string[] {
    return this.warning === null ? [] : [this.warning]
  }
}

function names(list: CotenantList): string {
  const shown = list.processes.slice(0, MAX_NAMES).map(p => p.name)
  const more = list.total - shown.length
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ')
}
