/**
 * The explainer and the measured-region telemetry on the REAL H200 checks of docs/evidence/2026-11-23-why
 * (scripts/gpu-host/why-evidence.sh): an unmodified image, and one that sets NVIDIA_TF32_OVERRIDE=0.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { explainCheck } from '../../src/analyze/index.js'
import { regionTelemetry } from '../../src/execute/index.js'
import type { CheckSummary, RunRecord, TelemetrySample } from '../../src/types/index.js'

const DIR = path.resolve('test/__fixtures__/evidence/2026-11-23-why')
const summary = (name: string): CheckSummary =>
  JSON.parse(fs.readFileSync(path.join(DIR, name, 'summary.json'), 'utf8')) as CheckSummary

/** OUT/telemetry.csv as the check wrote it (header names = TelemetrySample fields). */
function readTelemetry(file: string): TelemetrySample[] {
  const [header, ...lines] = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').trim().split('\n')
  const cols = header!.split(',')
  const num = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number(v))
  return lines.map(l => {
    const f = l.split(',')
    const at = (name: string): string | undefined => f[cols.indexOf(name)]
    return {
      time_ms: Number(at('time_ms')),
      gpu_index: Number(at('gpu_index')),
      gpu_uuid: at('gpu_uuid') ?? null,
      utilization_gpu_pct: num(at('utilization_gpu_pct')),
      utilization_memory_pct: num(at('utilization_memory_pct')),
      clocks_sm_mhz: num(at('clocks_sm_mhz')),
      clocks_mem_mhz: num(at('clocks_mem_mhz')),
      power_draw_w: num(at('power_draw_w')),
      power_draw_instant_w: num(at('power_draw_instant_w')),
      temperature_c: num(at('temperature_c')),
      memory_used_mib: num(at('memory_used_mib')),
      pstate: at('pstate') ?? null,
      clocks_event_reasons: at('clocks_event_reasons') ? parseInt(at('clocks_event_reasons')!, 16) : null
    }
  })
}

function reExplain(name: string) {
  const s = summary(name)
  const stacks = (s.stacks ?? []).map(a => ({
    environment: a.environment,
    workload: a.workload,
    run: 1,
    facts: a.facts
  }))
  return explainCheck({
    analysis: s.analysis,
    device: 'gpu',
    stacks,
    telemetry: s.telemetry,
    imageEnv: s.image_env ?? {}
  })!
}

test('an image that sets NVIDIA_TF32_OVERRIDE=0: the variable is the top finding, from the image ENV', () => {
  const e = reExplain('tf32-override')
  const top = e.findings[0]!
  expect(top.key).toBe('env:NVIDIA_TF32_OVERRIDE')
  expect([top.baseline, top.candidate, top.from_image_env]).toEqual([null, '0', true])
  expect(top.explains.join()).toMatch(/matmul kernel_ms \+5\d\d/)
  expect(summary('tf32-override').verdict).toBe('regression')
})

test('the unmodified image: no relevant difference', () => {
  const e = reExplain('unmodified')
  expect(e.findings.filter(f => f.relevant)).toEqual([])
  expect(e.headline).toMatch(/^no relevant difference found/)
})

test('matmul keeps the GPU busy over its measured region, whatever start-up does to the whole process', () => {
  const s = summary('unmodified')
  const samples = readTelemetry(path.join(DIR, 'unmodified', 'telemetry.csv.gz'))
  const runs = s.runs.filter((r: RunRecord) => r.workload === 'matmul' && !r.warmup && r.regions?.length)
  expect(runs.length).toBeGreaterThanOrEqual(6)
  for (const r of runs) {
    const t = regionTelemetry(samples, r.regions!, r.gpu)!
    expect(t.util_pct).toBeGreaterThanOrEqual(90)
    expect(r.mean_util_pct!).toBeLessThan(t.util_pct!)
  }
  // GPU memory per arm, from the workloads' memory events: equal in both arms here.
  const mem = s.analysis!.comparisons.filter(
    c => c.metric === 'gpu_mem_process_mib' || c.metric === 'kv_cache_tokens_fit'
  )
  expect(mem.map(c => c.workload).sort()).toEqual(['llm', 'llm', 'matmul'])
  for (const c of mem) expect(c.overhead_pct).toBe(0)
})
