/**
 * Per-run data of a native-vs-container check on one H200, shaped like shared/DESIGN.md's measurements:
 * 10,000² fp32 matmul 41.0 ms (48.8 TFLOP/s) in both arms, whole process 4.4–4.9 s native vs
 * 4.9–7.7 s in the container, `docker run true` ≈ 220 ms. Fixtures add the statistics on top.
 */
import type { LatencyPercentiles, RunRecord, RunSeries, TelemetrySummary, Workload } from '../../../src/types/index.js'
import {
  IO_PARAMS,
  LLM_PARAMS,
  MATMUL_PARAMS,
  latency,
  normals,
  schedule,
  series,
  telemetrySummary
} from './build.js'

export type Arms = { native: number[]; container: number[] }

export interface H200Data {
  steady: Record<string, Arms>
  startup: Record<string, [phase: string, native: number[], container: number[]][]>
  runs: RunRecord[]
  series: RunSeries[]
  latency: LatencyPercentiles[]
  telemetry: TelemetrySummary[]
  startMs: number
  endMs: number
}

export interface H200Options {
  /** Measured runs per arm. */
  n: number
  workloads: Workload[]
  /** Container matmul kernel time, ms (native is 41.0). */
  matmulContainerMs?: number
  /** Eager-mode LLM decode: launch-bound, TPOT 14–24 ms within one arm. */
  llmEager?: boolean
  seed?: number
  startMs?: number
  /** Measured runs per arm that finished, per workload (a cancelled check). */
  finished?: Partial<Record<Workload, { native: number; container: number }>>
}

const r4 = (x: number): number => Number(x.toFixed(4))

function phases(seed: number, n: number, heavy: boolean): [string, number[], number[]][] {
  const importsContainer = normals(seed + 6, n, 1.92, 0.22)
  // Cold page cache on the image's layers: a few container runs import torch much more slowly.
  if (n > 6) {
    importsContainer[2] = 3.61
    importsContainer[5] = 3.08
  }
  return [
    ['launch_s', normals(seed + 1, n, 0.0042, 0.0004), normals(seed + 2, n, 0.221, 0.012)],
    ['interpreter_s', normals(seed + 3, n, 0.031, 0.002), normals(seed + 4, n, 0.038, 0.003)],
    ['imports_s', normals(seed + 5, n, 1.46, 0.05), importsContainer],
    ['device_init_s', normals(seed + 7, n, 1.62, 0.04), normals(seed + 8, n, 1.98, 0.12)],
    ['first_kernel_s', normals(seed + 9, n, heavy ? 2.91 : 0.318, 0.006), normals(seed + 10, n, heavy ? 2.95 : 0.322, 0.007)]
  ]
}

/** Whole-process wall per run: start-up phases + measured region + teardown. */
function walls(p: [string, number[], number[]][], region: number, teardown: number[], arm: 1 | 2): number[] {
  const n = p[0]![arm].length
  return Array.from({ length: n }, (_, i) => r4(p.reduce((a, ph) => a + ph[arm][i]!, 0) + region + teardown[i]!))
}

