/**
 * Issue 52: a container arm's processes share one CUDA JIT cache the check keeps (CUDA_CACHE_PATH at
 * /gpu-overhead/jit-cache), so only its first process pays the compile a fresh container pays; the explanation
 * says what that first process compiled and what it cost, from the records of a real H100 check.
 */
import * as fs from 'node:fs'
import { explain } from '../../src/analyze/index.js'
import { jitCacheFindings } from '../../src/analyze/explain/jit-cache.js'
import { armStacks } from '../../src/execute/index.js'
import type { SampleRecord, StackRecord } from '../../src/types/index.js'

interface Recorded {
  samples: Pick<
    SampleRecord,
    'workload' | 'environment' | 'run' | 'iteration' | 'metric' | 'value' | 'unit' | 'scope'
  >[]
  stacks: StackRecord[]
}
const recorded = JSON.parse(
  fs.readFileSync(new URL('../__fixtures__/jit-cache/h100-modes-same-llm.json', import.meta.url), 'utf8')
) as Recorded
const samples = recorded.samples as SampleRecord[]

/** The container's first-process record with its JIT cache's file count replaced. */
function withFiles(files: number): StackRecord[] {
  return recorded.stacks.map(s => {
    if (s.environment !== 'container') return s
    const facts = structuredClone(s.facts) as { torch: { cuda: { jit_cache: { files: number } } } }
    facts.torch.cuda.jit_cache.files = files
    return { ...s, facts }
  })
}

test('the recorded H100 check: container run 1 compiled 8 files into the empty cache; its cost beside the later runs', () => {
  const found = jitCacheFindings(recorded.stacks, samples)
  expect(found.map(f => f.key)).toEqual(['startup:llm:jit-cache'])
  const f = found[0]!
  // Run 1: first kernel 0.85 s + prepare 2.39 s (3.23 unrounded); the 9 later runs 1.96-2.00 s.
  expect(f.candidate).toBe('3.23 s (run 1, empty cache)')
  expect(f.baseline).toMatch(/^1\.9\d s \(later processes, median\)$/)
  expect(f.meaning).toContain('container run 1 started with an empty CUDA JIT cache')
  expect(f.meaning).toContain('compiled 8 file(s) (965 KiB)')
  expect(f.meaning).toContain('its 9 later process(es)')
  expect(f.meaning).toMatch(/pays about 1\.2\d s more/)
  expect(f.fix).toContain('CUDA_CACHE_PATH')
  // The native arm keeps the runner's cache (its CUDA_CACHE_PATH is not the check's): nothing said of it.
  expect(found.some(x => x.meaning.startsWith('native'))).toBe(false)
})

test('an image whose first process compiled nothing needs no JIT on this GPU: no finding', () => {
  expect(jitCacheFindings(withFiles(0), samples)).toEqual([])
})

test('without later processes there is nothing to set the first against: no finding', () => {
  expect(
    jitCacheFindings(
      recorded.stacks,
      samples.filter(s => s.run === 1)
    )
  ).toEqual([])
})

test("through explain: the finding is among the check's start-up findings, never relevant to the steady state", () => {
  const e = explain({
    baselineEnv: 'native',
    candidateEnv: 'container',
    device: 'gpu',
    alpha: 0.05,
    stacks: armStacks(recorded.stacks),
    imageEnv: {},
    comparisons: [],
    telemetry: [],
    processes: { stacks: recorded.stacks, samples }
  })
  const f = e.findings.find(x => x.key === 'startup:llm:jit-cache')
  expect(f).toBeDefined()
  expect(f!.relevant).toBe(false)
  // The check's own CUDA_CACHE_PATH is not reported as a difference of the image's.
  expect(e.findings.some(x => x.key === 'env:CUDA_CACHE_PATH')).toBe(false)
})
