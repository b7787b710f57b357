/**
 * The explainer on REAL recorded workload output (test/__fixtures__/stacks/README.md): each arm's
 * `stack` event as matmul.py printed it, and the real analysis of its kernel_ms samples.
 */
import { analyzeRecords, explain, explainCheck } from '../../src/analyze/index.js'
import { ENV_KNOWLEDGE, armStacks, envKnowledge, stackDigest } from '../../src/execute/index.js'
import { whyMarkdown } from '../../src/report/why.js'
import type { Analysis, ArmStack, Comparison, RawRowLike } from './explain-helpers.js'
import { recordedEvents } from '../helpers/recorded.js'

function stackOf(name: string, environment: string): ArmStack {
  const ev = recordedEvents(name).find(e => e.event === 'stack')!
  const { event: _event, ...facts } = ev
  return armStacks([{ environment, workload: 'matmul', run: 1, facts }])[0]!
}

/** kernel_ms of a recording, one value per iteration, as rows for the real analyzer. */
function rows(name: string, environment: string, scale = 1): RawRowLike[] {
  return recordedEvents(name)
    .filter(e => e.event === 'sample' && e.metric === 'kernel_ms')
    .map(e => ({
      workload: 'matmul',
      environment,
      run: Number(e.iteration),
      metric: 'kernel_ms',
      value: Number(e.value) * scale,
      unit: 'ms',
      scope: 'steady'
    }))
}

function analysis(base: RawRowLike[], cand: RawRowLike[]): Analysis {
  return analyzeRecords([...base, ...cand], {
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    maxOverheadPct: 2,
    alpha: 0.05,
    seed: 1
  })
}

/** A measured difference of `pct` percent, as the analyzer would report it (the samples are real, scaled). */
function slower(name: string, pct: number): Comparison[] {
  return analysis(rows(name, 'native'), rows(name, 'container', 1 + pct / 100)).comparisons
}

function run(baseline: string, candidate: string, comparisons: Comparison[], device: 'gpu' | 'cpu' = 'gpu') {
  return explain({
    baselineEnv: 'native',
    candidateEnv: 'container',
    device,
    alpha: 0.05,
    stacks: [stackOf(baseline, 'native'), stackOf(candidate, 'container')],
    imageEnv: {},
    comparisons,
    telemetry: []
  })
}

describe('one performance-changing variable in the candidate', () => {
  const cases = [
    'NVIDIA_TF32_OVERRIDE',
    'CUBLAS_WORKSPACE_CONFIG',
    'CUDA_LAUNCH_BLOCKING',
    'PYTORCH_NO_CUDA_MEMORY_CACHING',
    'TORCH_SOME_NEW_KNOB'
  ]
  test.each(cases)('%s is the top finding of a GPU regression', name => {
    const e = run('cpu-native-refblas', `cpu-native-${name}`, slower('cpu-native-refblas', 40))
    const top = e.findings[0]!
    expect(top.key).toBe(`env:${name}`)
    expect(top.relevant).toBe(true)
    expect(top.baseline).toBeNull()
    expect(top.explains.join()).toMatch(/matmul kernel_ms \+/)
    expect(e.headline).toContain(name)
    // Nothing else differs between the two recordings.
    expect(e.findings.filter(f => f.relevant)).toHaveLength(1)
  })

  test('a thread count variable explains a CPU regression', () => {
    const e = run('cpu-native-refblas', 'cpu-native-OMP_NUM_THREADS', slower('cpu-native-refblas', 40), 'cpu')
    expect(e.findings[0]!.key).toBe('env:OMP_NUM_THREADS')
  })

  test('a GPU-only variable does not explain a CPU-only difference, but is still listed', () => {
    const e = run(
      'cpu-native-refblas',
      'cpu-native-NVIDIA_TF32_OVERRIDE',
      slower('cpu-native-refblas', 40),
      'cpu'
    )
    expect(e.findings.filter(f => f.relevant)).toEqual([])
    expect(e.headline).toMatch(/^no relevant difference found/)
    expect(e.findings.map(f => f.key)).toContain('env:NVIDIA_TF32_OVERRIDE')
  })

  test('with no measured difference the variable is recorded but not relevant', () => {
    const same = analysis(
      rows('cpu-native-refblas', 'native'),
      rows('cpu-native-refblas', 'container')
    ).comparisons
    const e = run('cpu-native-refblas', 'cpu-native-CUBLAS_WORKSPACE_CONFIG', same)
    expect(e.measured).toEqual([])
    expect(e.findings.every(f => !f.relevant)).toBe(true)
    expect(e.headline).toBe(
      'no relevant difference found: the stacks agree and no metric showed a difference'
    )
  })
})

