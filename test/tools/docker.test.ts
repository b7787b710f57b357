import { CONTAINER_WORKLOADS_DIR, ROLE_LABEL, RUN_LABEL, runArgs } from '../../src/tools/docker.js'
import { containerArgs } from '../../src/launchers/engine-cli/index.js'
import { mountArgs, parseMountSpec } from '../../src/config/mount-spec.js'

const ID = `sha256:${'a'.repeat(64)}`

/** The flags every container must carry, each followed by its value, all before the image. */
function expectHardened(args: string[], label: string): void {
  const image = args.indexOf(ID)
  expect(image).toBeGreaterThan(0)
  const before = args.slice(0, image)
  expect(before[0]).toBe('run')
  expect(before).toContain('--rm')
  const pair = (flag: string): string | undefined => before[before.indexOf(flag) + 1]
  expect(pair('--network')).toBe('none')
  expect(pair('--security-opt')).toBe('no-new-privileges')
  expect(pair('--label')).toBe(`${RUN_LABEL}=${label}`)
  const labels = before.flatMap((a, i) => (a === '--label' ? [before[i + 1]] : []))
  expect(labels.filter(l => l?.startsWith(`${ROLE_LABEL}=`))).toHaveLength(1)
}

describe('tools/docker runArgs', () => {
  it('a probe (entrypoint, --mount binds, extra args) gets the same hardening as a workload', () => {
    const args = runArgs(
      {
        image: ID,
        label: 'check-1',
        mounts: [{ host: '/h', container: '/data', readOnly: true }],
        extraArgs: ['--tmpfs', '/scratch'],
        entrypoint: 'python3',
        command: ['-c', 'print(1)']
      },
      'mount'
    )
    expectHardened(args, 'check-1')
    // Not marked as a probe: the default role is workload.
    expect(args).toContain(`${ROLE_LABEL}=workload`)
    expect(runArgs({ image: ID, label: 'c', role: 'probe', command: [] })).toContain(`${ROLE_LABEL}=probe`)
    expect(args).toContain('type=bind,source=/h,target=/data,readonly=true')
    expect(args.slice(args.indexOf(ID))).toEqual([ID, '-c', 'print(1)'])
    expect(args[args.indexOf('--entrypoint') + 1]).toBe('python3')
  })

  it('a workload container: workloads folder read-only, env, memory without extra swap, command last', () => {
    const args = containerArgs({
      runtime: 'docker',
      imageRef: ID,
      name: 'n1',
      checkId: 'check-2',
      workloadsDir: '/w',
      script: 'matmul.py',
      args: ['--size', '8'],
      mounts: [{ host: '/d', container: '/data', readOnly: false }],
      gpuArgs: ['--gpus', 'all'],
      env: { A: '1' },
      timeoutMs: 1000,
      memory: '1g'
    })
    expectHardened(args, 'check-2')
    expect(args).toContain(`/w:${CONTAINER_WORKLOADS_DIR}:ro`)
    expect(args).toContain('/d:/data')
    expect(args).toContain('A=1')
    expect(args[args.indexOf('--memory-swap') + 1]).toBe('1g')
    expect(args.slice(args.indexOf(ID))).toEqual([
      ID,
      'python3',
      `${CONTAINER_WORKLOADS_DIR}/matmul.py`,
      '--size',
      '8'
    ])
  })

  it('mount specs become --mount binds; image paths need none', () => {
    const specs = [parseMountSpec('/tmp:/data:ro', 'data'), parseMountSpec('/ckpt', 'ckpt')]
    expect(mountArgs(specs)).toEqual(['--mount', 'type=bind,source=/tmp,target=/data,readonly=true'])
  })
})
