/**
 * Multi-GPU analysis over the real two-H200 check (docs/evidence/2026-11-22-h200x2/multi-gpu): pooled,
 * per GPU and GPU-against-siblings; then the same data with a known shift put on one GPU, to show the
 * deviation test and the "one GPU regresses under a passing pool" warning fire where they must.
 */
import * as fs from 'node:fs'
import { knownMetric } from '../../src/results/known-metrics.js'
import { gunzipSync } from 'node:zlib'
import { analyzeRecords } from '../../src/analyze/compare/index.js'
import { gpuDeviations, multiGpuSummary, multiGpuWarnings, pooledRows } from '../../src/analyze/multi-gpu.js'
import type { CheckSummary, GpuLaneInfo, SampleRecord } from '../../src/types/index.js'

const DIR = 'test/__fixtures__/evidence/2026-11-22-h200x2/multi-gpu'
const summary = JSON.parse(fs.readFileSync(`${DIR}/summary.json`, 'utf8')) as CheckSummary

/** samples.csv (the pipeline's own, quote-free) back into SampleRecords. */
function readSamples(): SampleRecord[] {
  const [head, ...lines] = gunzipSync(fs.readFileSync(`${DIR}/samples.csv.gz`))
    .toString('utf8')
    .trim()
    .split('\n')
  const cols = head!.split(',')
  const at = (name: string): number => cols.indexOf(name)
  return lines.map(line => {
    const f = line.split(',')
    return {
      check_id: summary.check_id,
      workload: f[at('workload')]!,
      environment: f[at('environment')]!,
      run: Number(f[at('run')]),
      iteration: Number(f[at('iteration')]),
      metric: f[at('metric')]!,
      value: Number(f[at('value')]),
      unit: f[at('unit')]!,
      scope: f[at('scope')] as SampleRecord['scope'],
      time: f[at('time')]!,
      gpu: Number(f[at('gpu')]),
      params: {},
      fingerprint: {
        ...summary.fingerprints[f[at('environment')]!]!,
        gpu_uuid: f[at('gpu_uuid')]!
      }
    }
  })
}

const samples = readSamples()
const gpus: GpuLaneInfo[] = summary.multi_gpu!.gpus
const opts = {
  baselineEnv: 'native',
  candidateEnvs: ['container'],
  maxOverheadPct: 2,
  alpha: 0.05,
  seed: 1
}
const steady = (a: ReturnType<typeof analyzeRecords>, workload: string, metric: string) =>
  a.comparisons.find(c => c.workload === workload && c.metric === metric && c.scope === 'steady')!

/** The samples with `factor` applied to one GPU's values of one arm/workload (time metrics only). */
function shifted(gpu: number, envs: string[], factor: number): SampleRecord[] {
  return samples.map(s =>
    s.gpu === gpu && envs.includes(s.environment) && s.workload === 'matmul' && s.metric === 'kernel_ms'
      ? { ...s, value: s.value * factor }
      : s
  )
}

/**
 * Equivalent within the margin, as the recorded summary said: since issue 52 a claim over fewer than 10 processes
 * per arm is inconclusive for that reason alone (compare/mode-exclusion.ts), so the test reads the reason.
 */
const withinButFew = (c: { verdict: string; reason: string; tost: { equivalent: boolean } }): boolean =>
  c.verdict === 'inconclusive' && c.tost.equivalent && /only \d+ processes per arm/.test(c.reason)
const passesOrFew = (c: Parameters<typeof withinButFew>[0]): boolean =>
  c.verdict === 'equivalent' || withinButFew(c)