test('labels an image declares (CUDA_VERSION, NVIDIA_REQUIRE_CUDA) are never a cause', () => {
  const e = run('cpu-native-refblas', 'cpu-native-declarative', slower('cpu-native-refblas', 40))
  expect(e.findings.filter(f => f.relevant)).toEqual([])
  const declared = e.findings.filter(f => f.kind === 'env').map(f => [f.label, f.impact])
  expect(declared).toEqual(
    expect.arrayContaining([
      ['CUDA_VERSION', 0],
      ['NVIDIA_REQUIRE_CUDA', 0]
    ])
  )
  // One sentence: the bold lead runs into what was compared, ending with a full stop.
  expect(whyMarkdown(e)).toMatch(
    /\*\*No relevant difference found\*\* among the recorded facts for matmul kernel_ms \+\d+(\.\d+)?%\.\n/
  )
})

test('native reference BLAS vs an image with OpenBLAS: the BLAS is named first', () => {
  const measured = analysis(rows('cpu-native-refblas', 'native'), rows('cpu-container-openblas', 'container'))
  const e = run('cpu-native-refblas', 'cpu-container-openblas', measured.comparisons, 'cpu')
  const top = e.findings[0]!
  expect(top.label).toMatch(/^BLAS library/)
  expect([top.baseline, top.candidate]).toEqual(['reference', 'openblas'])
  expect(top.also).toEqual(expect.arrayContaining(['numpy.blas.config']))
  const md = whyMarkdown(e)
  expect(md).toContain('| BLAS library (numpy.blas.name)')
})

test('an image ENV that sets the variable is marked as coming from the image', () => {
  const e = explain({
    baselineEnv: 'native',
    candidateEnv: 'container',
    device: 'gpu',
    alpha: 0.05,
    stacks: [
      stackOf('cpu-native-refblas', 'native'),
      stackOf('cpu-native-NVIDIA_TF32_OVERRIDE', 'container')
    ],
    imageEnv: { container: { NVIDIA_TF32_OVERRIDE: '0', PATH: '/usr/bin' } },
    comparisons: slower('cpu-native-refblas', 40),
    telemetry: []
  })
  expect(e.findings[0]!.from_image_env).toBe(true)
  expect(whyMarkdown(e)).toContain('(image ENV)')
})

test('every known variable has a meaning and a fix, and declarative ones have no domain', () => {
  for (const [name, k] of Object.entries(ENV_KNOWLEDGE)) {
    expect(`${name}: ${k.meaning}`).toMatch(/: \S/)
    expect(k.fix.length).toBeGreaterThan(3)
    if (k.impact === 0) expect(k.domains).toEqual([])
  }
})

test('the stack digest ignores declarative labels and a filling JIT cache, not a real variable', () => {
  const facts = (name: string): Record<string, unknown> => stackOf(name, 'x').facts
  const base = stackDigest(facts('cpu-native-refblas'))
  expect(stackDigest(facts('cpu-native-declarative'))).toBe(base)
  expect(stackDigest(facts('cpu-native-OMP_NUM_THREADS'))).not.toBe(base)
  expect(stackDigest(facts('cpu-container-openblas'))).not.toBe(base)
  expect(base).toMatch(/^stack:[0-9a-f]{16}$/)
})

