/** Measured-region markers from REAL workload output (test/__fixtures__/stacks) and GPU memory records. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { memoryRecords, parseEventLine, regionTelemetry, regionWindows } from '../../src/execute/index.js'
import type { TelemetrySample } from '../../src/types/index.js'

function lines(name: string): unknown[] {
  return fs
    .readFileSync(path.resolve('test/__fixtures__/stacks', `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => parseEventLine(l))
}

test('the runner accepts the stack and region events of a real run', () => {
  const ev = lines('cpu-native-refblas')
  expect(ev.every(e => e !== null)).toBe(true)
  const kinds = ev.map(e => (e as { event: string }).event)
  expect(kinds).toEqual(expect.arrayContaining(['stack', 'region']))
})

test('one window per start/end pair, enclosing the measured samples', () => {
  const ev = lines('cpu-native-refblas') as { event: string; epoch_s?: number; measured_s?: number }[]
  const w = regionWindows(ev)
  expect(w).toHaveLength(1)
  const summary = ev.find(e => e.event === 'summary')!
  expect((w[0]!.end_ms - w[0]!.start_ms) / 1000).toBeGreaterThanOrEqual(summary.measured_s! - 0.01)
})

test('unpaired and malformed markers are dropped, never guessed', () => {
  const w = regionWindows([
    { event: 'region', edge: 'end', epoch_s: 1 },
    { event: 'region', edge: 'start', epoch_s: 2 },
    { event: 'region', edge: 'start', epoch_s: 'x' },
    { event: 'region', edge: 'end', epoch_s: 3 },
    { event: 'region', edge: 'start', epoch_s: 4 }
  ])
  expect(w).toEqual([{ start_ms: 2000, end_ms: 3000 }])
})

test('telemetry outside the window does not count', () => {
  const s = (t: number, util: number, reasons = 0): TelemetrySample => ({
    time_ms: t,
    gpu_index: 0,
    gpu_uuid: null,
    utilization_gpu_pct: util,
    utilization_memory_pct: null,
    clocks_sm_mhz: 1980,
    clocks_mem_mhz: null,
    power_draw_w: 500,
    power_draw_instant_w: null,
    temperature_c: null,
    memory_used_mib: null,
    pstate: null,
    clocks_event_reasons: reasons
  })
  const samples = [s(0, 0), s(100, 0), s(1000, 100), s(1100, 100, 0x4), s(1200, 100), s(2000, 0)]
  const r = regionTelemetry(samples, [{ start_ms: 950, end_ms: 1250 }])!
  expect(r.samples).toBe(3)
  expect(r.util_pct).toBe(100)
  expect(r.throttled_samples).toBe(1)
  expect(r.reasons).toEqual(['SwPowerCap'])
  expect(r.seconds).toBeCloseTo(0.3)
  expect(regionTelemetry(samples, [])).toBeNull()
})

test('memory events become per-process records, informational unless gated', () => {
  const base = {
    check_id: 'c',
    workload: 'llm',
    environment: 'native',
    run: 1,
    params: {},
    fingerprint: {} as never
  }
  const ev = {
    event: 'memory' as const,
    torch_reserved_bytes: 2 * 1024 * 1024 * 1024,
    kv_cache_tokens_fit: 123,
    nvml_process_used_bytes: null
  }
  const info = memoryRecords(ev, base, 't', false)
  expect(info.map(r => [r.metric, r.value, r.unit, r.scope])).toEqual([
    ['gpu_mem_reserved_mib', 2048, 'MiB', 'info'],
    ['kv_cache_tokens_fit', 123, 'tokens', 'info']
  ])
  expect(memoryRecords(ev, base, 't', true).every(r => r.scope === 'steady')).toBe(true)
})
