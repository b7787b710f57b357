/**
 * Differences in what the GPU did during each arm's measured region: SM clocks, throttling, power,
 * utilisation. Conditions more than causes (a slower kernel draws other power), so they rank after
 * configuration differences of the same impact; throttling and clocks can be causes of their own.
 */
import type { Finding, TelemetrySummary } from '../../types/index.js'

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

const fmt = (v: number, unit: string): string => `${v.toFixed(0)}${unit}`

/** One kind of telemetry difference: the figure it reads, when the arms differ enough, how it reads. */
interface TelemetryRule {
  kind: 'clocks' | 'throttling' | 'power' | 'utilization'
  /** The label's start: "<what> during <workload>". */
  what: string
  value: (r: ArmTelemetry) => number | null
  differs: (base: number, cand: number) => boolean
  show: (value: number, r: ArmTelemetry) => string
  impact: Finding['impact']
  domains: Finding['domains']
  meaning: string
  fix: string
}

const RULES: readonly TelemetryRule[] = [
  {
    kind: 'clocks',
    what: 'SM clock',
    value: r => r.sm_clock_mhz,
    differs: (b, c) => Math.abs(pct(b, c)) >= CLOCK_DIFF_PCT,
    show: v => fmt(v, ' MHz'),
    impact: 2,
    domains: ['gpu-compute'],
    meaning:
      'the GPU ran at another SM clock during the measured region: kernels take longer at lower clocks (power or thermal limits, application clocks, a neighbour on the GPU)',
    fix: 'check throttle reasons and power limits; lock clocks the same way for both arms, or run the arms on a cool, idle GPU'
  },
  {
    kind: 'throttling',
    what: 'throttling',
    value: r => r.throttled_fraction,
    differs: (b, c) => Math.abs(c - b) >= THROTTLE_DIFF,
    show: (v, r) =>
      `${(v * 100).toFixed(0)}% of samples${r.reasons?.length ? ` (${r.reasons.join(', ')})` : ''}`,
    impact: 3,
    domains: ['gpu-compute'],
    meaning:
      'one arm ran with the clocks held down (power cap, thermal or power-brake slowdown) for more of its measured region',
    fix: 'interleave arms (the default schedule), cool the GPU between runs, or treat the result as inconclusive; check the cap with nvidia-smi -q -d POWER'
  },
  {
    kind: 'power',
    what: 'board power',
    value: r => r.power_w,
    differs: (b, c) => Math.abs(pct(b, c)) >= POWER_DIFF_PCT,
    show: v => fmt(v, ' W'),
    impact: 1,
    domains: ['gpu-compute'],
    meaning:
      'the arms drew different power while measuring: the GPU did other work per second (another kernel or precision) or ran under another cap',
    fix: 'look at the differences ranked above it; compare power limits (nvidia-smi -q -d POWER)'
  },
  {
    kind: 'utilization',
    what: 'GPU busy',
    value: r => r.util_pct,
    differs: (b, c) => Math.abs(c - b) >= UTIL_DIFF_POINTS,
    show: v => fmt(v, '%'),
    impact: 1,
    domains: ['gpu-compute', 'launch'],
    meaning:
      'NVML utilisation is the share of time some kernel was running: a lower figure means the GPU waited between kernels (launch- or CPU-bound), not that kernels ran slower',
    fix: 'look for CPU-side differences ranked above it (CPU allotment, threads, CUDA_LAUNCH_BLOCKING, Python)'
  }
]

export function telemetryFindings(
  rows: readonly ArmTelemetry[],
  baseEnv: string,
  candEnv: string
): Finding[] {
  const out: Finding[] = []
  for (const b of rows.filter(r => r.environment === baseEnv && r.samples > 0)) {
    const c = rows.find(r => r.environment === candEnv && r.workload === b.workload && r.samples > 0)
    if (!c) continue
    for (const rule of RULES) {
      const bv = rule.value(b)
      const cv = rule.value(c)
      if (bv === null || cv === null || !rule.differs(bv, cv)) continue
      out.push({
        explains: [],
        workloads: [b.workload],
        relevant: false,
        kind: rule.kind,
        key: `telemetry:${rule.kind}:${b.workload}`,
        label: `${rule.what} during ${b.workload}`,
        baseline: rule.show(bv, b),
        candidate: rule.show(cv, c),
        impact: rule.impact,
        domains: [...rule.domains],
        meaning: rule.meaning,
        fix: rule.fix
      })
    }
  }
  return out
}

/** Telemetry rows for the explainer: measured-region figures where the workloads marked a region. */
export function armTelemetry(rows: readonly TelemetrySummary[]): ArmTelemetry[] {
  return rows.map(t => {
    const r = t.region
    const samples = r?.samples ?? t.samples
    const throttled = r ? r.throttled_samples : t.throttled_samples
    return {
      workload: t.workload,
      environment: t.environment,
      samples,
      util_pct: r ? r.util_pct : t.mean_util_pct,
      sm_clock_mhz: r ? r.sm_clock_mhz : t.mean_sm_clock_mhz,
      power_w: r ? r.power_w : t.mean_power_w,
      throttled_fraction: samples > 0 ? throttled / samples : null,
      ...(r ? { reasons: r.reasons } : {})
    }
  })
}
