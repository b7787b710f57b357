/**
 * Parser tests on real nvidia-smi output recorded by the lead on an H200 (test/__fixtures__/nvidia-smi/):
 * telemetry-lms.csv is the sampler's exact command (-lms 100) over idle → bf16 matmul load → idle.
 * Cases marked CORRUPTED are recorded lines with one part deliberately damaged, for the defensive paths.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  CLOCKS_EVENT_REASON,
  DEFAULT_TELEMETRY_FIELDS,
  TELEMETRY_CSV_COLUMNS,
  TELEMETRY_CSV_HEADER,
  THROTTLE_MASK,
  isThrottled,
  parseFieldValue,
  parseSmiTimestamp,
  parseTelemetryLine,
  reasonNames,
  telemetryCsvRow
} from '../../src/execute/telemetry-parse.js'

const FIXTURES = join(process.cwd(), 'test/__fixtures__/nvidia-smi')
const recorded = readFileSync(join(FIXTURES, 'telemetry-lms.csv'), 'utf8')
const lines = recorded.split('\n').filter(l => l !== '')
const fields: string[] = [...DEFAULT_TELEMETRY_FIELDS]
const first = lines[0]!

/** Replace field `name` of a recorded line (CORRUPTED variants). */
function corrupt(line: string, name: string, value: string): string {
  const parts = line.split(', ')
  parts[fields.indexOf(name)] = value
  return parts.join(', ')
}

describe('parseTelemetryLine on the recorded H200 output', () => {
  const parsed = lines.map((l, i) => parseTelemetryLine(l, fields, 1000 + i))

  test('every recorded line is a sample with every field known', () => {
    expect(lines.length).toBe(95)
    for (const p of parsed) {
      expect(p).not.toBeNull()
      expect(p!.bad_fields).toEqual([])
      for (const value of Object.values(p!.sample)) expect(value).not.toBeNull()
    }
  })

  test('first line, field by field', () => {
    expect(parsed[0]).toEqual({
      sample: {
        time_ms: 1000,
        gpu_index: 0,
        gpu_uuid: 'GPU-faafcc66-a40d-b2a9-3c4a-f026277663ea',
        utilization_gpu_pct: 0,
        utilization_memory_pct: 0,
        clocks_sm_mhz: 345,
        clocks_mem_mhz: 3201,
        power_draw_w: 78.81,
        power_draw_instant_w: 79.24,
        temperature_c: 36,
        memory_used_mib: 0,
        pstate: 'P0',
        clocks_event_reasons: CLOCKS_EVENT_REASON.GpuIdle
      },
      smi_timestamp: '2026/11/22 02:24:16.337',
      bad_fields: []
    })
  })

  test('idle, load and power-capped phases are told apart by the reasons mask', () => {
    const samples = parsed.map(p => p!.sample)
    const idle = samples.filter(s => s.clocks_event_reasons === CLOCKS_EVENT_REASON.GpuIdle)
    const capped = samples.filter(s => isThrottled(s.clocks_event_reasons))
    expect(idle.length).toBeGreaterThan(30)
    expect(idle.every(s => s.utilization_gpu_pct === 0 && s.clocks_sm_mhz === 345)).toBe(true)
    // The recording caught the SwPowerCap (0x4) reason under load: 8 lines, at 1470–1980 MHz.
    expect(capped.length).toBe(8)
    expect(capped.every(s => s.clocks_event_reasons === CLOCKS_EVENT_REASON.SwPowerCap)).toBe(true)
    expect(samples.filter(s => s.utilization_gpu_pct === 100).length).toBe(32)
  })

  test('recorded timestamp is read as local time, 100 ms apart', () => {
    const t0 = parseSmiTimestamp(parsed[0]!.smi_timestamp!)
    expect(t0).toBe(new Date(2026, 10, 22, 2, 24, 16, 337).getTime())
    const t1 = parseSmiTimestamp(parsed[1]!.smi_timestamp!)!
    expect(t1 - t0!).toBeGreaterThanOrEqual(100)
    expect(t1 - t0!).toBeLessThan(120)
    expect(parseSmiTimestamp('02:24:16')).toBeNull()
  })
})