describe('the real two-GPU check', () => {
  it('every process is its own run: 8 per arm and workload, 4 on each GPU', () => {
    const runs = new Set(
      samples.filter(s => s.environment === 'native' && s.workload === 'matmul').map(s => `${s.run}@${s.gpu}`)
    )
    expect(runs.size).toBe(8)
    expect(new Set([...runs].map(r => r.split('@')[0])).size).toBe(8)
  })
  it('pooled analysis: same verdicts as the committed summary, 8 runs per arm, no GPU-UUID conflict', () => {
    const a = analyzeRecords(pooledRows(samples), opts)
    // The committed summary predates derived metrics: TFLOP/s, tokens/s, E2E, ITL are now shown, not gated.
    const gated = summary.analysis!.comparisons.filter(
      x => x.scope === 'steady' && knownMetric(x.workload, x.metric)?.derived_from === undefined
    )
    expect(gated.map(c => c.metric).sort()).toEqual(['kernel_ms', 'tpot_ms', 'ttft_ms'])
    for (const c of gated) {
      const mine = steady(a, c.workload, c.metric)
      if (c.verdict === 'equivalent') expect(withinButFew(mine)).toBe(true)
      else expect(mine.verdict).toBe(c.verdict)
      expect(mine.n_baseline).toBe(8)
      // The summary's figure is the ratio of the arms' means; a paired estimate (within-block ratios, issue
      // 28) may differ from it, but stays inside the interval the summary gave.
      if (mine.ci_method === 'paired') {
        expect(mine.overhead_pct).toBeGreaterThan(c.ci95.low)
        expect(mine.overhead_pct).toBeLessThan(c.ci95.high)
      } else expect(Math.abs(mine.overhead_pct - c.overhead_pct)).toBeLessThan(0.5)
    }
    expect((a.notes ?? []).join(' ')).not.toMatch(/gpu_uuid/)
  })
  it("blocking keeps each GPU's own arm ratio exactly", () => {
    const blocked = pooledRows(samples)
    expect(blocked.some((s, i) => s.value !== samples[i]!.value)).toBe(true)
    for (const gpu of [0, 1]) {
      const a = analyzeRecords(
        blocked.filter(s => s.gpu === gpu),
        opts
      )
      const raw = analyzeRecords(
        samples
          .filter(s => s.gpu === gpu)
          .map(s => ({ ...s, fingerprint: { ...s.fingerprint, gpu_uuid: null } })),
        opts
      )
      for (const c of raw.comparisons.filter(x => x.scope === 'steady'))
        expect(steady(a, c.workload, c.metric).overhead_pct).toBeCloseTo(c.overhead_pct, 9)
    }
  })
  it('without pooledRows the arms would carry two GPU UUIDs each', () => {
    expect((analyzeRecords(samples, opts).notes ?? []).join(' ')).toMatch(
      /native: gpu_uuid took several values/
    )
  })
  it('per GPU: matmul equivalent on both; the LLM only resolves on GPU 1 (GPU 0 native ran in two modes)', () => {
    const m = multiGpuSummary(samples, gpus, opts)
    const [g0, g1] = m.per_gpu
    // Within the margin on 4 processes a GPU: too few for an equivalence since issue 52, so read as such.
    expect(withinButFew(steady(g0!.analysis, 'matmul', 'kernel_ms'))).toBe(true)
    expect(withinButFew(steady(g1!.analysis, 'matmul', 'kernel_ms'))).toBe(true)
    expect(withinButFew(steady(g1!.analysis, 'llm', 'tpot_ms'))).toBe(true)
    expect(steady(g0!.analysis, 'llm', 'tpot_ms').verdict).toBe('inconclusive')
    expect(withinButFew(steady(g0!.analysis, 'llm', 'tpot_ms'))).toBe(false)
    expect(m.deviations.every(d => !d.deviates)).toBe(true)
    expect(m.deviations.every(d => d.gpu === 1 && d.siblings.join() === '0')).toBe(true)
  })
})

describe('a known shift on one GPU', () => {
  it('5% slower in both arms: GPU 1 deviates in both, and the blocked pool still resolves', () => {
    const data = shifted(1, ['native', 'container'], 1.05)
    const dev = gpuDeviations(data, gpus, ['native', 'container'], opts).filter(d => d.deviates)
    expect(dev.map(d => [d.gpu, d.environment, d.metric])).toEqual([
      [1, 'native', 'kernel_ms'],
      [1, 'container', 'kernel_ms']
    ])
    expect(dev[0]!.deviation_pct).toBeCloseTo(5, 1)
    // Compared as two samples (no common run labels, so no run pairs), the GPUs' gap becomes spread and
    // hides everything; as run pairs (each pair on one GPU) it cancels within pairs; blocked by GPU as well.
    const unpaired = data.map(s => ({
      ...s,
      run: s.environment === 'container' ? `c${s.run}` : s.run,
      fingerprint: { ...s.fingerprint, gpu_uuid: null }
    }))
    expect(steady(analyzeRecords(unpaired, opts), 'matmul', 'kernel_ms').verdict).toBe('inconclusive')
    const paired = steady(
      analyzeRecords(
        data.map(s => ({ ...s, fingerprint: { ...s.fingerprint, gpu_uuid: null } })),
        opts
      ),
      'matmul',
      'kernel_ms'
    )
    expect(paired.ci_method).toBe('paired')
    expect(passesOrFew(paired)).toBe(true)
    const pooled = steady(analyzeRecords(pooledRows(data), opts), 'matmul', 'kernel_ms')
    expect(Math.abs(pooled.overhead_pct)).toBeLessThan(0.05)
    expect(passesOrFew(pooled)).toBe(true)
  })
  it('a 3% container overhead on every GPU plus a 5% slower GPU is still caught as a regression', () => {
    const data = shifted(1, ['native', 'container'], 1.05).map(s =>
      s.environment === 'container' && s.workload === 'matmul' && s.metric === 'kernel_ms'
        ? { ...s, value: s.value * 1.03 }
        : s
    )
    const pooled = steady(analyzeRecords(pooledRows(data), opts), 'matmul', 'kernel_ms')
    expect(pooled.verdict).toBe('regression')
    expect(pooled.overhead_pct).toBeCloseTo(3, 1)
  })
  it('3% slower in the container on GPU 1 only: that GPU regresses, the pool does not, and a warning says so', () => {
    const data = shifted(1, ['container'], 1.03)
    const pooled = analyzeRecords(pooledRows(data), opts)
    expect(steady(pooled, 'matmul', 'kernel_ms').verdict).not.toBe('regression')
    const m = multiGpuSummary(data, gpus, opts)
    expect(steady(m.per_gpu[1]!.analysis, 'matmul', 'kernel_ms').verdict).toBe('regression')
    const warnings = multiGpuWarnings(m, pooled)
    expect(warnings[0]).toMatch(
      /^GPU 1 alone shows a regression: matmul kernel_ms container vs native \+3\.00% \[\+2\.9\d%, \+3\.0\d%\] while the pool of 2 GPUs does not/
    )
    expect(
      warnings.some(w =>
        /^GPU 1 deviates from GPU 0 in container: matmul kernel_ms \+(2\.9|3\.0)\d% .*\(Holm p /.test(w)
      )
    ).toBe(true)
  })
})
