import type { CheckSummary, RunRecord, TelemetrySample } from '../../src/types/index.js'
import { PAPER_CSV_HEADER, paperCsv, paperCsvWorkloads } from '../../src/report/paper-csv.js'
import { incomplete, pass } from '../__fixtures__/summaries/index.js'

function rows(csv: string): string[][] {
  return csv
    .trimEnd()
    .split('\n')
    .map(l => l.split(','))
}

describe('paperCsv', () => {
  test('header and one row per measured run of the first workload, in schedule order', () => {
    const csv = paperCsv(pass)
    const [head, ...body] = rows(csv)
    expect(head!.join(',')).toBe(PAPER_CSV_HEADER)
    const measured = pass.runs.filter(r => r.workload === 'matmul' && !r.warmup)
    expect(body).toHaveLength(measured.length)
    expect(body).toHaveLength(40)
    body.forEach((row, i) => {
      const r = measured[i]!
      expect(row).toEqual([
        String(r.run),
        r.environment,
        String(Number(((r.end_ms - r.start_ms) / 1000).toFixed(3))),
        String(Number(r.mean_util_pct!.toFixed(1)))
      ])
    })
  })
  test('time_s is whole-process wall time: 4.4–4.9 s native, 4.9–7.7 s in the container', () => {
    const body = rows(paperCsv(pass, undefined, 'matmul')).slice(1)
    const native = body.filter(r => r[1] === 'native').map(r => Number(r[2]))
    const container = body.filter(r => r[1] === 'container').map(r => Number(r[2]))
    expect(Math.min(...native)).toBeGreaterThanOrEqual(4.4)
    expect(Math.max(...native)).toBeLessThanOrEqual(4.9)
    expect(Math.min(...container)).toBeGreaterThanOrEqual(4.9)
    expect(Math.max(...container)).toBeLessThanOrEqual(7.7)
  })
  test('one workload at a time; warm-ups and cancelled runs left out', () => {
    expect(paperCsvWorkloads(pass)).toEqual(['matmul', 'llm', 'io'])
    const llm = rows(paperCsv(incomplete, undefined, 'llm')).slice(1)
    expect(llm.filter(r => r[1] === 'native')).toHaveLength(9)
    expect(llm.filter(r => r[1] === 'container')).toHaveLength(8)
  })
  test('utilisation from telemetry samples when the run has none; empty when unknown', () => {
    const run: RunRecord = { ...pass.runs[2]!, run: 1, start_ms: 1000, end_ms: 5500, mean_util_pct: null }
    const other: RunRecord = { ...run, run: 2, environment: 'container', start_ms: 6000, end_ms: 9000 }
    const s: CheckSummary = { ...pass, runs: [run, other] }
    const sample = (time_ms: number, util: number | null): TelemetrySample => ({
      time_ms,
      gpu_index: 0,
      gpu_uuid: null,
      utilization_gpu_pct: util,
      utilization_memory_pct: null,
      clocks_sm_mhz: null,
      clocks_mem_mhz: null,
      power_draw_w: null,
      power_draw_instant_w: null,
      temperature_c: null,
      memory_used_mib: null,
      pstate: null,
      clocks_event_reasons: null
    })
    const samples = [sample(500, 10), sample(1000, 90), sample(3000, 95), sample(5500, null), sample(5600, 0)]
    expect(paperCsv(s, samples)).toBe(`${PAPER_CSV_HEADER}\n1,${run.environment},4.5,92.5\n2,container,3,\n`)
    expect(paperCsv(s)).toBe(`${PAPER_CSV_HEADER}\n1,${run.environment},4.5,\n2,container,3,\n`)
  })
  test('environment labels with commas are quoted', () => {
    const s: CheckSummary = { ...pass, runs: [{ ...pass.runs[2]!, environment: 'a,"b"' }] }
    expect(paperCsv(s).split('\n')[1]).toMatch(/^\d+,"a,""b""",/)
  })
})
