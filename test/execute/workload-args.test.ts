/** The workload command lines and the parameters that match a baseline to the same work. */
import { BUILTIN_DEFINITIONS, type IoPaths, type WorkloadSettings } from '../../src/config/index.js'
import type { BuiltinWorkload } from '../../src/types/index.js'

const workloadArgs = (w: BuiltinWorkload, s: WorkloadSettings, io: IoPaths) =>
  BUILTIN_DEFINITIONS[w].args(s, io)
const workloadParams = (w: BuiltinWorkload, s: WorkloadSettings) => BUILTIN_DEFINITIONS[w].params(s)

const io = { data: '/data', checkpoint: '/ckpt' }
const settings = (over: Partial<WorkloadSettings> = {}): WorkloadSettings => ({
  device: 'gpu',
  matmulSize: 10000,
  matmulDtype: 'fp32',
  llmPreset: '1b',
  checkpointMb: 256,
  seed: 1,
  gateIoThroughput: false,
  ...over
})

const valueOf = (argv: string[], flag: string): string | undefined => {
  const i = argv.indexOf(flag)
  return i === -1 ? undefined : argv[i + 1]
}

test('io skips its warm-up pass while its throughput only informs, and keeps it when it gates', () => {
  expect(valueOf(workloadArgs('io', settings(), io), '--warmup')).toBe('0')
  expect(valueOf(workloadArgs('io', settings({ device: 'cpu' }), io), '--warmup')).toBe('0')
  expect(workloadArgs('io', settings({ gateIoThroughput: true }), io)).not.toContain('--warmup')
  expect(valueOf(workloadArgs('io', settings(), io), '--iters')).toBe('1')
  expect(valueOf(workloadArgs('io', settings({ gateIoThroughput: true }), io), '--iters')).toBe('3')
})

test('a GPU llm baseline records the graph prefill, so one recorded with the eager prefill is not matched', () => {
  expect(workloadParams('llm', settings())).toEqual({ device: 'gpu', preset: '1b', prefill: 'cuda-graph' })
  expect(workloadParams('llm', settings({ device: 'cpu', llmPreset: 'tiny' }))).toEqual({
    device: 'cpu',
    preset: 'tiny'
  })
})

test('the llm and matmul command lines carry the settings', () => {
  const llm = workloadArgs('llm', settings(), io)
  expect(valueOf(llm, '--preset')).toBe('1b')
  expect(valueOf(llm, '--iters')).toBe('3')
  // On a GPU one warm-up request after the graph check; on the CPU the workload's own default.
  expect(valueOf(llm, '--warmup')).toBe('1')
  expect(workloadArgs('llm', settings({ device: 'cpu', llmPreset: 'tiny' }), io)).not.toContain('--warmup')
  const mm = workloadArgs('matmul', settings({ device: 'cpu', matmulSize: 512 }), io)
  expect(valueOf(mm, '--size')).toBe('512')
  expect(mm).not.toContain('--iters')
})

test('a gated llm TTFT/TPOT tail runs as many requests per process as its percentile needs (issue 52, T3)', () => {
  const iters = (gateMetrics: { workload: string; metric: string }[], device: 'gpu' | 'cpu' = 'gpu') =>
    valueOf(workloadArgs('llm', settings({ device, gateMetrics }), io), '--iters')
  expect(iters([])).toBe('3')
  expect(iters([], 'cpu')).toBe('6')
  expect(iters([{ workload: 'llm', metric: 'tpot_p99_ms' }])).toBe('300')
  expect(iters([{ workload: 'llm', metric: 'ttft_p90_ms' }], 'cpu')).toBe('30')
  // ITL tails are percentiles of token gaps (127 a request on a GPU, 7 on the CPU): p99 needs 300 of them.
  expect(iters([{ workload: 'llm', metric: 'itl_p99_ms' }])).toBe('3')
  expect(iters([{ workload: 'llm', metric: 'itl_p90_ms' }])).toBe('3')
  expect(iters([{ workload: 'llm', metric: 'itl_p99_ms' }], 'cpu')).toBe('43')
  expect(iters([{ workload: 'vllm-bench-serve', metric: 'p99_ttft_ms' }])).toBe('3')
})
