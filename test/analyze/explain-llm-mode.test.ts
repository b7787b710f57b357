/**
 * An arm whose llm ran eagerly (its CUDA graphs failed or were refused) against one that replayed them: the
 * execution mode is a stack fact, so "Why the arms differ" names it. Both recordings are real: llm.py on an
 * H200, once as the check runs it and once with --prefill-mode eager --decode-mode eager
 * (test/__fixtures__/stacks/README.md).
 */
import { analyzeRecords, explain } from '../../src/analyze/index.js'
import { armStacks } from '../../src/execute/index.js'
import { whyMarkdown } from '../../src/report/why.js'
import type { ArmStack, RawRowLike } from './explain-helpers.js'
import { recordedEvents } from '../helpers/recorded.js'

function stackOf(name: string, environment: string): ArmStack {
  const { event: _event, ...facts } = recordedEvents(name).find(e => e.event === 'stack')!
  return armStacks([{ environment, workload: 'llm', run: 1, facts }])[0]!
}

function rows(name: string, environment: string, metric: string): RawRowLike[] {
  return recordedEvents(name)
    .filter(e => e.event === 'sample' && e.metric === metric)
    .map(e => ({
      workload: 'llm',
      environment,
      run: Number(e.iteration),
      metric,
      value: Number(e.value),
      unit: 'ms',
      scope: 'steady'
    }))
}

test('an eager arm against a graph arm: the execution mode ranks first, with what it can explain', () => {
  const base = 'h200-gpu-llm-graph'
  const cand = 'h200-gpu-llm-eager'
  const measured = analyzeRecords(
    [...rows(base, 'native', 'ttft_ms'), ...rows(cand, 'container', 'ttft_ms')],
    { baselineEnv: 'native', candidateEnvs: ['container'], maxOverheadPct: 2, alpha: 0.05, seed: 1 }
  )
  const ttft = measured.comparisons.find(c => c.metric === 'ttft_ms')!
  expect(ttft.overhead_pct).toBeGreaterThan(2) // the eager prefill is slower: ~24.1 → ~25.1 ms on the H200
  const e = explain({
    baselineEnv: 'native',
    candidateEnv: 'container',
    device: 'gpu',
    alpha: 0.05,
    stacks: [stackOf(base, 'native'), stackOf(cand, 'container')],
    imageEnv: {},
    comparisons: measured.comparisons,
    telemetry: []
  })
  const top = e.findings[0]!
  expect(top.label).toMatch(/^LLM execution mode/)
  expect([top.baseline, top.candidate]).toEqual(['cuda-graph', 'eager'])
  expect(top.relevant).toBe(true)
  // The same SDPA backend ran the decode attention in both: not a difference.
  expect(e.findings.some(f => f.label.includes('llm.sdpa_decode'))).toBe(false)
  expect(whyMarkdown(e)).toContain('LLM execution mode (llm.')
})