export function h200Data(o: H200Options): H200Data {
  const seed = o.seed ?? 1000
  const n = o.n
  const steady: Record<string, Arms> = {}
  const startup: H200Data['startup'] = {}
  const runs: RunRecord[] = []
  const out: RunSeries[] = []
  const lat: LatencyPercentiles[] = []
  const tel: TelemetrySummary[] = []
  let t = o.startMs ?? Date.UTC(2025, 10, 24, 9, 14, 3)
  const startMs = t
  const cut = (w: Workload, arm: 'native' | 'container', v: number[]): number[] =>
    o.finished?.[w] ? v.slice(0, o.finished[w][arm]) : v

  const add = (w: Workload, metric: string, unit: string, native: number[], container: number[]): void => {
    const a = { native: cut(w, 'native', native), container: cut(w, 'container', container) }
    steady[`${w}/${metric}`] = a
    out.push(series(w, metric, unit, 'native', a.native), series(w, metric, unit, 'container', a.container))
  }

  for (const w of o.workloads) {
    let region: number
    let p: [string, number[], number[]][] | null = null
    let wallsN: number[]
    let wallsC: number[]
    let params: Record<string, unknown>
    let telem: Record<string, { util: number; clock: number; power: number; region_s: number }>
    if (w === 'matmul') {
      const nat = normals(seed + 11, n, 41.0, 0.025)
      const con = normals(seed + 12, n, o.matmulContainerMs ?? 41.004, 0.025)
      add(w, 'kernel_ms', 'ms', nat, con)
      add(w, 'tflops', 'TFLOP/s', nat.map(ms => r4(2000 / ms)), con.map(ms => r4(2000 / ms)))
      region = 20 * 0.041
      p = phases(seed + 20, n, false)
      params = MATMUL_PARAMS
      telem = {
        native: { util: 98.9, clock: 1935, power: 612, region_s: region },
        container: { util: 98.9, clock: 1935, power: 611, region_s: region }
      }
    } else if (w === 'llm') {
      const eager = o.llmEager ?? false
      const nat = eager ? normals(seed + 31, n, 18.4, 2.6, 3) : normals(seed + 31, n, 5.12, 0.015)
      const con = eager ? normals(seed + 32, n, 19.1, 2.6, 3) : normals(seed + 32, n, 5.13, 0.015)
      add(w, 'tpot_ms', 'ms', nat, con)
      const tps = (tpot: number): number => r4((1000 * 128) / (9.1 + 127 * tpot))
      add(w, 'tokens_per_s', 'tokens/s', nat.map(tps), con.map(tps))
      region = 8 * (eager ? 2.35 : 0.66)
      p = phases(seed + 40, n, true)
      params = { ...LLM_PARAMS, cuda_graphs: !eager }
      telem = {
        native: { util: eager ? 41.5 : 78.2, clock: 1980, power: eager ? 196 : 288, region_s: region },
        container: { util: eager ? 40.8 : 78.0, clock: 1980, power: eager ? 195 : 287, region_s: region }
      }
      const e = (x: number): number => (eager ? x * 3.6 : x)
      lat.push(
        ...latency('native', (o.finished?.llm?.native ?? n) * 8, [
          ['ttft_ms', 'ms', 9.1, 10.4, 12.8],
          ['tpot_ms', 'ms', e(5.12), e(5.21), e(5.44)],
          ['itl_ms', 'ms', e(5.11), e(5.19), e(6.02)],
          ['e2e_ms', 'ms', e(659), e(672), e(701)],
          ['tokens_per_s', 'tokens/s', r4(194.2 / (eager ? 3.6 : 1)), r4(196.8 / (eager ? 3.6 : 1)), r4(198.5 / (eager ? 3.6 : 1))]
        ], m => (o.finished?.llm?.native ?? n) * 8 * (m === 'itl_ms' ? 127 : 1)),
        ...latency('container', (o.finished?.llm?.container ?? n) * 8, [
          ['ttft_ms', 'ms', 9.2, 10.5, 13.1],
          ['tpot_ms', 'ms', e(5.13), e(5.22), e(5.47)],
          ['itl_ms', 'ms', e(5.12), e(5.2), e(6.1)],
          ['e2e_ms', 'ms', e(661), e(674), e(705)],
          ['tokens_per_s', 'tokens/s', r4(193.6 / (eager ? 3.6 : 1)), r4(196.2 / (eager ? 3.6 : 1)), r4(198.0 / (eager ? 3.6 : 1))]
        ], m => (o.finished?.llm?.container ?? n) * 8 * (m === 'itl_ms' ? 127 : 1))
      )
    } else {
      // The bind-mounted data path (gated): checkpoint write + fsync and cold dataset reads.
      add(w, 'ckpt_write_mb_s', 'MB/s', normals(seed + 51, n, 1486, 22, 2), normals(seed + 52, n, 1481, 22, 2))
      add(w, 'data_read_mb_s', 'MB/s', normals(seed + 53, n, 1517, 26, 2), normals(seed + 54, n, 1521, 26, 2))
      region = 1.92
      params = IO_PARAMS
      telem = {
        native: { util: 0, clock: 345, power: 118, region_s: region },
        container: { util: 0, clock: 345, power: 118, region_s: region }
      }
    }
    const teardownN = normals(seed + 61, n, 0.45, 0.05)
    const teardownC = normals(seed + 62, n, 0.55, 0.05)
    if (p) {
      wallsN = walls(p, region, teardownN, 1)
      wallsC = walls(p, region, teardownC, 2)
      // As the runner records them: spawn → end of the first kernel, and spawn → exit.
      const total = (arm: 1 | 2): number[] => p[0]![arm].map((_, i) => r4(p.reduce((a, ph) => a + ph[arm][i]!, 0)))
      const withTotals: [string, number[], number[]][] = [
        ...p,
        ['total_startup_s', total(1), total(2)],
        ['process_wall_s', wallsN, wallsC]
      ]
      startup[w] = withTotals.map(([ph, a, b]) => [ph, cut(w, 'native', a), cut(w, 'container', b)])
    } else {
      wallsN = normals(seed + 63, n, 0.09 + region + 0.3, 0.04)
      wallsC = normals(seed + 64, n, 0.33 + region + 0.35, 0.04)
    }
    const fin = o.finished?.[w]
    const s = schedule({
      workload: w,
      envs: ['native', 'container'],
      walls: { native: cut(w, 'native', wallsN), container: cut(w, 'container', wallsC) },
      telemetry: telem,
      params,
      startMs: t,
      seed: seed + 70
    })
    if (fin) {
      // The cancelled run: started, never finished.
      const last = s.runs[s.runs.length - 1]!
      s.runs.push({
        ...last,
        environment: last.environment === 'native' ? 'container' : 'native',
        run: last.environment === 'native' ? fin.container + 1 : fin.native + 1,
        start_ms: last.end_ms + 400,
        end_ms: last.end_ms + 400 + 3120,
        exit_code: null,
        status: 'cancelled',
        error: 'cancelled: the runner sent SIGTERM',
        energy_j: null,
        mean_util_pct: null,
        mean_sm_clock_mhz: null,
        mean_power_w: null
      })
      s.endMs = last.end_ms + 400 + 3120
    }
    runs.push(...s.runs)
    tel.push(telemetrySummary(s.runs, w, 'native', region), telemetrySummary(s.runs, w, 'container', region))
    t = s.endMs + 2000
  }
  return { steady, startup, runs, series: out, latency: lat, telemetry: tel, startMs, endMs: t }
}
