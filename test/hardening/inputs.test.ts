/**
 * Inputs added or tightened by the hardening work: container-memory (docker's size syntax, at least
 * docker's 6m minimum) and paths that get bind-mounted, which must not hold the characters `-v` and
 * `--mount` split on. Each bad value is an InputError naming the input (exit 2, one line).
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { loadConfig, type RawInputs } from '../../src/config/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { InputError } from '../../src/util/errors.js'
import { containerArgs } from '../../src/launchers/engine-cli/index.js'

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'hardening-inputs-'))
const IMAGE = 'local/gpu-overhead-test:py'
const load = (flags: RawInputs) => loadConfig({ workspace, flags: { [Inputs.Image]: IMAGE, ...flags } })

function inputError(fn: () => unknown): InputError {
  try {
    fn()
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('no InputError thrown')
}

describe('container-memory', () => {
  it.each([
    ['256m', '256m'],
    ['8g', '8g'],
    ['1.5G', '1.5g'],
    ['6m', '6m'],
    [' 512M ', '512m'],
    ['6291456', '6291456'],
    ['6144k', '6144k']
  ])('%j is accepted as %j', (raw, want) => {
    expect(load({ [Inputs.ContainerMemory]: raw }).containerMemory).toBe(want)
  })
  it('empty means no limit', () => {
    expect(load({}).containerMemory).toBeNull()
  })
  it.each(['12x', '5m', '6291455', '-1g', '1e9', '1.g', '.5g', '1 g', '1gb', '0', 'lots', '$(id)', '64m;id'])(
    '%j is an InputError naming container-memory',
    raw => {
      const err = inputError(() => load({ [Inputs.ContainerMemory]: raw }))
      expect(err.input).toBe(Inputs.ContainerMemory)
      expect(err.exitCode).toBe(2)
      expect(err.message).toMatch(/at least 6m.*e\.g\. 8g or 512m/)
      expect(err.message.split('\n')).toHaveLength(1)
    }
  )
  it('becomes --memory X --memory-swap X on the container (no swap on top), nothing when unset', () => {
    const base = {
      runtime: 'docker' as const,
      imageRef: IMAGE,
      name: 'n',
      checkId: 'c',
      workloadsDir: '/w',
      script: 'matmul.py',
      args: [],
      mounts: [],
      gpuArgs: [],
      env: {},
      timeoutMs: 1000
    }
    const args = containerArgs({ ...base, memory: '64m' })
    const i = args.indexOf('--memory')
    expect(args.slice(i, i + 4)).toEqual(['--memory', '64m', '--memory-swap', '64m'])
    expect(args.indexOf('--memory')).toBeLessThan(args.indexOf(IMAGE))
    expect(containerArgs(base)).not.toContain('--memory')
  })
})

describe('bind-mounted paths must not hold `:` or `,`', () => {
  for (const bad of ['d:x', 'd,x']) fs.mkdirSync(path.join(workspace, bad), { recursive: true })
  it.each([
    [Inputs.DataPath, 'd:x'],
    [Inputs.DataPath, 'd,x'],
    [Inputs.CheckpointPath, 'd:x'],
    [Inputs.DriverMount, 'd:x']
  ])('%s = %j (an existing folder) is refused', (input, raw) => {
    const err = inputError(() => load({ [input]: raw }))
    expect(err.input).toBe(input)
    expect(err.message).toMatch(/no `:` or `,` in the path/)
  })
  it('out with `:` is refused only when the io workload mounts folders under it into a container', () => {
    expect(inputError(() => load({ [Inputs.Out]: 'o:x', [Inputs.Workloads]: 'io' })).input).toBe(Inputs.Out)
    expect(load({ [Inputs.Out]: 'o:x', [Inputs.Workloads]: 'matmul' }).out).toBe(path.join(workspace, 'o:x'))
    expect(load({ [Inputs.Out]: 'o:x', [Inputs.Workloads]: 'io', [Inputs.Arms]: 'native,native' }).out).toBe(
      path.join(workspace, 'o:x')
    )
  })
})

describe('image is never trimmed into validity', () => {
  it.each(['ubuntu ', ' ubuntu', 'ubuntu\n', `${IMAGE}\t`])('%j is an InputError naming image', raw => {
    expect(inputError(() => load({ [Inputs.Image]: raw })).input).toBe(Inputs.Image)
  })
  it('blank means no image', () => {
    expect(load({ [Inputs.Image]: '  ', [Inputs.Arms]: 'native,native' }).image).toBeNull()
  })
})
