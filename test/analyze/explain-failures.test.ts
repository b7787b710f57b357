/**
 * Issue 26: a failed arm is explained from what was recorded about it (the image's ENV, the error, the log),
 * with the fix — never "no relevant difference found: the stacks agree and no metric showed a difference".
 */
import { explainCheck } from '../../src/analyze/explain/explain.js'
import { armFailures, failureFindings } from '../../src/analyze/explain/failures.js'
import type { RunRecord } from '../../src/types/index.js'
import { runRecord } from '../helpers/run-record.js'

function run(
  environment: string,
  status: RunRecord['status'],
  error: string | null,
  workload = 'matmul'
): RunRecord {
  return runRecord({
    workload,
    environment,
    exit_code: status === 'ok' ? 0 : 2,
    status,
    error,
    measured_s: null,
    regions: [],
    stack: null
  })
}

function explainFailed(error: string, imageEnv: Record<string, string> = {}, environment = 'container') {
  const e = explainCheck({
    analysis: null,
    device: 'gpu',
    stacks: [],
    telemetry: [],
    imageEnv: { container: imageEnv },
    runs: [run('native', 'ok', null), run(environment, 'failed', error)],
    arms: ['native', 'container']
  })
  expect(e).not.toBeNull()
  return e!
}

describe('failed arms explained', () => {
  it("names the image's CUDA_VISIBLE_DEVICES when the container saw no GPU (the field's case)", () => {
    const e = explainFailed('no_gpu: torch.cuda.is_available() is False', {
      CUDA_VISIBLE_DEVICES: 'GPU-00000000-1111-2222-3333-444444444444',
      NVIDIA_VISIBLE_DEVICES: 'all'
    })
    expect(e.headline).not.toMatch(/no relevant difference/)
    expect(e.headline).toMatch(/CUDA_VISIBLE_DEVICES/)
    expect(e.headline).toMatch(/GPU-00000000/)
    const top = e.findings[0]!
    expect(top.kind).toBe('failure')
    expect(top.from_image_env).toBe(true)
    expect(top.fix).toMatch(/CUDA_VISIBLE_DEVICES/)
  })

  it('names NVIDIA_VISIBLE_DEVICES=void, and otherwise the GPU access mode', () => {
    expect(
      explainFailed('no_gpu: no CUDA GPUs are available', { NVIDIA_VISIBLE_DEVICES: 'void' }).headline
    ).toMatch(/NVIDIA_VISIBLE_DEVICES/)
    expect(explainFailed('no_gpu: torch.cuda.is_available() is False').findings[0]!.fix).toMatch(/gpu-access/)
  })

  it.each([
    ["missing_backend: No module named 'torch'", /torch/, /image that ships it/],
    ['exit code 1: ImportError: libcudart.so.13: cannot open shared object file', /libcudart/, /image/],
    ['oom: CUDA out of memory. Tried to allocate 20.00 GiB', /out of memory/, /container-memory/],
    [
      'exit code 125: docker: Error response from daemon: error setting rlimit type 8: operation not permitted',
      /ulimit/,
      /CAP_SYS_RESOURCE|lower the limit/
    ],
    ['exit code 0; no protocol events arrived (did the entrypoint exec "$@"?)', /never ran/, /exec "\$@"/],
    ['exit code 127: /opt/nvidia/nvidia_entrypoint.sh: exec: python3: not found', /python3/, /python3/],
    ['exit code 135: Bus error (core dumped) writing /dev/shm/torch_1', /shm/, /--shm-size|--ipc=host/],
    // A DataLoader on Docker's 64 MiB /dev/shm, 4 x H100 (docs/evidence/2026-11-27-dataloader.md): the worker's
    // error re-raised in the main process, as the protocol helper now reports it (first and last line).
    [
      'runtime: RuntimeError: Caught RuntimeError in DataLoader worker process 1. … RuntimeError: unable to write to file </torch_4242_1838461929_0>: No space left on device (28)',
      /shm/,
      /--shm-size|--ipc=host/
    ]
  ])('%s → names the cause and the fix', (error, label, fix) => {
    const top = explainFailed(error).findings[0]!
    expect(top.kind).toBe('failure')
    expect(`${top.label} ${top.candidate ?? ''} ${top.meaning}`).toMatch(label)
    expect(top.fix).toMatch(fix)
  })

  it("a container the engine's runtime refuses on this host (crun on hybrid cgroups, recorded) names the host, not the image", () => {
    const error =
      'exit code 126: Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2'
    const top = explainFailed(error).findings[0]!
    expect(top.kind).toBe('failure')
    expect(top.key).toBe('container:failure:host:cgroups-hybrid')
    expect(top.label).toBe('container arm failed: the engine cannot start containers on this host')
    expect(top.meaning).toMatch(/hybrid cgroups/)
    // The runtime is not known here: both fixes.
    expect(top.fix).toMatch(/^podman: make runc podman's OCI runtime .*; docker: make runc dockerd's runtime/)
    const podman = explainCheck({
      analysis: null,
      device: 'cpu',
      stacks: [],
      telemetry: [],
      imageEnv: { container: {} },
      runs: [run('native', 'ok', null), run('container', 'failed', error)],
      arms: ['native', 'container'],
      runtime: 'podman'
    })!.findings[0]!
    expect(podman.fix).toMatch(/^make runc podman's OCI runtime \(runtime = "runc" in the \[engine\] table/)
    expect(podman.fix).not.toMatch(/daemon\.json/)
  })

  it('a native failure is the host Python, not the image', () => {
    const e = explainFailed(
      "missing_backend: No module named 'numpy'",
      { CUDA_VISIBLE_DEVICES: 'x' },
      'native'
    )
    expect(e.findings[0]!.label).toMatch(/^native arm failed/)
    expect(e.findings[0]!.fix).toMatch(/native Python/)
  })

  it('one finding per arm and cause, timeouts and cancels are not failures to explain', () => {
    const runs = [
      run('container', 'failed', 'no_gpu: a'),
      run('container', 'failed', 'no_gpu: b', 'llm'),
      run('container', 'timeout', 'timed out'),
      run('native', 'cancelled', 'cancelled')
    ]
    expect(armFailures(runs)).toHaveLength(1)
  })

  it('without failures nothing changes: no explanation without compared arms', () => {
    expect(
      explainCheck({
        analysis: null,
        device: 'cpu',
        stacks: [],
        telemetry: [],
        imageEnv: {},
        runs: [],
        arms: ['native', 'container']
      })
    ).toBeNull()
  })
})

/**
 * Every cause, in both arms, and which one wins when an error matches several (the order of the rules): the cause
 * table of src/analyze/explain/failure-causes.ts, pinned by key here and by its full text (label, meaning, fix, the
 * arms' columns) in the snapshot.
 */
describe('every cause and its precedence', () => {
  const HYBRID =
    'exit code 126: Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2'
  const NO_INIT =
    'exit code 125: Error: container-init binary not found on the host: stat /usr/libexec/podman/catatonit: no such file or directory'
  const RLIMIT =
    'exit code 125: docker: Error response from daemon: error setting rlimit type 8: operation not permitted'
  const cases: [string, Record<string, string>, string, string][] = [
    // error, the container image's ENV, container cause, native cause
    [HYBRID, {}, 'failure:host:cgroups-hybrid', 'failure:other'],
    [NO_INIT, {}, 'failure:host:init-missing', 'failure:other'],
    [RLIMIT, {}, 'failure:rlimit', 'failure:other'],
    ['exit code 125: docker: unknown flag: --gpu', {}, 'failure:engine', 'failure:other'],
    ["exit code 125: Error: No module named 'torch'", {}, 'failure:engine', 'failure:missing:torch'],
    ['exit code 0; no protocol events arrived (no_gpu)', {}, 'failure:no-events', 'failure:no-events'],
    ['no_gpu: torch.cuda.is_available() is False', {}, 'failure:no-gpu', 'failure:no-gpu'],
    ['no_gpu: x', { CUDA_VISIBLE_DEVICES: '' }, 'env:CUDA_VISIBLE_DEVICES', 'failure:no-gpu'],
    [
      'CUDA_ERROR_NO_DEVICE',
      { CUDA_VISIBLE_DEVICES: '1', NVIDIA_VISIBLE_DEVICES: 'void' },
      'env:CUDA_VISIBLE_DEVICES',
      'failure:no-gpu'
    ],
    [
      'no CUDA-capable device',
      { NVIDIA_VISIBLE_DEVICES: 'void' },
      'env:NVIDIA_VISIBLE_DEVICES',
      'failure:no-gpu'
    ],
    [
      'no CUDA-capable device',
      { NVIDIA_VISIBLE_DEVICES: '' },
      'env:NVIDIA_VISIBLE_DEVICES',
      'failure:no-gpu'
    ],
    ['no CUDA-capable device', { NVIDIA_VISIBLE_DEVICES: 'all' }, 'failure:no-gpu', 'failure:no-gpu'],
    [
      "missing_backend: No module named 'numpy.core'",
      {},
      'failure:missing:numpy.core',
      'failure:missing:numpy.core'
    ],
    [
      'ImportError: libcudart.so.13: cannot open shared object file; out of memory',
      {},
      'failure:missing:libcudart.so.13',
      'failure:missing:libcudart.so.13'
    ],
    [
      'exit code 127: /opt/nvidia/nvidia_entrypoint.sh: exec: python3: not found',
      {},
      'failure:no-python',
      'failure:other'
    ],
    ['exec: "python3": executable file not found in $PATH', {}, 'failure:no-python', 'failure:other'],
    ['exit code 137', {}, 'failure:oom', 'failure:oom'],
    ['oom: Cannot allocate memory in /dev/shm', {}, 'failure:oom', 'failure:oom'],
    ['exit code 135: Bus error (core dumped)', {}, 'failure:shm', 'failure:other'],
    ['OSError: shared memory segment full; Permission denied', {}, 'failure:shm', 'failure:other'],
    [
      "PermissionError: [Errno 13] Permission denied: '/gpu-overhead/run/events'",
      {},
      'failure:denied',
      'failure:other'
    ],
    ['exit code 1: EACCES', {}, 'failure:denied', 'failure:other'],
    ['exit code 1: ValueError: bad size', {}, 'failure:other', 'failure:other']
  ]

  const findingOf = (
    error: string,
    imageEnv: Record<string, string>,
    environment: 'container' | 'native'
  ) => {
    const f = failureFindings(
      [{ environment, workload: 'matmul', error }],
      { container: imageEnv },
      ['container'],
      'native'
    )
    expect(f).toHaveLength(1)
    return f[0]!
  }

  it.each(cases)('%s (image ENV %j) → container %s, native %s', (error, env, container, native) => {
    expect(findingOf(error, env, 'container').key).toBe(`container:${container}`)
    expect(findingOf(error, env, 'native').key).toBe(`native:${native}`)
  })

  it('says the same as before, word for word', () => {
    const text = cases.map(([error, env]) =>
      (['container', 'native'] as const).map(arm => {
        const f = findingOf(error, env, arm)
        return {
          arm,
          error,
          key: f.key,
          label: f.label,
          baseline: f.baseline,
          candidate: f.candidate,
          meaning: f.meaning,
          fix: f.fix,
          from_image_env: f.from_image_env ?? false
        }
      })
    )
    expect(text).toMatchSnapshot()
  })

  it('one finding per arm and cause, listing every workload it hit', () => {
    const f = failureFindings(
      [
        { environment: 'container', workload: 'matmul', error: 'exit code 137' },
        { environment: 'container', workload: 'llm', error: 'oom: killed' },
        { environment: 'container', workload: 'llm', error: 'exit code 137 again' },
        { environment: 'native', workload: 'llm', error: 'exit code 137' }
      ],
      {},
      ['container'],
      'native'
    )
    expect(f.map(x => [x.key, x.workloads, x.baseline, x.candidate])).toEqual([
      ['container:failure:oom', ['matmul', 'llm'], 'ran', 'exit code 137'],
      ['native:failure:oom', ['llm'], 'exit code 137', 'ran']
    ])
    expect(f.every(x => x.impact === 3 && x.relevant && x.kind === 'failure')).toBe(true)
  })
})

describe('a path the container could not open (issue 40)', () => {
  const failedCommand = (error: string, command: string) => {
    const failed = { ...run('container', 'failed', error, 'mine'), params: { command, format: 'auto' } }
    const e = explainCheck({
      analysis: null,
      device: 'gpu',
      stacks: [],
      telemetry: [],
      imageEnv: { container: {} },
      runs: [{ ...run('native', 'ok', null, 'mine'), params: { command } }, failed],
      arms: ['native', 'container']
    })
    expect(e).not.toBeNull()
    return e!.findings[0]!
  }

  it("names the entrypoint's cd when a relative path was looked for outside the workspace, with {workspace} as the fix", () => {
    // What python3 prints when the entrypoint ran `cd /opt/app` before exec "$@" (the field's case).
    const f = failedCommand(
      "exit code 2: NOTE: banner | python3: can't open file '/opt/app/bench/loader.py': [Errno 2] No such file or directory",
      'python3 bench/loader.py --epochs 4'
    )
    expect(f.key).toBe('container:failure:workdir-moved')
    expect(f.candidate).toBe('bench/loader.py → /opt/app/bench/loader.py')
    expect(f.meaning).toMatch(/looked for in \/opt\/app, not in the workspace.*entrypoint changed directory/)
    expect(f.fix).toMatch(/\{workspace\}\/bench\/loader\.py/)
    expect(f.fix).toMatch(/no cd before exec "\$@"/)
  })

  it('a missing absolute path outside the workspace is named as a file the container does not have', () => {
    const f = failedCommand(
      "exit code 2: python3: can't open file '/home/runner/data/prep.py': [Errno 2] No such file or directory",
      'python3 /home/runner/data/prep.py'
    )
    expect(f.key).toBe('container:failure:path')
    expect(f.candidate).toBe('/home/runner/data/prep.py')
    expect(f.fix).toMatch(/\{workspace\}/)
  })
})
