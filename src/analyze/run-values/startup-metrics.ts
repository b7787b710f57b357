/** Start-up phases: reported, never gating, never in the Holm family. */

/** The phases a workload reports, under their bare names and with the seconds suffix the samples use. */
const STARTUP_PHASES = [
  'launch',
  'interpreter',
  'imports',
  'device_init',
  'first_kernel',
  'prepare',
  'total_startup'
]
const STARTUP_METRICS = new Set(STARTUP_PHASES.flatMap(phase => [phase, `${phase}_s`]))

export function isStartupMetric(metric: string): boolean {
  return STARTUP_METRICS.has(metric)
}
