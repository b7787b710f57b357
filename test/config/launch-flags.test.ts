/**
 * Issue 26: `container-args`, the container arm's launch flags. A trusted input (workflow or CLI), never the
 * checked-out config file; an allow-list all the same, refused otherwise with the allowed list.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { containerLaunchArgs, launchFlagFacts, loadConfig } from '../../src/config/index.js'
import { LAUNCH_FLAG_EXAMPLES } from '../../src/config/launch-flags.js'
import { containerArgs } from '../../src/launchers/engine-cli/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { InputError } from '../../src/util/errors.js'

const IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)
const CPU = { [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu', [Inputs.Python]: '/usr/bin/python3' }

function refused(raw: string, memory: string | null = null): InputError {
  try {
    containerLaunchArgs(raw, memory)
  } catch (e) {
    if (e instanceof InputError) return e
    throw e
  }
  throw new Error(`expected ${raw} to be refused`)
}

describe('container-args', () => {
  it("takes NGC's flags in every spelling, as an argv of --flag value pairs", () => {
    expect(containerLaunchArgs('--ipc=host --ulimit memlock=-1 --ulimit stack=67108864', null)).toEqual([
      '--ipc',
      'host',
      '--ulimit',
      'memlock=-1',
      '--ulimit',
      'stack=67108864'
    ])
    expect(
      containerLaunchArgs(
        '--shm-size 8g\n--cpuset-cpus=0-7,16\n-e OMP_NUM_THREADS=8 # threads\n-u 1000:1000',
        null
      )
    ).toEqual([
      '--shm-size',
      '8g',
      '--cpuset-cpus',
      '0-7,16',
      '--env',
      'OMP_NUM_THREADS=8',
      '--user',
      '1000:1000'
    ])
    expect(containerLaunchArgs('--tmpfs /scratch:size=1g --cpus 7.5 --pids-limit 4096', null)).toHaveLength(6)
    expect(containerLaunchArgs('', null)).toEqual([])
  })

  it.each([
    '--privileged',
    '-v /:/host',
    '--volume=/var/run/docker.sock:/s',
    '--mount type=bind,source=/,target=/h',
    '--device /dev/sda',
    '--cap-add SYS_ADMIN',
    '--security-opt seccomp=unconfined',
    '--network host',
    '--pid=host',
    '--userns host',
    '--runtime nvidia',
    '--gpus all',
    '--entrypoint /bin/sh',
    '--ipc container:abc',
    '--ulimit bogus=1',
    '--shm-size lots',
    '-e GPU_OVERHEAD_EVENTS=/etc/passwd',
    '-e =x',
    '--tmpfs /',
    '--tmpfs /gpu-overhead/run',
    '--tmpfs relative',
    '--ipc',
    '--user root;id'
  ])('refuses %s, naming the input and the allowed flags', raw => {
    const e = refused(raw)
    expect(e.input).toBe(Inputs.ContainerArgs)
    expect(e.message.split('\n')).toHaveLength(1)
    expect(e.message).toMatch(/--ipc|--shm-size|allowed|NAME=VALUE|absolute|USER|host, private/)
  })

  it('refuses --memory beside container-memory (one of them sets the limit)', () => {
    expect(refused('--memory 8g', '16g').message).toMatch(/container-memory/)
    expect(containerLaunchArgs('--memory 8g', null)).toEqual(['--memory', '8g'])
  })

  it('is a workflow input or flag only: the checked-out config file cannot set it', () => {
    const w = fs.mkdtempSync(path.join(os.tmpdir(), 'launch-cfg-'))
    fs.writeFileSync(path.join(w, 'gpu-overhead.yml'), 'container-args: "--ipc=host"\n')
    let error: unknown = null
    try {
      loadConfig({ workspace: w, flags: { ...CPU, [Inputs.Config]: 'gpu-overhead.yml' } })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe(Inputs.ContainerArgs)
    const ok = loadConfig({
      workspace: fs.mkdtempSync(path.join(os.tmpdir(), 'launch-cfg-')),
      flags: { ...CPU, [Inputs.ContainerArgs]: '--ipc=host --shm-size=1g' }
    })
    expect(ok.containerArgs).toEqual(['--ipc', 'host', '--shm-size', '1g'])
  })

  it('turns the flags into facts (ulimits and env by name)', () => {
    expect(launchFlagFacts(['--ipc', 'host', '--ulimit', 'memlock=-1', '--env', 'A=1'])).toEqual({
      ipc: 'host',
      'ulimit.memlock': 'memlock=-1',
      'env.A': '1'
    })
  })
})

/**
 * Issue 53 (C18-10, -12, -13): every allow-listed flag reaches the engine as given. Generated from the
 * allow-list itself (LAUNCH_FLAG_EXAMPLES), so a flag added to it is covered here without a new line.
 */
describe('container-args reach the engine as given', () => {
  /** docker run's own short flags, from `docker run --help` (the oracle: not the module's own table). */
  const DOCKER_SHORT: Record<string, string> = {
    '-m': '--memory',
    '-e': '--env',
    '-u': '--user',
    '-w': '--workdir'
  }
  const longOf = (flag: string): string => DOCKER_SHORT[flag] ?? flag
  const argvOf = (launchArgs: string[]): string[] =>
    containerArgs({
      runtime: 'docker',
      imageRef: 'sha256:' + 'b'.repeat(64),
      name: 'n',
      checkId: 'c',
      workloadsDir: '/w',
      script: 'matmul.py',
      args: [],
      mounts: [],
      gpuArgs: [],
      env: {},
      timeoutMs: 1000,
      launchArgs
    })

  it('covers a flag of every rule (the list is not empty)', () => {
    expect(LAUNCH_FLAG_EXAMPLES.map(([f]) => f)).toEqual(
      expect.arrayContaining([
        '--pids-limit',
        '--cpuset-mems',
        '--memory-swap',
        '--cpu-shares',
        '-m',
        '--ipc'
      ])
    )
  })

  // `--flag=value` for the long names only: `-m=1g` is no spelling of docker's either.
  const spellings = LAUNCH_FLAG_EXAMPLES.flatMap(([flag, value]) =>
    flag.startsWith('--')
      ? [[flag, value, ' '] as const, [flag, value, '='] as const]
      : [[flag, value, ' '] as const]
  )
  it.each(spellings)(
    '%s %s (joined by "%s") is passed as that flag with that value',
    (flag, value, joiner) => {
      // A swap limit needs a memory limit (docker refuses it alone); the memory one is given first.
      const before = flag === '--memory-swap' ? '--memory 256m ' : ''
      const launch = containerLaunchArgs(`${before}${flag}${joiner}${value}`, null)
      const argv = argvOf(launch)
      const image = argv.indexOf('sha256:' + 'b'.repeat(64))
      const flags = argv.slice(0, image)
      const long = longOf(flag)
      // The last word given for this flag (the engine takes the last) is the value asked for.
      expect(flags[flags.lastIndexOf(long) + 1]).toBe(value)
      expect(launch.slice(-2)).toEqual([long, value])
      // No other allow-listed flag is made up from it: the launch argv is exactly what was written.
      const asked = before === '' ? [long, value] : ['--memory', '256m', long, value]
      expect(launch).toEqual(asked)
    }
  )

  it('--memory-swap alone is refused with the reason (the engine needs --memory with it)', () => {
    expect(refused('--memory-swap 1g').message).toMatch(/--memory-swap together with --memory/)
  })
})
