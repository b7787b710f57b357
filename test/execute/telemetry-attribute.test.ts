/**
 * Attribution and summaries. Real samples: the lead's H200 recording (test/__fixtures__/nvidia-smi/
 * telemetry-lms.csv), timed by its own nvidia-smi timestamps. Hand-made TelemetrySample/RunRecord
 * objects below are our own types (exact arithmetic checks), not tool output.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunRecord, TelemetrySample } from '../../src/types/index.js'
import {
  attribute,
  edp,
  integratePower,
  summarizeTelemetry,
  withTelemetry
} from '../../src/execute/telemetry-attribute.js'
import {
  DEFAULT_TELEMETRY_FIELDS,
  emptySample,
  parseSmiTimestamp,
  parseTelemetryLine
} from '../../src/execute/telemetry-parse.js'
import { runRecord } from '../helpers/run-record.js'

const recorded: TelemetrySample[] = readFileSync(
  join(process.cwd(), 'test/__fixtures__/nvidia-smi/telemetry-lms.csv'),
  'utf8'
)
  .split('\n')
  .filter(l => l !== '')
  .map(l => {
    const p = parseTelemetryLine(l, DEFAULT_TELEMETRY_FIELDS, 0)!
    return { ...p.sample, time_ms: parseSmiTimestamp(p.smi_timestamp!)! }
  })
const t0 = recorded[0]!.time_ms
const tEnd = recorded.at(-1)!.time_ms
const busy = recorded.filter(s => s.utilization_gpu_pct === 100)
const busyStart = busy[0]!.time_ms
const busyEnd = busy.at(-1)!.time_ms

function power(gpu: number, points: [number, number][]): TelemetrySample[] {
  return points.map(([t, w]) => ({ ...emptySample(t, gpu), power_draw_w: w, utilization_gpu_pct: 50 }))
}

describe('attribute on the recorded H200 samples', () => {
  const [idle, load, all] = attribute(recorded, [
    { start_ms: t0, end_ms: t0 + 4000, gpu_index: 0 },
    { start_ms: busyStart, end_ms: busyEnd },
    { start_ms: t0, end_ms: tEnd }
  ])

  test('idle window: no utilisation, idle clock, ~79 W, energy = power x time', () => {
    expect(idle!.samples).toBe(40)
    expect(idle!.mean_util_pct).toBe(0)
    expect(idle!.mean_sm_clock_mhz).toBe(345)
    expect(idle!.throttled_samples).toBe(0)
    expect(idle!.mean_power_w!).toBeCloseTo(78.8, 0)
    expect(idle!.energy_j!).toBeCloseTo(idle!.mean_power_w! * 4, 0)
    expect(idle!.energy_source).toBe('integrated-power')
  })

  test('load window: full utilisation, power-capped samples counted, power.draw.instant preferred', () => {
    const inside = recorded.filter(s => s.time_ms >= busyStart && s.time_ms <= busyEnd)
    expect(load!.samples).toBe(inside.length)
    expect(load!.mean_util_pct!).toBeGreaterThan(95)
    // 8 SwPowerCap samples in the recording, 6 of them while utilisation was still 100%.
    expect(load!.throttled_samples).toBe(6)
    expect(all!.throttled_samples).toBe(8)
    const meanInstant = inside.reduce((a, s) => a + s.power_draw_instant_w!, 0) / inside.length
    expect(load!.mean_power_w).toBeCloseTo(meanInstant, 9)
    expect(load!.energy_j!).toBeGreaterThan(500 * ((busyEnd - busyStart) / 1000))
  })

  test('whole recording: energy is the sum of its parts', () => {
    const mid = busyStart
    const [a, b] = attribute(recorded, [
      { start_ms: t0, end_ms: mid },
      { start_ms: mid, end_ms: tEnd }
    ])
    expect(all!.samples).toBe(recorded.length)
    expect(a!.energy_j! + b!.energy_j!).toBeCloseTo(all!.energy_j!, 6)
  })
})

describe('integration', () => {
  test('trapezoids, interpolated at the window edges', () => {
    const s = power(0, [
      [0, 0],
      [1000, 100]
    ])
    expect(attribute(s, [{ start_ms: 0, end_ms: 1000 }])[0]!.energy_j).toBeCloseTo(50, 9)
    // p(250) = 25 W, p(750) = 75 W: 0.5 s at a mean of 50 W.
    const w = attribute(s, [{ start_ms: 250, end_ms: 750 }])[0]!
    expect(w.energy_j).toBeCloseTo(25, 9)
    expect(w.samples).toBe(0)
    expect(w.mean_power_w).toBeNull()
  })

  test('a window shorter than the interval still gets energy from its neighbours', () => {
    const s = power(0, [
      [0, 200],
      [100, 200]
    ])
    expect(attribute(s, [{ start_ms: 40, end_ms: 60 }])[0]!.energy_j).toBeCloseTo(4, 9)
  })

  test('edges held flat only within maxGap; gaps longer than maxGap make energy unknown', () => {
    const s = power(0, [
      [100, 100],
      [200, 100]
    ])
    expect(attribute(s, [{ start_ms: 0, end_ms: 300 }])[0]!.energy_j).toBeCloseTo(30, 9)
    expect(attribute(s, [{ start_ms: 0, end_ms: 5000 }])[0]!.energy_j).toBeNull()
    const gap = power(0, [
      [0, 100],
      [100, 100],
      [3000, 100],
      [3100, 100]
    ])
    expect(attribute(gap, [{ start_ms: 0, end_ms: 3100 }])[0]!.energy_j).toBeNull()
    expect(attribute(gap, [{ start_ms: 0, end_ms: 3100 }], { maxGapMs: 5000 })[0]!.energy_j).toBeCloseTo(
      310,
      9
    )
    expect(integratePower([], 0, 10, 1000)).toBeNull()
  })

  test('power.draw.instant is used when present, power.draw otherwise', () => {
    const s = [
      { ...emptySample(0, 0), power_draw_w: 100, power_draw_instant_w: 300 },
      { ...emptySample(1000, 0), power_draw_w: 100, power_draw_instant_w: null }
    ]
    expect(attribute(s, [{ start_ms: 0, end_ms: 1000 }])[0]!.energy_j).toBeCloseTo(200, 9)
  })

  test('all GPUs: power and energy summed, utilisation averaged; one GPU: only its samples', () => {
    const s = [
      ...power(0, [
        [0, 100],
        [1000, 100]
      ]),
      ...power(1, [
        [0, 300],
        [1000, 300]
      ]).map(x => ({ ...x, utilization_gpu_pct: 100 }))
    ]
    const [both, one] = attribute(s, [
      { start_ms: 0, end_ms: 1000 },
      { start_ms: 0, end_ms: 1000, gpu_index: 1 }
    ])
    expect(both).toMatchObject({ samples: 4, mean_power_w: 400, mean_util_pct: 75, gpu_index: null })
    expect(both!.energy_j).toBeCloseTo(400, 9)
    expect(one).toMatchObject({ samples: 2, mean_power_w: 300, mean_util_pct: 100, gpu_index: 1 })
    expect(attribute(s, [{ start_ms: 0, end_ms: 1000, gpu_index: 7 }])[0]).toMatchObject({
      samples: 0,
      energy_j: null,
      energy_source: null
    })
  })

  test('edp', () => {
    expect(edp(100, 2)).toBe(200)
    expect(edp(null, 2)).toBeNull()
    expect(edp(1, Number.NaN)).toBeNull()
  })
})

function run(over: Partial<RunRecord>): RunRecord {
  return runRecord({ end_ms: 2000, ...over })
}

describe('withTelemetry and summarizeTelemetry', () => {
  const window = attribute(
    power(0, [
      [0, 100],
      [1000, 100],
      [2000, 100]
    ]),
    [{ start_ms: 0, end_ms: 2000 }]
  )[0]!

  test('withTelemetry fills the run, keeping NVML energy', () => {
    expect(withTelemetry(run({}), window)).toMatchObject({
      energy_j: 200,
      energy_source: 'integrated-power',
      mean_power_w: 100,
      telemetry_samples: 3
    })
    expect(withTelemetry(run({ energy_j: 190, energy_source: 'nvml' }), window)).toMatchObject({
      energy_j: 190,
      energy_source: 'nvml',
      mean_power_w: 100
    })
  })

  test('one row per (workload, environment); warm-ups and failed runs left out; NVML preferred', () => {
    const runs = [
      run({ run: 1, warmup: true, energy_j: 999, energy_source: 'integrated-power', telemetry_samples: 5 }),
      run({
        run: 1,
        energy_j: 200,
        energy_source: 'integrated-power',
        telemetry_samples: 10,
        mean_util_pct: 90,
        mean_power_w: 100,
        throttled_samples: 1
      }),
      run({
        run: 2,
        energy_j: 180,
        energy_source: 'nvml',
        telemetry_samples: 30,
        mean_util_pct: 50,
        mean_power_w: 200
      }),
      run({ run: 3, status: 'failed', energy_j: 5, energy_source: 'nvml', telemetry_samples: 3 }),
      run({
        environment: 'container',
        energy_j: 300,
        energy_source: 'integrated-power',
        telemetry_samples: 20,
        end_ms: 3000
      }),
      run({ workload: 'io', environment: 'container' })
    ]
    const rows = summarizeTelemetry(runs)
    expect(rows).toHaveLength(3)
    expect(rows[0]).toEqual({
      workload: 'matmul',
      environment: 'native',
      runs: 2,
      samples: 40,
      mean_util_pct: (90 * 10 + 50 * 30) / 40,
      mean_sm_clock_mhz: null,
      mean_power_w: (100 * 10 + 200 * 30) / 40,
      energy_j_per_run: 180,
      energy_source: 'nvml',
      edp_js: 180 * 2,
      throttled_samples: 1,
      // No run marked a measured region.
      region: null
    })
    expect(rows[1]).toMatchObject({
      environment: 'container',
      energy_j_per_run: 300,
      energy_source: 'integrated-power',
      edp_js: 900
    })
    expect(rows[2]).toMatchObject({
      workload: 'io',
      runs: 1,
      samples: 0,
      energy_j_per_run: null,
      energy_source: null,
      edp_js: null
    })
  })

  test('EDP delay can be the measured region instead of the run wall time', () => {
    const rows = summarizeTelemetry([run({ energy_j: 100, energy_source: 'nvml' })], {
      delaySeconds: () => 0.5
    })
    expect(rows[0]!.edp_js).toBe(50)
  })
})

test('region figures: sample-weighted over the runs that marked a measured region', () => {
  const region = (samples: number, util: number, reasons: string[] = []) => ({
    seconds: 2,
    samples,
    util_pct: util,
    sm_clock_mhz: 1980,
    power_w: 600,
    energy_j: 1200,
    throttled_samples: reasons.length ? 1 : 0,
    reasons
  })
  const rows = summarizeTelemetry([
    run({ run: 1, telemetry_samples: 60, mean_util_pct: 40, region: region(20, 99) }),
    run({ run: 2, telemetry_samples: 60, mean_util_pct: 40, region: region(30, 94, ['SwPowerCap']) })
  ])
  expect(rows[0]!.mean_util_pct).toBe(40)
  expect(rows[0]!.region).toEqual({
    samples: 50,
    util_pct: (99 * 20 + 94 * 30) / 50,
    sm_clock_mhz: 1980,
    power_w: 600,
    energy_j_per_run: 1200,
    throttled_samples: 1,
    reasons: ['SwPowerCap']
  })
})
