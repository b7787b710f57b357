/**
 * REGRESSION with three arms: native, the PyTorch 25.10 container, and a `container:<image>` arm with a
 * newer image whose matmul is 3.4% slower. Every comparison is against native; each candidate arm has
 * its own start-up phases.
 */
import type { CheckSummary, Comparison, RunRecord } from '../../../src/types/index.js'
import { H200_CONTAINER, comparison, startupComparisons } from './build.js'
import { h200Data } from './h200.js'
import { pass } from './pass.js'

export const NEXT_IMAGE = 'nvcr.io/nvidia/pytorch:25.11-py3'
const NEXT = `container:${NEXT_IMAGE}`

const a = h200Data({ n: 8, workloads: ['matmul'], seed: 5000 })
const b = h200Data({ n: 8, workloads: ['matmul'], seed: 5000, matmulContainerMs: 42.39 })
const relabel = <T extends { environment: string }>(x: T): T =>
  x.environment === 'container' ? { ...x, environment: NEXT } : x
const onlyNext = <T extends { environment: string }>(list: T[]): T[] =>
  list.filter(x => x.environment === 'container').map(relabel)
const toNext = (c: Comparison): Comparison => ({ ...c, candidate_env: NEXT })

const ok = 'TOST: the overhead is within ±2% (p < 0.001).'
const slow = 'significant (Welch p Holm < 0.001) and the whole 95% CI is above the 2% limit.'
const matmul = (d: typeof a, regression: boolean): Comparison[] =>
  (['kernel_ms', 'tflops'] as const).map(metric =>
    comparison({
      workload: 'matmul',
      metric,
      unit: metric === 'kernel_ms' ? 'ms' : 'TFLOP/s',
      direction: metric === 'kernel_ms' ? 'lower' : 'higher',
      base: d.steady[`matmul/${metric}`]!.native,
      cand: d.steady[`matmul/${metric}`]!.container,
      ciHalf: 0.05,
      p: regression ? 1e-20 : 0.6,
      pAdjusted: regression ? 4e-20 : 1,
      tostP: regression ? 1 : 1e-9,
      verdict: regression ? 'regression' : 'equivalent',
      reason: regression ? slow : ok,
      mdePct: 0.08
    })
  )

const steady = [...matmul(a, false), ...matmul(b, true).map(toNext)]
const startup = [
  ...startupComparisons('matmul', a.startup.matmul!),
  // The newer image is larger: its imports take 0.4 s longer, and so do the totals that contain them.
  ...startupComparisons(
    'matmul',
    b.startup.matmul!.map(([ph, n, c]) => [
      ph,
      n,
      ['imports_s', 'total_startup_s', 'process_wall_s'].includes(ph) ? c.map(v => Number((v + 0.4).toFixed(4))) : c
    ])
  ).map(toNext)
]
const runs: RunRecord[] = [...a.runs, ...onlyNext(b.runs)]
const worst = steady.filter(c => c.verdict === 'regression')[0]!

export const severalArms: CheckSummary = {
  ...pass,
  check_id: '20251130T120000Z-3a9c',
  started_at: new Date(a.startMs).toISOString(),
  finished_at: new Date(a.endMs + (b.endMs - b.startMs) / 2).toISOString(),
  wall_s: (a.endMs - a.startMs + (b.endMs - b.startMs) / 2) / 1000,
  verdict: 'regression',
  overhead_pct: worst.overhead_pct,
  p_value: worst.p_adjusted,
  config: { ...pass.config, workloads: ['matmul'], runs: 8, arms: ['native', 'container', NEXT] },
  arms: [...pass.arms, { label: NEXT, kind: 'container', image: NEXT_IMAGE }],
  fingerprints: {
    ...pass.fingerprints,
    [NEXT]: {
      ...H200_CONTAINER,
      image: NEXT_IMAGE,
      image_digest: 'sha256:9b2e4d6f8a0c1e3b5d7f9a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b'
    }
  },
  analysis: {
    comparisons: [...steady, ...startup],
    verdict: 'regression',
    max_overhead_pct: 2,
    alpha: 0.05,
    notes: [`matmul/launch_s was measured in ${NEXT} only for 7 of 8 runs.`]
  },
  latency: [],
  telemetry: [...a.telemetry, ...onlyNext(b.telemetry)],
  runs,
  series: [...a.series, ...onlyNext(b.series)],
  baseline: null,
  not_measured: [{ what: 'llm, io workloads', why: 'not in the workloads input (matmul).' }]
}
