/**
 * The built-ins' exact command lines and recorded params for CPU and GPU settings: pinned against the
 * name-switch code before workloads became definitions (issue 27), so that refactor changes no argv and no
 * baseline key. Read through resolveWorkloads, the one path config takes.
 */
import { resolveWorkloads, type WorkloadSettings } from '../../src/config/index.js'
import { workloadsGatedBySamples } from '../../src/execute/index.js'
import type { CommandWorkload } from '../../src/types/index.js'

const only = (name: string, commands: CommandWorkload[] = []) => resolveWorkloads([name], commands)[0]!

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
    matmul: ['--device', 'gpu', '--seed', '1', '--size', '10000', '--dtype', 'fp32', '--iters', '26'],
    llm: ['--device', 'gpu', '--seed', '1', '--preset', '1b', '--iters', '3', '--warmup', '1'],
    io: [
      ...['--device', 'gpu', '--seed', '1', '--data', '/data', '--ckpt', '/ckpt', '--ckpt-mb', '256'],
      ...['--iters', '1', '--warmup', '0', '--copyup-sizes-mb', '1,16,128']
    ]
  },
  cpu: {
    matmul: ['--device', 'cpu', '--seed', '1', '--size', '512', '--dtype', 'fp32'],
    llm: ['--device', 'cpu', '--seed', '1', '--preset', 'tiny', '--iters', '6'],
    io: [
      ...['--device', 'cpu', '--seed', '1', '--data', '/data', '--ckpt', '/ckpt', '--ckpt-mb', '64'],
      ...['--iters', '1', '--warmup', '0', '--copyup-sizes-mb', '1,16', '--small-files', '500']
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
    const d = only(name)
    expect(d.args(s, io)).toEqual(ARGV[device][name])
    expect(d.params(s)).toEqual(PARAMS[device][name])
    expect(d.start).toEqual({ kind: 'script', script: `${name}.py` })
  })
})

test('a gated io throughput keeps the warm-up pass and 3 passes: --warmup 0 goes, --iters is 3', () => {
  const argv = only('io').args({ ...gpu, gateIoThroughput: true }, io)
  expect(argv).toEqual(
    ARGV.gpu.io
      .filter((_, i, a) => a[i] !== '--warmup' && a[i - 1] !== '--warmup')
      .map((x, i, a) => (a[i - 1] === '--iters' ? '3' : x))
  )
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
  const d = only('bench', commands)
  expect(d.args(gpu, io)).toEqual([])
  expect(d.params(gpu)).toEqual({
    device: 'gpu',
    command: 'python b.py --n 3',
    format: 'wall'
  })
  expect(d.start).toEqual({ kind: 'command', command: commands[0] })
  // Config validates every name first; a name that is neither is a bug, never a silent default.
  expect(() => only('other')).toThrow(/neither a built-in nor a command/)
})

test('what the stages used to read off the names: io folders, llm memory, prestart, results, gating', () => {
  const bench: CommandWorkload = { name: 'bench', argv: ['b'], format: 'hyperfine', source: 'workflow' }
  const all = resolveWorkloads(['matmul', 'llm', 'io', 'bench'], [bench])
  const pick = (f: (d: (typeof all)[number]) => unknown) => Object.fromEntries(all.map(d => [d.name, f(d)]))
  expect(pick(d => d.usesIoFolders)).toEqual({ matmul: false, llm: false, io: true, bench: false })
  expect(pick(d => d.checksLlmMemory)).toEqual({ matmul: false, llm: true, io: false, bench: false })
  expect(pick(d => d.prestart)).toEqual({ matmul: true, llm: true, io: true, bench: false })
  expect(pick(d => d.resultFormat)).toEqual({ matmul: null, llm: null, io: null, bench: 'hyperfine' })
  expect(pick(d => d.domains)).toEqual({
    matmul: 'compute',
    llm: 'compute-and-launch',
    io: 'io',
    bench: 'compute'
  })
  expect(workloadsGatedBySamples(all, false)).toEqual(['matmul', 'llm', 'bench'])
  expect(workloadsGatedBySamples(all, true)).toEqual(['matmul', 'llm', 'io', 'bench'])
})
