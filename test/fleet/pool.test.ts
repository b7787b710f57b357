/**
 * Pooling and verdicts on in-memory checks (no Docker): runs of identical fingerprints pool, different
 * ones stay apart, and a regression in one group alone decides the fleet's verdict. The per-run values
 * are synthetic and deterministic; the real-CLI path is in fleet.test.ts.
 */
import { aggregateExitCode } from '../../src/commands/aggregate.js'
import { renderAggregateMarkdown } from '../../src/fleet/markdown.js'
import { aggregate, aggregateVerdict, poolRecords } from '../../src/fleet/pool.js'
import type { ResultSource } from '../../src/fleet/types.js'
import type { CheckSummary, Fingerprint, PreflightResult, SampleRecord } from '../../src/types/index.js'

const BASE: Fingerprint = {
  host: 'runner-1',
  device: 'gpu',
  gpu_name: 'NVIDIA H200',
  gpu_uuid: 'GPU-1',
  driver: '580.159.04',
  cuda: '13.0',
  image: null,
  image_digest: null,
  runtime: null,
  runtime_version: null,
  gpu_access: null,
  mig_mode: 'Disabled',
  persistence_mode: 'Enabled',
  clocks: null
}
const IMAGE = 'local/pytorch:25.10'
const DIGEST = 'sha256:' + 'c'.repeat(64)

/** One check: `runs` runs per arm of matmul kernel_ms; the container `factor` times the native time. */
function source(
  label: string,
  host: Partial<Fingerprint>,
  factor: number,
  opts: { preflight?: PreflightResult[]; hostSpeed?: number } = {}
): ResultSource {
  const fp = { ...BASE, ...host }
  const fingerprints = {
    native: fp,
    container: {
      ...fp,
      image: IMAGE,
      image_digest: DIGEST,
      runtime: 'docker',
      gpu_access: 'devices' as const
    }
  }
  const records: SampleRecord[] = []
  // 10 processes per arm: the fewest an equivalence claim rests on (issue 52)
  const jitter = [0.0, 0.011, -0.007, 0.004, -0.012, 0.006, -0.003, 0.009, -0.01, 0.002]
  for (let run = 1; run <= jitter.length; run++)
    for (const env of ['native', 'container'] as const)
      records.push({
        check_id: label,
        workload: 'matmul',
        environment: env,
        run,
        iteration: 1,
        metric: 'kernel_ms',
        value: (opts.hostSpeed ?? 1) * (40.88 * (env === 'container' ? factor : 1) + jitter[run - 1]!),
        unit: 'ms',
        scope: 'steady',
        time: '2026-11-22T00:00:00Z',
        params: { device: 'gpu', size: 10000, dtype: 'fp32' },
        fingerprint: fingerprints[env]
      })
  const summary = {
    schema: 'gpu-overhead/summary@1',
    check_id: `check-${label}`,
    started_at: '2026-11-22T00:00:00Z',
    complete: true,
    incomplete_reason: null,
    verdict: 'pass',
    config: { workloads: ['matmul'], runs: 6 },
    arms: [
      { label: 'native', kind: 'native', image: null },
      { label: 'container', kind: 'container', image: IMAGE }
    ],
    fingerprints,
    preflight: opts.preflight ?? []
  } as unknown as CheckSummary
  return { dir: `/fleet/${label}`, label, summary, records: opts.preflight?.length ? [] : records }
}

const OPTS = { maxOverheadPct: 2, alpha: 0.05, seed: 1 }

