/** What preflight reports: one result per check (driver gate, GPU checks, mounts). */

// ---- Preflight ----

export type PreflightStatus = 'pass' | 'warn' | 'fail' | 'skip'

export interface PreflightResult {
  /** e.g. `driver-gate`, `mounts`, `persistence-mode`, `mig`. */
  name: string
  status: PreflightStatus
  message: string
  /** How to fix it, when status is warn or fail. */
  fix: string | null
  details?: Record<string, unknown>
}
