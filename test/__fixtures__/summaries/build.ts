/**
 * Helpers for typed CheckSummary fixtures. Values come from a seeded generator so every fixture is
 * deterministic; magnitudes follow the H200 measurements in shared/DESIGN.md.
 */
import { seededRandom } from '../../../src/plan/schedule.js'
import type {
  Comparison,
  Direction,
  Fingerprint,
  LatencyPercentiles,
  MetricScope,
  MetricVerdict,
  RunRecord,
  RunSeries,
  TelemetrySummary,
  Workload
} from '../../../src/types/index.js'

/** mulberry32 (the plan's seeded PRNG), so fixtures never change between runs. */
export const rng = seededRandom

/** n normal draws (Box–Muller), rounded to `digits` decimals like a real recorder would. */
export function normals(seed: number, n: number, mean: number, sd: number, digits = 4): number[] {
  const r = rng(seed)
  return Array.from({ length: n }, () => {
    const u = Math.max(r(), 1e-12)
    const v = r()
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
    return Number((mean + sd * z).toFixed(digits))
  })
}

/** n uniform draws in [lo, hi]. */
export function uniforms(seed: number, n: number, lo: number, hi: number, digits = 4): number[] {
  const r = rng(seed)
  return Array.from({ length: n }, () => Number((lo + (hi - lo) * r()).toFixed(digits)))
}

export function mean(v: number[]): number {
  return v.reduce((a, b) => a + b, 0) / v.length
}

export function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export function sd(v: number[]): number {
  const m = mean(v)
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1))
}

function round(x: number, digits = 6): number {
  return Number(x.toFixed(digits))
}

export interface ComparisonSpec {
  workload: string
  metric: string
  unit: string
  direction?: Direction
  scope?: MetricScope
  baseEnv?: string
  candEnv?: string
  base: number[]
  cand: number[]
  /** 95% CI of the overhead in percent; or `ciHalf`, a half-width around the computed overhead. */
  ci?: [number, number]
  ciHalf?: number
  p: number
  pAdjusted?: number
  tostP: number
  marginPct?: number
  verdict: MetricVerdict
  reason: string
  mdePct: number
  runsNeeded?: number | null
}

/** A Comparison whose means, medians, sds and Welch t/df follow from the given per-run values. */
export function comparison(s: ComparisonSpec): Comparison {
  const direction = s.direction ?? 'lower'
  const mb = mean(s.base)
  const mc = mean(s.cand)
  const overhead = direction === 'lower' ? (mc / mb - 1) * 100 : (mb / mc - 1) * 100
  const sb = sd(s.base)
  const sc = sd(s.cand)
  const vb = sb ** 2 / s.base.length
  const vc = sc ** 2 / s.cand.length
  const t = (mc - mb) / Math.sqrt(vb + vc)
  const df = (vb + vc) ** 2 / (vb ** 2 / (s.base.length - 1) + vc ** 2 / (s.cand.length - 1))
  const ci: [number, number] = s.ci ?? [round(overhead - (s.ciHalf ?? 0), 2), round(overhead + (s.ciHalf ?? 0), 2)]
  const half = (ci[1] - ci[0]) / 2
  return {
    workload: s.workload,
    metric: s.metric,
    unit: s.unit,
    direction,
    scope: s.scope ?? 'steady',
    baseline_env: s.baseEnv ?? 'native',
    candidate_env: s.candEnv ?? 'container',
    n_baseline: s.base.length,
    n_candidate: s.cand.length,
    mean_baseline: round(mb),
    mean_candidate: round(mc),
    median_baseline: round(median(s.base)),
    median_candidate: round(median(s.cand)),
    sd_baseline: round(sb),
    sd_candidate: round(sc),
    overhead_pct: round(overhead, 4),
    ci95: { low: ci[0], high: ci[1] },
    ci95_median: { low: round(ci[0] - half * 0.2, 3), high: round(ci[1] + half * 0.2, 3) },
    welch: { t: round(t, 3), df: round(df, 1), p: s.p },
    mann_whitney: { u: Math.round((s.base.length * s.cand.length) / 2), p: Math.min(1, s.p * 1.1), method: 'exact' },
    tost: { margin_pct: s.marginPct ?? 2, p: s.tostP, equivalent: s.tostP < 0.05 },
    p_adjusted: s.pAdjusted ?? s.p,
    mde_pct: s.mdePct,
    runs_needed: s.runsNeeded ?? null,
    outliers: { baseline: [], candidate: [] },
    verdict: s.verdict,
    reason: s.reason
  }
}

export function series(workload: string, metric: string, unit: string, env: string, values: number[]): RunSeries {
  return { workload, metric, unit, environment: env, values }
}

export interface RunTelemetry {
  util: number
  clock: number
  power: number
  /** Seconds of the measured region, for energy. */
  region_s: number
  /** Telemetry samples per second (nvidia-smi at 10 Hz). */
  hz?: number
}

