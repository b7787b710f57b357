/**
 * Issue 51, item 6: a message that names a setting names it the way the user's entry point spells it. The action
 * (INPUT_* variables, run in this process as the runner starts it) says `device: cpu`; the CLI says `--device cpu`.
 * Three kinds of message from three stages: a preflight error (no nvidia-smi on a GPU run), a config error
 * (power caps on the CPU), a workload-list error (a command the list leaves out).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runAction } from '../hardening/action-env.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

function tempDir(tag: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-names-${tag}-`))
  made.push(d)
  return d
}

/** A PATH with nothing on it but `env` and `sh`-free stand-ins: no nvidia-smi, no docker. */
function emptyPath(): string {
  const bin = tempDir('bin')
  writeFileSync(path.join(bin, 'README'), 'nothing here\n')
  chmodSync(bin, 0o755)
  return bin
}

/** The CLI's main() in this process (test/helpers/main-in-process.ts) with `env` added: stderr and exit code. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; err: string }> {
  const saved = { ...process.env }
  Object.assign(process.env, env)
  try {
    const { code, stderr } = await mainInProcess(args)
    return { code, err: stderr }
  } finally {
    process.env = saved
  }
}

const CPU_RUN = ['run', '--arms', 'native,native', '--python', '/usr/bin/python3', '--runs', '2']

describe('settings are named as the entry point names them', () => {
  it('no nvidia-smi on a GPU run: the action says `device: cpu`, the CLI `--device cpu`', async () => {
    const ws = tempDir('ws')
    const a = await runAction({ workspace: ws, inputs: { device: 'gpu' }, env: { PATH: emptyPath() } })
    expect(a.log).toMatch(/nvidia-smi not found: .*or run with device: cpu/)
    expect(a.log).not.toContain('--device')
    const c = await cli([...CPU_RUN, '--device', 'gpu', '--out', path.join(tempDir('out'), 'o')], {
      PATH: emptyPath()
    })
    expect(c.code).toBe(2)
    expect(c.err).toMatch(/nvidia-smi not found: .*or run with --device cpu/)
  })

  it('power caps on the CPU: `device: cpu` on the action, `--device cpu` on the CLI', async () => {
    const a = await runAction({ workspace: tempDir('ws'), inputs: { 'power-caps': '200' } })
    expect(a.log).toContain('empty with device: cpu (caps need a GPU)')
    const c = await cli([...CPU_RUN, '--device', 'cpu', '--power-caps', '200', '--out', tempDir('out')])
    expect(c.code).toBe(2)
    expect(c.err).toContain('empty with --device cpu (caps need a GPU)')
  })

  it('a command the workload list leaves out: `workloads: auto` on the action, `--workloads auto` on the CLI', async () => {
    const a = await runAction({
      workspace: tempDir('ws'),
      inputs: { workloads: 'matmul', commands: 'mine: /usr/bin/python3 -c pass' }
    })
    expect(a.log).toMatch(/or workloads: auto runs only the commands/)
    expect(a.log).toMatch(/e\.g\. workloads: matmul,mine/)
    const c = await cli([
      ...CPU_RUN,
      '--device',
      'cpu',
      '--workloads',
      'matmul',
      '--command',
      'mine=/usr/bin/python3 -c pass',
      '--out',
      tempDir('out')
    ])
    expect(c.code).toBe(2)
    expect(c.err).toMatch(/or --workloads auto runs only the commands/)
    expect(c.err).toMatch(/e\.g\. --workloads matmul,mine/)
  })
})