describe('defensive parsing (CORRUPTED variants of recorded lines)', () => {
  test.each(['[N/A]', '[Not Supported]', '[Unknown Error]', '', 'N/A'])('%j is an unknown value', raw => {
    const p = parseTelemetryLine(corrupt(first, 'power.draw.instant', raw), fields, 5)
    expect(p).not.toBeNull()
    expect(p!.sample.power_draw_instant_w).toBeNull()
    expect(p!.sample.power_draw_w).toBe(78.81)
    expect(p!.bad_fields).toEqual([])
  })

  test('[N/A] reasons mask and pstate are null, not throttled', () => {
    const p = parseTelemetryLine(
      corrupt(corrupt(first, 'clocks_event_reasons.active', '[N/A]'), 'pstate', '[N/A]'),
      fields,
      5
    )
    expect(p!.sample.clocks_event_reasons).toBeNull()
    expect(p!.sample.pstate).toBeNull()
    expect(isThrottled(p!.sample.clocks_event_reasons)).toBe(false)
  })

  test('a value that is not a number is null and reported as a bad field', () => {
    const p = parseTelemetryLine(corrupt(first, 'clocks.sm', '345 MHz'), fields, 5)
    expect(p!.sample.clocks_sm_mhz).toBeNull()
    expect(p!.bad_fields).toEqual(['clocks.sm'])
  })

  test('truncated line, extra field, bad index, and recorded non-sample text are not samples', () => {
    expect(parseTelemetryLine(first.slice(0, 60), fields, 5)).toBeNull()
    expect(parseTelemetryLine(`${first}, 1`, fields, 5)).toBeNull()
    expect(parseTelemetryLine(corrupt(first, 'index', '[N/A]'), fields, 5)).toBeNull()
    // Recorded: nvidia-smi's answer to an unknown field (query-gpu-bad-field.txt).
    const rejection = readFileSync(join(FIXTURES, 'query-gpu-bad-field.txt'), 'utf8')
    for (const l of rejection.split('\n')) expect(parseTelemetryLine(l, fields, 5)).toBeNull()
  })

  test('a line with the right commas but nothing readable is not a sample', () => {
    const junk = fields.map((f, i) => (f === 'index' ? '0' : `x${i}`)).join(', ')
    expect(parseTelemetryLine(junk, fields, 5)).toBeNull()
  })

  test('a shorter field list (old driver, fields dropped) parses its own columns', () => {
    const short = fields.filter(f => f !== 'power.draw.instant')
    const line = first
      .split(', ')
      .filter((_, i) => fields[i] !== 'power.draw.instant')
      .join(', ')
    const p = parseTelemetryLine(line, short, 5)
    expect(p!.sample.power_draw_instant_w).toBeNull()
    expect(p!.sample.power_draw_w).toBe(78.81)
    expect(p!.sample.clocks_event_reasons).toBe(1)
  })
})

