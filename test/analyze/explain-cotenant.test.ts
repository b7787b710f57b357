/**
 * Co-tenants in "Why the arms differ", on REAL recorded workload output (test/__fixtures__/stacks/README.md):
 * the container recordings carry the `peers` events of an image that started busy (or idle) processes
 * beside the workload; the native recording has none. The measured differences come from the real
 * analyzer on real kernel_ms samples, scaled.
 */
import { analyzeRecords, explain } from '../../src/analyze/index.js'
import { armStacks, peersList } from '../../src/execute/index.js'
import { whyMarkdown } from '../../src/report/why.js'
import type { ArmStack, Comparison, RawRowLike } from './explain-helpers.js'
import { recordedEvents } from '../helpers/recorded.js'
import { cotenantExplains } from '../../src/analyze/explain/cotenants.js'
import type { Domain, Finding, MeasuredDifference } from '../../src/types/index.js'

const NATIVE = 'cpu-native-refblas'
const BUSY = 'cpu-container-cotenant-busy'
const IDLE = 'cpu-container-cotenant-idle'

/**
 * One arm's stack as the runner records it: the stack event, and a co-tenant list per peers event
 * (from `peersFrom`, another recording, where a test puts a neighbour beside another stack).
 */
function armOf(name: string, environment: string, peersFrom = name): ArmStack {
  const { event: _event, ...facts } = recordedEvents(name).find(e => e['event'] === 'stack')!
  const cotenants = recordedEvents(peersFrom)
    .filter(e => e['event'] === 'peers')
    .map(e => peersList(e))
  return armStacks([{ environment, workload: 'matmul', run: 1, facts, cotenants }])[0]!
}

function rows(environment: string, scale: number): RawRowLike[] {
  return recordedEvents(NATIVE)
    .filter(e => e['event'] === 'sample' && e['metric'] === 'kernel_ms')
    .map(e => ({
      workload: 'matmul',
      environment,
      run: Number(e['iteration']),
      metric: 'kernel_ms',
      value: Number(e['value']) * scale,
      unit: 'ms',
      scope: 'steady'
    }))
}

/** The container arm `pct` percent slower (negative: faster), as the real analyzer reports it. */
function slower(pct: number): Comparison[] {
  return analyzeRecords([...rows('native', 1), ...rows('container', 1 + pct / 100)], {
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    maxOverheadPct: 2,
    alpha: 0.05,
    seed: 1
  }).comparisons
}

function run(baseline: string, candidate: string, pct: number, candidateStack = candidate) {
  return explain({
    baselineEnv: 'native',
    candidateEnv: 'container',
    device: 'cpu',
    alpha: 0.05,
    stacks: [armOf(baseline, 'native'), armOf(candidateStack, 'container', candidate)],
    imageEnv: {},
    comparisons: slower(pct),
    telemetry: []
  })
}