describe('aggregate', () => {
  it('pools runs of one fingerprint with unique run labels', () => {
    const a = source('h200-a', {}, 1.0)
    const b = source('h200-b', { host: 'runner-2', gpu_uuid: 'GPU-2' }, 1.0)
    expect(new Set(poolRecords([a, b]).map(r => `${r.environment} ${r.run}`)).size).toBe(40)
    const r = aggregate([a, b], OPTS)
    expect(r.groups).toHaveLength(1)
    const c = r.groups[0]!.analysis!.comparisons[0]!
    expect([c.n_baseline, c.n_candidate]).toEqual([20, 20])
    expect(r.groups[0]!.runs.native!.slice(0, 2)).toEqual(['h200-a/1', 'h200-a/2'])
    expect(r.groups[0]!.runs.native!.at(-1)).toBe('h200-b/10')
    expect(r.groups[0]!.not_pooled_with).toBeNull()
    expect(r.verdict).toBe('pass')
    expect(aggregateExitCode(r)).toBe(0)
  })

  it('hosts are blocks: one 5% slower in every arm adds no spread, so a 3% overhead stays a regression', () => {
    const a = source('h200-a', {}, 1.03)
    const b = source('h200-b', { host: 'runner-2', gpu_uuid: 'GPU-2' }, 1.03, { hostSpeed: 1.05 })
    const r = aggregate([a, b], OPTS)
    const c = r.groups[0]!.analysis!.comparisons[0]!
    expect(c.overhead_pct).toBeCloseTo(3, 1)
    expect(c.verdict).toBe('regression')
    // Each host's own container/native ratio is untouched by the scaling.
    const pooled = poolRecords([a, b]).filter(x => x.run.startsWith('h200-b/'))
    const mean = (env: string): number => {
      const v = pooled.filter(x => x.environment === env).map(x => x.value)
      return v.reduce((p, q) => p + q, 0) / v.length
    }
    const raw = b.records
    const rawMean = (env: string): number => {
      const v = raw.filter(x => x.environment === env).map(x => x.value)
      return v.reduce((p, q) => p + q, 0) / v.length
    }
    expect(mean('container') / mean('native')).toBeCloseTo(rawMean('container') / rawMean('native'), 12)
  })

  it('keeps another SKU apart, says why, and fails the fleet on its regression alone', () => {
    const h200 = source('h200', {}, 1.0)
    const h100 = source('h100', { gpu_name: 'NVIDIA H100 80GB HBM3', driver: '570.86.15' }, 1.1)
    const r = aggregate([h200, h100], OPTS)
    expect(r.groups.map(g => g.sources.map(s => s.label))).toEqual([['h200'], ['h100']])
    expect(r.groups.map(g => g.verdict)).toEqual(['pass', 'regression'])
    expect(r.groups[1]!.not_pooled_with).toEqual({
      group: 'G1',
      differences: ['gpu_name: NVIDIA H200 vs NVIDIA H100 80GB HBM3', 'driver: 580.159.04 vs 570.86.15']
    })
    expect(r.verdict).toBe('regression')
    expect(aggregateExitCode(r)).toBe(1)
    const md = renderAggregateMarkdown(r)
    expect(md.split('\n')[0]).toMatch(
      /^\*\*REGRESSION\*\* — G2 \(NVIDIA H100 80GB HBM3, driver 570\.86\.15\): matmul kernel_ms \(container vs native\) \+10\.\d+% .* over the 2% limit; 2 result folders in 2 groups/
    )
    expect(md).toContain(
      '- G2 not pooled with G1: gpu_name: NVIDIA H200 vs NVIDIA H100 80GB HBM3; driver: 580.159.04 vs 570.86.15'
    )
    expect(md).toContain('## Side by side')
    expect(md).toContain('## G1 — NVIDIA H200, driver 580.159.04: PASS')
    expect(md).toContain('## G2 — NVIDIA H100 80GB HBM3, driver 570.86.15: REGRESSION')
  })

  it('a failed preflight gate on one runner is a failed check (exit 1); it is named', () => {
    const gate: PreflightResult = {
      name: 'driver-gate',
      status: 'fail',
      message: 'driver 535.104.05 is below 580 (CUDA 13.x)',
      fix: 'upgrade the driver'
    }
    const r = aggregate(
      [source('ok', {}, 1.0), source('old', { driver: '535.104.05' }, 1.0, { preflight: [gate] })],
      OPTS
    )
    expect(r.groups[1]!.verdict).toBe('error')
    expect(r.groups[1]!.analysis).toBeNull()
    expect(r.verdict).toBe('error')
    expect(aggregateExitCode(r)).toBe(1)
    expect(renderAggregateMarkdown(r).split('\n')[0]).toContain(
      'preflight failed: old: driver-gate: driver 535.104.05'
    )
  })

  it('aggregateVerdict: regression > error > incomparable > pass', () => {
    const v = (...list: string[]): string => aggregateVerdict(list.map(verdict => ({ verdict }) as never))
    expect(v('pass', 'error', 'regression')).toBe('regression')
    expect(v('incomparable', 'error')).toBe('error')
    expect(v('pass', 'incomparable')).toBe('incomparable')
    expect(v('pass', 'pass')).toBe('pass')
  })
})
