/**
 * The built-ins' exact command lines and recorded params for CPU and GPU settings: pinned before workloads
 * became definitions (issue 27), so that refactor provably changes no argv and no baseline key.
 */
import { workloadArgs, workloadParams, type WorkloadSettings } from '../../src/execute/workload-args.js'

const io = { data: '/data', checkpoint: '/ckpt' }
const gpu: WorkloadSettings = {
  device: 'gpu',
  matmulSize: 10000,
  matmulDtype: 'fp32',
  llmPreset: '1b',
  checkpointMb: 256,
  seed: 1,
  gateIoThroughput: false
}
const cpu: WorkloadSettings = { ...gpu, device: 'cpu', matmulSize: 512, llmPreset: 'tiny', checkpointMb: 64 }

const ARGV = {
  gpu: {
    matmul: ['--device', 'gpu', '--seed', '1', '--size', '10000', '--dtype', 'fp32', '--iters', '100'],
    llm: ['--device', 'gpu', '--seed', '1', '--preset', '1b', '--iters', '12'],
    io: [
      ...['--device', 'gpu', '--seed', '1', '--data', '/data', '--ckpt', '/ckpt', '--ckpt-mb', '256'],
      ...['--iters', '3', '--warmup', '0', '--copyup-sizes-mb', '1,16,128']
    ]
  },
  cpu: {
    matmul: ['--device', 'cpu', '--seed', '1', '--size', '512', '--dtype', 'fp32'],
    llm: ['--device', 'cpu', '--seed', '1', '--preset', 'tiny', '--iters', '6'],
    io: [
      ...['--device', 'cpu', '--seed', '1', '--data', '/data', '--ckpt', '/ckpt', '--ckpt-mb', '64'],
      ...['--iters', '3', '--warmup', '0', '--copyup-sizes-mb', '1,16', '--small-files', '500']
    ]
  }
}

const PARAMS = {
  gpu: {
    matmul: { device: 'gpu', size: 10000, dtype: 'fp32' },
    llm: { device: 'gpu', preset: '1b', prefill: 'cuda-graph' },
    io: { device: 'gpu', checkpoint_mb: 256 }
  },
  cpu: {
    matmul: { device: 'cpu', size: 512, dtype: 'fp32' },
    llm: { device: 'cpu', preset: 'tiny' },
    io: { device: 'cpu', checkpoint_mb: 64 }
  }
}

describe.each([
  ['gpu', gpu],
  ['cpu', cpu]
] as const)('built-in workloads on %s', (device, s) => {
  test.each(['matmul', 'llm', 'io'] as const)('%s: the same argv and params', name => {
    expect(workloadArgs(name, s, io)).toEqual(ARGV[device][name])
    expect(workloadParams(name, s)).toEqual(PARAMS[device][name])
  })
})

test('a gated io throughput keeps the warm-up pass: only --warmup 0 goes', () => {
  const argv = workloadArgs('io', { ...gpu, gateIoThroughput: true }, io)
  expect(argv).toEqual(ARGV.gpu.io.filter((_, i, a) => a[i] !== '--warmup' && a[i - 1] !== '--warmup'))
})

test("a user command's params name its command line and format", () => {
  const commands = [
    {
      name: 'bench',
      argv: ['python', 'b.py', '--n', '3'],
      format: 'wall' as const,
      source: 'workflow' as const
    }
  ]
  expect(workloadArgs('bench', { ...gpu, commands }, io)).toEqual([])
  expect(workloadParams('bench', { ...gpu, commands })).toEqual({
    device: 'gpu',
    command: 'python b.py --n 3',
    format: 'wall'
  })
  expect(workloadParams('other', gpu)).toEqual({ device: 'gpu', command: 'other', format: 'auto' })
})
