/** Start-up phases: reported, never gating, never in the Holm family. */
import { STARTUP_PHASES } from '../../types/index.js'

/** The phases a workload reports and their total, under bare names and with the samples' seconds suffix. */
const STARTUP_METRICS = new Set([...STARTUP_PHASES, 'total_startup'].flatMap(phase => [phase, `${phase}_s`]))

export function isStartupMetric(metric: string): boolean {
  return STARTUP_METRICS.has(metric)
}