test('explainCheck explains the primary pair of an analysis, and nothing without one', () => {
  const measured = analysis(rows('cpu-native-refblas', 'native'), rows('cpu-container-openblas', 'container'))
  const stacks = [
    { environment: 'native', workload: 'matmul', run: 1, facts: stackOf('cpu-native-refblas', 'n').facts },
    {
      environment: 'container',
      workload: 'matmul',
      run: 1,
      facts: stackOf('cpu-container-openblas', 'c').facts
    }
  ]
  const e = explainCheck({ analysis: measured, device: 'cpu', stacks, telemetry: [], imageEnv: {} })
  expect(e?.findings[0]?.label).toMatch(/BLAS/)
  expect(explainCheck({ analysis: null, device: 'cpu', stacks, telemetry: [], imageEnv: {} })).toBeNull()
})

test("a BLAS library's variable set where that library is not loaded is not a cause", () => {
  // The native arm runs on the reference BLAS: OPENBLAS_* there changes nothing.
  const base = stackOf('cpu-native-refblas', 'native')
  const env = { ...(base.facts['env'] as Record<string, string>), OPENBLAS_CORETYPE: 'Haswell' }
  const doctored = { ...base, facts: { ...base.facts, env } }
  const e = explain({
    baselineEnv: 'native',
    candidateEnv: 'container',
    device: 'cpu',
    alpha: 0.05,
    stacks: [doctored, stackOf('cpu-native-refblas', 'container')],
    imageEnv: {},
    comparisons: slower('cpu-native-refblas', 40),
    telemetry: []
  })
  const f = e.findings.find(x => x.key === 'env:OPENBLAS_CORETYPE')!
  expect([f.impact, f.relevant]).toEqual([0, false])
})

describe('cgroup limits', () => {
  // Recorded on an H200: the native process read the host root's cgroup files (none), the container its own
  // ("max 100000"); neither had a limit, yet "CPU allotment ∅ → max 100000" was the top reason of undecided
  // checks on 4 x H100 hosts (docs/evidence/2026-11-26-h100x4-shared-host).
  const native = stackOf('h200-gpu-llm-native', 'native')
  const container = stackOf('h200-gpu-matmul-tf32-container-override0', 'container')
  const withLimits = (s: ArmStack, cpu: string, memory: string): ArmStack => ({
    ...s,
    facts: { ...s.facts, cpu: { ...(s.facts['cpu'] as object), cpu_limit: cpu, memory_limit: memory } }
  })
  const allotment = (a: ArmStack, b: ArmStack) =>
    explain({
      baselineEnv: 'native',
      candidateEnv: 'container',
      device: 'gpu',
      alpha: 0.05,
      stacks: [a, b],
      imageEnv: {},
      comparisons: slower('h200-gpu-llm-native', 5),
      telemetry: []
    }).findings.filter(f => /CPU allotment|memory limit|cgroup/.test(f.label))

  test('the mount files of the two arms are never a finding', () => {
    expect((native.facts['cpu'] as Record<string, unknown>)['cgroup_cpu_max']).toBeNull()
    expect((container.facts['cpu'] as Record<string, unknown>)['cgroup_cpu_max']).toBe('max 100000')
    expect(allotment(native, container)).toEqual([])
    expect(allotment(withLimits(native, 'max', 'max'), withLimits(container, 'max', 'max'))).toEqual([])
  })

  test('a quota in effect in one arm is the CPU allotment finding; a memory limit its own', () => {
    const found = allotment(
      withLimits(native, 'max', 'max'),
      withLimits(container, '150000 100000', '536870912')
    )
    expect(found.map(f => [f.label, f.baseline, f.candidate])).toEqual(
      expect.arrayContaining([
        [expect.stringMatching(/^CPU allotment/), 'max', '150000 100000'],
        [expect.stringMatching(/^memory limit/), 'max', '536870912']
      ])
    )
  })

  test('the limits in effect stay out of the stack digest, so stored baselines keep matching', () => {
    expect(stackDigest(withLimits(native, 'max', 'max').facts)).toBe(stackDigest(native.facts))
    expect(stackDigest(withLimits(container, '150000 100000', '1').facts)).toBe(stackDigest(container.facts))
  })
})