describe('clocks event reasons', () => {
  test('hex mask, as recorded for both field names', () => {
    expect(parseFieldValue('0x0000000000000004', 'reasons')).toEqual({ ok: true, value: 4 })
    const oldName = readFileSync(join(FIXTURES, 'query-throttle-old-name.csv'), 'utf8').trim()
    expect(parseFieldValue(oldName, 'reasons')).toEqual({ ok: true, value: CLOCKS_EVENT_REASON.GpuIdle })
    expect(parseFieldValue('0x00000000000000ZZ', 'reasons')).toEqual({ ok: false })
    expect(parseFieldValue('[Not Supported]', 'reasons')).toEqual({ ok: true, value: null })
    // Bits past 2^53 are dropped; the defined low bits stay exact.
    expect(parseFieldValue('0x8000000000000044', 'reasons')).toEqual({ ok: true, value: 0x44 })
  })

  test('throttled = power cap, thermal or hardware slowdown; idle, clock settings and sync boost are not', () => {
    const C = CLOCKS_EVENT_REASON
    for (const bit of [
      C.SwPowerCap,
      C.HwSlowdown,
      C.SwThermalSlowdown,
      C.HwThermalSlowdown,
      C.HwPowerBrakeSlowdown
    ])
      expect(isThrottled(bit)).toBe(true)
    for (const bit of [0, C.GpuIdle, C.ApplicationsClocksSetting, C.SyncBoost, C.DisplayClockSetting])
      expect(isThrottled(bit)).toBe(false)
    expect(THROTTLE_MASK).toBe(0xec)
    expect(isThrottled(C.GpuIdle | C.HwThermalSlowdown)).toBe(true)
    expect(reasonNames(0x5)).toEqual(['GpuIdle', 'SwPowerCap'])
  })
})

describe('telemetry.csv rows', () => {
  test('one row per sample in header order, mask in hex, throttled flag', () => {
    const p = parseTelemetryLine(lines[76]!, fields, 42)!
    const row = telemetryCsvRow(p.sample, p.smi_timestamp)
    const cells = row.trimEnd().split(',')
    expect(TELEMETRY_CSV_HEADER.trimEnd().split(',')).toEqual([...TELEMETRY_CSV_COLUMNS])
    expect(cells).toHaveLength(TELEMETRY_CSV_COLUMNS.length)
    const at = (c: (typeof TELEMETRY_CSV_COLUMNS)[number]): string => cells[TELEMETRY_CSV_COLUMNS.indexOf(c)]!
    expect(at('time_ms')).toBe('42')
    expect(at('clocks_event_reasons')).toBe('0x0000000000000004')
    expect(at('throttled')).toBe('1')
    expect(at('nvidia_smi_timestamp')).toBe('2026/11/22 02:24:24.016')
  })

  test('unknown values are empty cells', () => {
    const p = parseTelemetryLine(corrupt(first, 'clocks_event_reasons.active', '[N/A]'), fields, 1)!
    const cells = telemetryCsvRow(p.sample, null).trimEnd().split(',')
    expect(cells[TELEMETRY_CSV_COLUMNS.indexOf('clocks_event_reasons')]).toBe('')
    expect(cells[TELEMETRY_CSV_COLUMNS.indexOf('throttled')]).toBe('')
    expect(cells.at(-1)).toBe('')
  })
})

describe('why arrival time is a sound sample time (recorded through a pipe on the H200, see telemetry/README.md)', () => {
  const dir = join(process.cwd(), 'test/__fixtures__/telemetry')
  const arrivals = readFileSync(join(dir, 'pipe-arrival.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map(l => l.split('\t').map(Number) as [number, number, number])
  const stamps = readFileSync(join(dir, 'pipe-lms.csv'), 'utf8')
    .trim()
    .split('\n')
    .map(l => {
      // The device's clock is UTC; nvidia-smi prints local time with no zone.
      const m = /^(\d+)\/(\d+)\/(\d+) (\d+):(\d+):(\d+)\.(\d+)/.exec(l)!.slice(1).map(Number)
      return Date.UTC(m[0]!, m[1]! - 1, m[2], m[3], m[4], m[5], m[6])
    })

  test('nvidia-smi -lms flushes one line per interval into a pipe, on time', () => {
    expect(arrivals.length).toBe(stamps.length)
    expect(arrivals.every(([, , newlines]) => newlines === 1)).toBe(true)
    const lag = arrivals.map(([t], i) => t - stamps[i]!)
    expect(lag.filter(d => d >= 0 && d <= 2).length / lag.length).toBeGreaterThan(0.95)
    expect(Math.max(...lag)).toBeLessThan(100)
  })
})