/**
 * RunRecords in an A B B A schedule: one warm-up per arm, then `walls[env][i]` seconds per run.
 * Returns the records and the time the last one ended.
 */
export function schedule(opts: {
  workload: Workload
  envs: [string, string]
  walls: Record<string, number[]>
  telemetry: Record<string, RunTelemetry>
  params: Record<string, unknown>
  startMs: number
  seed: number
  warmupWall?: Record<string, number>
  /** Stop after this many records (a cancelled check); the last one is marked cancelled. */
  cutAfter?: number
}): { runs: RunRecord[]; endMs: number } {
  const r = rng(opts.seed)
  const runs: RunRecord[] = []
  let t = opts.startMs
  const n = Math.max(...opts.envs.map(e => opts.walls[e]!.length))
  const record = (env: string, run: number, warmup: boolean, wall: number): void => {
    const tel = opts.telemetry[env]!
    const util = warmup ? tel.util * 0.8 : Math.max(0, round(tel.util + (r() - 0.5) * 0.6, 1))
    const power = round(tel.power + (r() - 0.5) * tel.power * 0.02, 1)
    const samples = Math.round(wall * (tel.hz ?? 10))
    runs.push({
      workload: opts.workload,
      environment: env,
      run,
      warmup,
      start_ms: t,
      end_ms: t + Math.round(wall * 1000),
      exit_code: 0,
      status: 'ok',
      error: null,
      energy_j: round(power * tel.region_s, 1),
      energy_source: 'nvml',
      mean_util_pct: util,
      mean_sm_clock_mhz: Math.round(tel.clock + (r() - 0.5) * 10),
      mean_power_w: power,
      throttled_samples: 0,
      telemetry_samples: samples,
      params: opts.params
    })
    t += Math.round(wall * 1000) + 400
  }
  const [a, b] = opts.envs
  record(a, 0, true, opts.warmupWall?.[a] ?? opts.walls[a]![0]! * 1.3)
  record(b, 0, true, opts.warmupWall?.[b] ?? opts.walls[b]![0]! * 1.3)
  for (let i = 0; i < n; i++) {
    const order = i % 2 === 0 ? [b, a] : [a, b]
    for (const env of order) {
      const wall = opts.walls[env]![i]
      if (wall === undefined) continue
      record(env, i + 1, false, wall)
    }
  }
  if (opts.cutAfter !== undefined) {
    runs.splice(opts.cutAfter)
    const last = runs[runs.length - 1]!
    Object.assign(last, { status: 'cancelled', exit_code: null, error: 'cancelled: the runner sent SIGTERM', energy_j: null })
    t = last.end_ms
  }
  return { runs, endMs: t }
}

/** Telemetry summary of the measured (non-warm-up, ok) runs of one workload and arm. */
export function telemetrySummary(runs: RunRecord[], workload: string, env: string, region_s: number): TelemetrySummary {
  const rs = runs.filter(r => r.workload === workload && r.environment === env && !r.warmup && r.status === 'ok')
  const energy = mean(rs.map(r => r.energy_j ?? 0))
  return {
    workload,
    environment: env,
    runs: rs.length,
    samples: rs.reduce((a, r) => a + r.telemetry_samples, 0),
    mean_util_pct: round(mean(rs.map(r => r.mean_util_pct ?? 0)), 2),
    mean_sm_clock_mhz: round(mean(rs.map(r => r.mean_sm_clock_mhz ?? 0)), 1),
    mean_power_w: round(mean(rs.map(r => r.mean_power_w ?? 0)), 1),
    energy_j_per_run: round(energy, 1),
    energy_source: 'nvml',
    edp_js: round(energy * region_s, 1),
    throttled_samples: rs.reduce((a, r) => a + r.throttled_samples, 0)
  }
}

export function latency(
  env: string,
  n: number,
  rows: [metric: string, unit: string, p50: number, p90: number, p99: number][],
  count: (metric: string) => number = () => n
): LatencyPercentiles[] {
  return rows.map(([metric, unit, p50, p90, p99]) => ({
    workload: 'llm',
    environment: env,
    metric,
    unit,
    n: count(metric),
    p50,
    p90,
    p99
  }))
}

export const H200_NATIVE: Fingerprint = {
  host: 'gpu-runner-07',
  device: 'gpu',
  gpu_name: 'NVIDIA H200',
  gpu_uuid: 'GPU-5c1e2a7d-8b3f-4e51-9c0a-3f6d2b1e7a94',
  driver: '580.159.04',
  cuda: '13.0',
  image: null,
  image_digest: null,
  runtime: null,
  runtime_version: null,
  gpu_access: null,
  mig_mode: 'Disabled',
  persistence_mode: 'Enabled',
  clocks: 'sm max 1980 MHz, mem 3201 MHz, not locked'
}

export const PYTORCH_IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3'
export const PYTORCH_DIGEST = 'sha256:3f1c9d2b7a6e5f40c8b19e27d4a6f0b3c5e7d9a1b2c4e6f8091a3b5c7d9e0f12'