describe('an undecided TPOT on a host whose level changes over time (4 x H100 hosts)', () => {
  /** Per-process TPOT medians of both arms, run by run, through the analysis and the explainer (same stacks). */
  const explainTpot = (native: number[], container: number[]) => {
    const tpot = (environment: string, values: number[]): RawRowLike[] =>
      values.map((value, i) => ({
        workload: 'llm',
        environment,
        run: i + 1,
        metric: 'tpot_ms',
        value,
        unit: 'ms',
        scope: 'steady'
      }))
    const measured = analysis(tpot('native', native), tpot('container', container))
    const same = stackOf('h200-gpu-llm-native', 'x')
    const e = explainCheck({
      analysis: measured,
      device: 'gpu',
      stacks: [
        { environment: 'native', workload: 'llm', run: 1, facts: same.facts },
        { environment: 'container', workload: 'llm', run: 1, facts: same.facts }
      ],
      telemetry: [],
      imageEnv: {}
    })!
    return { c: measured.comparisons.find(x => x.metric === 'tpot_ms')!, e }
  }

  test('blocks far off the others are named in the headline, beside "no relevant difference"', () => {
    // One check beside another (docs/evidence/2026-11-27-h100x4-alone, call 3): the level changed every few
    // processes, so three blocks straddled a change; neither arm splits at a clear gap.
    const { c, e } = explainTpot(
      [2.8241, 3.1497, 2.8444, 2.8414, 3.1382, 3.0269],
      [3.0381, 3.1894, 3.1665, 3.181, 2.8591, 3.1513]
    )
    expect(c.far_blocks).toBe(3)
    expect(c.shared_levels).toBeUndefined()
    expect(e.headline).toMatch(
      /^no relevant difference found among the recorded facts for llm tpot_ms \+[\d.]+%; llm tpot_ms: 3 blocks far off the others, a host state between a block's two processes or a slow path \(see the notes\)$/
    )
  })

  test('arms that sat at the same two levels are named in the headline, not a stack fact', () => {
    // Beside three other checks (docs/evidence/2026-11-26-h100x4-shared-host).
    const { c, e } = explainTpot(
      [2.887, 3.151, 2.864, 2.828, 2.861, 2.838, 2.835],
      [3.169, 3.2, 2.829, 2.862, 2.857, 2.851, 3.188]
    )
    expect(c.shared_levels).toBe(true)
    expect(c.verdict).toBe('inconclusive')
    // The levels say it already: the far blocks are not named twice.
    expect(e.headline).toMatch(
      /^no relevant difference found among the recorded facts for llm tpot_ms \+[\d.]+%; llm tpot_ms: both arms sat at the same two levels, a state of the host over time \(see the notes\)$/
    )
    expect(whyMarkdown(e)).toMatch(/\*\*No relevant difference found\*\* among the recorded facts/)
  })
})

test('an unknown NVIDIA_ variable ranks below an unknown CUDA_ one; NVIDIA_TF32_OVERRIDE still acts strongly', () => {
  // Images set NVIDIA_* labels and container-toolkit settings; a fixture's NVIDIA_ENTRYPOINT_FIXTURE once led
  // "why the arms differ" for an undecided DataLoader check (docs/evidence/2026-11-27-dataloader.md).
  expect(envKnowledge('NVIDIA_ENTRYPOINT_FIXTURE').impact).toBe(1)
  expect(envKnowledge('CUDA_SOMETHING_NEW').impact).toBe(2)
  expect(envKnowledge('NVIDIA_TF32_OVERRIDE').impact).toBeGreaterThanOrEqual(2)
  expect(envKnowledge('NVIDIA_ENTRYPOINT_FIXTURE').impact).toBeLessThan(envKnowledge('NVTE_X').impact)
})