test('a busy process only in the slower container arm is the top reason, above the stack differences', () => {
  const e = run(NATIVE, BUSY, 40)
  const top = e.findings[0]!
  expect(top.kind).toBe('cotenant')
  expect(top.relevant).toBe(true)
  expect(top.impact).toBe(3)
  expect(top.label).toBe('other process in the container: python3')
  expect(top.baseline).toBe('none')
  expect(top.candidate).toMatch(/^python3 \(python3 -c exec.*\), CPU \d+\.\d%$/)
  expect(top.explains).toEqual([expect.stringMatching(/^matmul kernel_ms \+4\d\.\d%$/)])
  expect(e.headline).toMatch(/^most likely: other process in the container: python3 none → python3 /)
  // Nothing else differs between these two recordings.
  expect(e.findings.filter(f => f.relevant)).toHaveLength(1)
  const md = whyMarkdown(e)
  expect(md).toMatch(
    /\|\s+1 \| other process in the container: python3\s+\| `none`\s+\| `python3 \(python3 -c exec/
  )
  expect(md).toContain('API_TOKEN=***')
})

test('beside a BLAS difference (also a likely cause), the neighbour still ranks first', () => {
  const e = run(NATIVE, BUSY, 40, 'cpu-container-openblas')
  const relevant = e.findings.filter(f => f.relevant)
  expect(relevant[0]!.kind).toBe('cotenant')
  const blas = relevant.find(f => /^BLAS library/.test(f.label))!
  expect(blas.impact).toBe(3)
  expect(relevant.indexOf(blas)).toBeGreaterThan(0)
})

test('in the faster arm a co-tenant explains nothing (it is listed, not ranked)', () => {
  const e = run(NATIVE, BUSY, -40)
  const f = e.findings.find(x => x.kind === 'cotenant')!
  expect(f.relevant).toBe(false)
  expect(f.explains).toEqual([])
})

test('a co-tenant only in the baseline explains a baseline that came out slower', () => {
  const e = run(BUSY, NATIVE, -40)
  const top = e.findings[0]!
  expect(top.kind).toBe('cotenant')
  expect(top.relevant).toBe(true)
  expect([top.baseline?.startsWith('python3 ('), top.candidate]).toEqual([true, 'none'])
  expect(top.explains.join()).toMatch(/matmul kernel_ms -/)
})

test('an idle sidecar is recorded but is no cause; its command line stays inert in the report', () => {
  const e = run(NATIVE, IDLE, 40)
  const f = e.findings.find(x => x.kind === 'cotenant')!
  expect(f.impact).toBe(1)
  expect(f.relevant).toBe(false)
  expect(f.candidate).toContain('<b>|idle</b>')
  const md = whyMarkdown(e)
  const line = md.split('\n').find(l => l.includes('sidecar'))!
  // Inside a code span: no HTML, no table cell break.
  expect(line).toMatch(
    /`python3 \(python3 -c import time; time\.sleep\(600\) sidecar <b>\\?\|idle<\/b>\), CPU 0\.0%`/
  )
})

test('the same co-tenant in both arms is no difference', () => {
  const e = run(BUSY, BUSY, 40)
  expect(e.findings.filter(f => f.kind === 'cotenant')).toEqual([])
})

describe('a GPU co-tenant and a faster decode (docs/evidence/2026-11-27-decode-state.md)', () => {
  // The finding as cotenantFindings builds it for a process on the container's GPU that native did not have.
  const gpuFinding = (): Finding => ({
    kind: 'cotenant',
    key: 'cotenant:gpu:python3:',
    label: 'other compute process on the GPU: python3',
    baseline: 'none',
    candidate: 'python3, GPU 500 MiB',
    impact: 3,
    domains: ['gpu-compute', 'launch', 'memory'],
    explains: [],
    workloads: ['llm', 'matmul'],
    meaning: '',
    fix: '',
    relevant: false
  })
  const diff = (workload: string, metric: string, pct: number, domains: Domain[]): MeasuredDifference => ({
    workload,
    metric,
    scope: 'steady',
    overhead_pct: pct,
    verdict: pct < 0 ? 'improvement' : 'regression',
    domains
  })
  it('explains a launch-bound metric that came out faster in its arm, and a slower one as before', () => {
    const measured = [
      diff('llm', 'tpot_ms', -6.3, ['gpu-compute', 'launch']),
      diff('matmul', 'kernel_ms', 3.3, ['gpu-compute']),
      // A compute-bound metric faster beside a co-tenant is not its doing.
      diff('matmul', 'kernel_ms/other', -1.5, ['gpu-compute'])
    ]
    expect(cotenantExplains(gpuFinding(), measured)).toEqual(['llm tpot_ms -6.3%', 'matmul kernel_ms +3.3%'])
  })
  it('a process in the container (no GPU) never explains a faster arm', () => {
    const f = { ...gpuFinding(), domains: ['cpu-compute', 'launch', 'io'] as Domain[] }
    expect(cotenantExplains(f, [diff('llm', 'tpot_ms', -6.3, ['gpu-compute', 'launch'])])).toEqual([])
  })
})
