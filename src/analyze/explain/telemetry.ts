/**
 * Differences in what the GPU did during each arm's measured region: SM clocks, throttling, power,
 * utilisation. Conditions more than causes (a slower kernel draws other power), so they rank after
 * configuration differences of the same impact; throttling and clocks can be causes of their own.
 */
import type { Finding } from '../../types/index.js'

/** One (workload, arm) row of telemetry over the measured region (whole-process figures when no region was marked). */
export interface ArmTelemetry {
  workload: string
  environment: string
  samples: number
  util_pct: number | null
  sm_clock_mhz: number | null
  power_w: number | null
  /** Share of samples with a throttling clock-event reason, 0..1. */
  throttled_fraction: number | null
  /** Names of the throttle reasons seen, e.g. SwPowerCap. */
  reasons?: string[]
}

export const CLOCK_DIFF_PCT = 2
export const THROTTLE_DIFF = 0.1
export const POWER_DIFF_PCT = 10
export const UTIL_DIFF_POINTS = 5

function pct(a: number, b: number): number {
  return a === 0 ? 0 : ((b - a) / a) * 100
}

const fmt = (v: number | null, unit: string, digits = 0): string | null =>
  v === null ? null : `${v.toFixed(digits)}${unit}`

export function telemetryFindings(
  rows: readonly ArmTelemetry[],
  baseEnv: string,
  candEnv: string
): Finding[] {
  const out: Finding[] = []
  for (const b of rows.filter(r => r.environment === baseEnv && r.samples > 0)) {
    const c = rows.find(r => r.environment === candEnv && r.workload === b.workload && r.samples > 0)
    if (!c) continue
    const base = { explains: [], workloads: [b.workload], relevant: false }
    if (
      b.sm_clock_mhz !== null &&
      c.sm_clock_mhz !== null &&
      Math.abs(pct(b.sm_clock_mhz, c.sm_clock_mhz)) >= CLOCK_DIFF_PCT
    )
      out.push({
        ...base,
        kind: 'clocks',
        key: `telemetry:clocks:${b.workload}`,
        label: `SM clock during ${b.workload}`,
        baseline: fmt(b.sm_clock_mhz, ' MHz'),
        candidate: fmt(c.sm_clock_mhz, ' MHz'),
        impact: 2,
        domains: ['gpu-compute'],
        meaning:
          'the GPU ran at another SM clock during the measured region: kernels take longer at lower clocks (power or thermal limits, application clocks, a neighbour on the GPU)',
        fix: 'check throttle reasons and power limits; lock clocks the same way for both arms, or run the arms on a cool, idle GPU'
      })
    const bt = b.throttled_fraction
    const ct = c.throttled_fraction
    if (bt !== null && ct !== null && Math.abs(ct - bt) >= THROTTLE_DIFF)
      out.push({
        ...base,
        kind: 'throttling',
        key: `telemetry:throttling:${b.workload}`,
        label: `throttling during ${b.workload}`,
        baseline: `${(bt * 100).toFixed(0)}% of samples${b.reasons?.length ? ` (${b.reasons.join(', ')})` : ''}`,
        candidate: `${(ct * 100).toFixed(0)}% of samples${c.reasons?.length ? ` (${c.reasons.join(', ')})` : ''}`,
        impact: 3,
        domains: ['gpu-compute'],
        meaning:
          'one arm ran with the clocks held down (power cap, thermal or power-brake slowdown) for more of its measured region',
        fix: 'interleave arms (the default schedule), cool the GPU between runs, or treat the result as inconclusive; check the cap with nvidia-smi -q -d POWER'
      })
    if (b.power_w !== null && c.power_w !== null && Math.abs(pct(b.power_w, c.power_w)) >= POWER_DIFF_PCT)
      out.push({
        ...base,
        kind: 'power',
        key: `telemetry:power:${b.workload}`,
        label: `board power during ${b.workload}`,
        baseline: fmt(b.power_w, ' W'),
        candidate: fmt(c.power_w, ' W'),
        impact: 1,
        domains: ['gpu-compute'],
        meaning:
          'the arms drew different power while measuring: the GPU did other work per second (another kernel or precision) or ran under another cap',
        fix: 'look at the differences ranked above it; compare power limits (nvidia-smi -q -d POWER)'
      })
    if (b.util_pct !== null && c.util_pct !== null && Math.abs(c.util_pct - b.util_pct) >= UTIL_DIFF_POINTS)
      out.push({
        ...base,
        kind: 'utilization',
        key: `telemetry:utilization:${b.workload}`,
        label: `GPU busy during ${b.workload}`,
        baseline: fmt(b.util_pct, '%'),
        candidate: fmt(c.util_pct, '%'),
        impact: 1,
        domains: ['gpu-compute', 'launch'],
        meaning:
          'NVML utilisation is the share of time some kernel was running: a lower figure means the GPU waited between kernels (launch- or CPU-bound), not that kernels ran slower',
        fix: 'look for CPU-side differences ranked above it (CPU allotment, threads, CUDA_LAUNCH_BLOCKING, Python)'
      })
  }
  return out
}