export const H200_CONTAINER: Fingerprint = {
  ...H200_NATIVE,
  cuda: '13.0.2',
  image: PYTORCH_IMAGE,
  image_digest: PYTORCH_DIGEST,
  runtime: 'docker',
  runtime_version: '20.10.24',
  gpu_access: 'devices'
}

export const MATMUL_PARAMS = { n: 10000, dtype: 'float32', iterations: 20, warmup_iterations: 5 }
export const LLM_PARAMS = {
  model: 'llama-1.1b-random',
  dtype: 'bfloat16',
  batch: 1,
  prompt_tokens: 512,
  output_tokens: 128,
  requests: 8,
  cuda_graphs: true
}
export const IO_PARAMS = { device: 'gpu', checkpoint_mb: 2048 }

export const PATHS = {
  out: 'gpu-overhead-out',
  results: 'gpu-overhead-out/results.jsonl',
  samples: 'gpu-overhead-out/samples.csv',
  telemetry: 'gpu-overhead-out/telemetry.csv',
  report: 'gpu-overhead-out/report.md',
  summary: 'gpu-overhead-out/summary.json'
}

/** Start-up phase comparisons (seconds) for one workload: [phase, native values, container values]. */
export function startupComparisons(
  workload: string,
  phases: [phase: string, native: number[], container: number[]][]
): Comparison[] {
  return phases.map(([phase, base, cand]) => {
    // Start-up CIs are wide; derive one from the spread instead of inventing a tight one.
    const c = ungatedComparison({
      workload,
      metric: phase,
      unit: 's',
      scope: 'startup',
      base,
      cand,
      reason: 'start-up phases are reported, never gated'
    })
    c.welch.p = c.overhead_pct > 5 ? 0.0001 : 0.3
    c.verdict = c.overhead_pct > 5 ? 'regression' : 'equivalent'
    return c
  })
}

/**
 * An ungated comparison (start-up, writable layer): nobody computed its CI, so it is derived from the two
 * arms' spread; Holm p of 1. The caller sets p and the verdict.
 */
function ungatedComparison(
  s: Pick<ComparisonSpec, 'workload' | 'metric' | 'unit' | 'direction' | 'scope' | 'base' | 'cand' | 'reason'>
): Comparison {
  const c = comparison({ ...s, ci: [0, 0], p: 0, tostP: 1, verdict: 'inconclusive', mdePct: 0 })
  const spread = (Math.sqrt(c.sd_baseline ** 2 + c.sd_candidate ** 2) / c.mean_baseline) * 100 * 0.9
  c.ci95 = { low: round(c.overhead_pct - spread, 2), high: round(c.overhead_pct + spread, 2) }
  c.ci95_median = c.ci95
  c.p_adjusted = 1
  return c
}

/**
 * Writable-layer (`info`) comparisons of the io workload, shaped like the H200 measurements: copy-up
 * of an image file costs ms growing with its size (natively the same 1-byte write takes ~15 µs);
 * scratch and small-file throughput on the writable layer are close to native.
 */
export function writableLayerComparisons(seed: number, n: number): Comparison[] {
  const specs: [metric: string, unit: string, direction: Direction, base: number[], cand: number[]][] = [
    ['scratch_write_mb_s', 'MB/s', 'higher', normals(seed + 1, n, 1519, 60, 2), normals(seed + 2, n, 1514, 60, 2)],
    ['scratch_read_mb_s', 'MB/s', 'higher', normals(seed + 3, n, 1619, 70, 2), normals(seed + 4, n, 1694, 70, 2)],
    ['small_files_ops_s', 'ops/s', 'higher', normals(seed + 5, n, 8047, 300, 1), normals(seed + 6, n, 7951, 300, 1)],
    ['copyup_ms@1MiB', 'ms', 'lower', normals(seed + 7, n, 0.0146, 0.001, 5), normals(seed + 8, n, 4.67, 0.35, 3)],
    ['copyup_ms@16MiB', 'ms', 'lower', normals(seed + 9, n, 0.0131, 0.001, 5), normals(seed + 10, n, 18.3, 1.2, 2)],
    ['copyup_ms@128MiB', 'ms', 'lower', normals(seed + 11, n, 0.0131, 0.001, 5), normals(seed + 12, n, 103, 8, 1)]
  ]
  return specs.map(([metric, unit, direction, base, cand]) => {
    const c = ungatedComparison({
      workload: 'io',
      metric,
      unit,
      direction,
      scope: 'info',
      base,
      cand,
      reason: 'Reported for information (container writable layer), never gating.'
    })
    c.welch.p = c.ci95.low > 0 || c.ci95.high < 0 ? 1e-6 : 0.4
    c.verdict = c.ci95.low > 2 ? 'regression' : c.ci95.high < 2 && c.ci95.low > -2 ? 'equivalent' : 'inconclusive'
    return c
  })
}
