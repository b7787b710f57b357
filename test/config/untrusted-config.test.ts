/**
 * Issue 16, cases 1, 6 and 7 at the config stage: the tree's config file sets knobs only (an allow-list,
 * checked for every input), host paths are judged on their resolved path by the mount policy, and bad
 * values of the trusted inputs get the one-line named error. Real files, links, FIFOs and sockets.
 */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { FILE_KNOBS, loadConfig, type RawInputs } from '../../src/config/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { InputError } from '../../src/util/errors.js'

const IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)
const CPU = { [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu', [Inputs.Python]: '/usr/bin/python3' }

function ws(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'untrusted-cfg-'))
}

function error(workspace: string, flags: RawInputs, inputs: RawInputs = {}): InputError {
  try {
    loadConfig({ workspace, flags, inputs })
  } catch (e) {
    if (e instanceof InputError) {
      expect(e.message.split('\n')).toHaveLength(1)
      return e
    }
    throw e
  }
  throw new Error('expected an InputError')
}

/** A config file in the tree, as a pull request would commit it. */
function treeConfig(workspace: string, text: string): void {
  fs.writeFileSync(path.join(workspace, 'gpu-overhead.yml'), text)
}

describe('config file from the tree: measurement knobs only (allow-list)', () => {
  const refused = Object.values(Inputs).filter(k => !(FILE_KNOBS as readonly string[]).includes(k))
  it.each(refused)('refuses %s in the file, naming it', key => {
    const w = ws()
    treeConfig(w, `${key}: "x"\n`)
    const e = error(w, { [Inputs.Image]: IMAGE })
    expect(e.input).toBe(key)
    // `commands` names the opt-in that would allow it (allow-config-commands); the rest are workflow-only.
    expect(e.message).toMatch(
      key === Inputs.Commands ? /input allow-config-commands: true/ : /workflow input or flag only/
    )
  })
  it('the attacks of case 1 and 4 as config keys are refused before anything runs', () => {
    for (const text of [
      'data-path: /var/run\n',
      'checkpoint-path: /\n',
      'driver-mount: /var/run/docker.sock\n',
      'power-caps: 100\n',
      'allow-fork-prs: true\n',
      'allow-config-commands: true\n',
      'python: /bin/sh\n',
      'max-overhead: 100%\n'
    ]) {
      const w = ws()
      treeConfig(w, text)
      expect(error(w, CPU).message).toMatch(/workflow input or flag only/)
    }
  })
  it('on-inconclusive (a trust setting) comes from the workflow input or flag, default neutral', () => {
    expect(loadConfig({ workspace: ws(), flags: CPU }).onInconclusive).toBe('neutral')
    expect(
      loadConfig({ workspace: ws(), flags: CPU, inputs: { [Inputs.OnInconclusive]: 'fail' } }).onInconclusive
    ).toBe('fail')
    expect(
      loadConfig({ workspace: ws(), flags: { ...CPU, [Inputs.OnInconclusive]: 'pass' } }).onInconclusive
    ).toBe('pass')
  })

  it('knobs from the file still apply', () => {
    const w = ws()
    treeConfig(w, 'runs: 4\nworkloads: [matmul]\nseed: 7\n')
    const c = loadConfig({ workspace: w, flags: CPU })
    expect([c.runs, c.workloads, c.seed]).toEqual([4, ['matmul'], 7])
  })
  it.each(['runs: 1e3', 'runs: 5.0', 'runs: 0x10', 'seed: 1_000'])('%s is refused like the flag', line => {
    const w = ws()
    treeConfig(w, `${line}\n`)
    expect(error(w, CPU).input).toBe(line.split(':')[0])
  })
  it('a self-referencing YAML anchor gets the one-line error', () => {
    for (const text of ['workloads: &a [*a]\n', 'runs: &a {x: *a}\n', 'a: &x [1]\nruns: *x\n']) {
      const w = ws()
      treeConfig(w, text)
      expect(error(w, CPU).message).toMatch(/alias|nested|workflow input|an input name/)
    }
  })
  it('a config file that is a FIFO, /dev/zero, or a link out of the tree is refused at once', () => {
    const w = ws()
    execFileSync('mkfifo', [path.join(w, 'fifo.yml')])
    const t0 = Date.now()
    expect(error(w, { ...CPU, [Inputs.Config]: 'fifo.yml' }).message).toMatch(/a FIFO, not a regular file/)
    expect(error(w, { ...CPU, [Inputs.Config]: '/dev/zero' }).input).toBe(Inputs.Config)
    fs.symlinkSync('/etc/hostname', path.join(w, 'gpu-overhead.yml'))
    expect(error(w, CPU).message).toMatch(/symbolic link/)
    expect(Date.now() - t0).toBeLessThan(2000)
  })
})

describe('mount policy on data-path, checkpoint-path, driver-mount (case 1)', () => {
  const policyError = (input: Inputs, value: string): InputError => error(ws(), { ...CPU, [input]: value })
  it.each([
    [Inputs.DataPath, '/var/run'],
    [Inputs.DataPath, '/run'],
    [Inputs.DataPath, '/var'],
    [Inputs.CheckpointPath, '/'],
    [Inputs.CheckpointPath, '/etc'],
    [Inputs.CheckpointPath, '/usr'],
    [Inputs.DriverMount, '/etc'],
    [Inputs.DriverMount, '/var/run/docker.sock'],
    [Inputs.DataPath, '/var/run/docker.sock'],
    [Inputs.DataPath, '/proc'],
    [Inputs.DataPath, '/dev']
  ])('%s %s is refused', (input, value) => {
    if (!fs.existsSync(value)) return
    const e = policyError(input, value)
    expect(e.input).toBe(input)
    expect(e.message).toMatch(/not \/, a system folder, a socket or a device/)
  })
  it('a link to / is judged as / (the resolved path decides)', () => {
    // Outside the workspace (a link below it is refused as a link: see the issue-29 cases).
    const outside = ws()
    fs.symlinkSync('/', path.join(outside, 'innocent'))
    expect(error(ws(), { ...CPU, [Inputs.CheckpointPath]: path.join(outside, 'innocent') }).message).toMatch(
      /resolved: \//
    )
  })
  it('a folder holding a socket is refused', async () => {
    const w = ws()
    fs.mkdirSync(path.join(w, 'data'))
    const server = net.createServer()
    await new Promise<void>(r => server.listen(path.join(w, 'data', 's.sock'), r))
    try {
      expect(error(w, { ...CPU, [Inputs.DataPath]: 'data' }).message).toMatch(/s\.sock \(a socket\)/)
    } finally {
      server.close()
    }
  })
  it('a plain folder is allowed, by its resolved path', () => {
    const w = ws()
    const outside = ws()
    fs.mkdirSync(path.join(outside, 'data'))
    fs.symlinkSync(path.join(outside, 'data'), path.join(outside, 'data-link'))
    const c = loadConfig({
      workspace: w,
      flags: { ...CPU, [Inputs.DataPath]: path.join(outside, 'data-link') }
    })
    expect(c.data?.host).toBe(fs.realpathSync(path.join(outside, 'data')))
  })
})

describe('trusted inputs: one named line for bad values (case 7)', () => {
  it.each([
    [Inputs.Python, 'nosuchpython3', /not found on PATH/],
    [Inputs.Python, '-c', /not starting with -/],
    [Inputs.Python, 'p'.repeat(1024 * 1024), /at most 4096 characters/],
    [Inputs.ContainerMemory, '99999999999999999999g', /1 PiB/],
    [Inputs.ContainerMemory, '1e3g', /memory size/],
    [Inputs.OnInconclusive, 'green', /allowed: pass \| neutral \| fail/]
  ])('%s', (input, value, why) => {
    const e = error(ws(), { ...CPU, [input]: value })
    expect(e.input).toBe(input)
    expect(e.message).toMatch(why)
    expect(e.message.length).toBeLessThan(1000)
  })
  it('baseline-path a folder is refused at config time, naming the input', () => {
    const w = ws()
    fs.mkdirSync(path.join(w, 'b'))
    const e = error(w, { ...CPU, [Inputs.BaselinePath]: 'b' })
    expect(e.input).toBe(Inputs.BaselinePath)
    expect(e.message).toMatch(/it is a folder/)
  })
  it('baseline-path a link or a FIFO is refused (a link could point at a secret)', () => {
    const w = ws()
    fs.symlinkSync('/etc/hostname', path.join(w, 'b.json'))
    expect(error(w, { ...CPU, [Inputs.BaselinePath]: 'b.json' }).message).toMatch(/symbolic link|is a link/)
    execFileSync('mkfifo', [path.join(w, 'f.json')])
    expect(error(w, { ...CPU, [Inputs.BaselinePath]: 'f.json' }).message).toMatch(/a FIFO/)
    fs.symlinkSync('/etc', path.join(w, 'dir'))
    expect(error(w, { ...CPU, [Inputs.BaselinePath]: 'dir/b.json' }).message).toMatch(
      /resolves outside|is a link/
    )
  })
  it('a token with a line break is refused without being shown', () => {
    const e = error(ws(), { ...CPU }, { [Inputs.GithubToken]: 'ghp_abcdef123456\nsecond_line_987' })
    expect(e.message).not.toMatch(/ghp_|second_line/)
  })
})

describe('workflow-input paths: one rule (issue 29, class 2)', () => {
  /** Runs `fn` as inside Actions, with the runner's folders at `runner`. */
  function asRunner<T>(runner: string, fn: () => T): T {
    const saved = { ...process.env }
    Object.assign(process.env, {
      GITHUB_ACTIONS: 'true',
      RUNNER_TEMP: path.join(runner, '_work', '_temp'),
      RUNNER_TOOL_CACHE: path.join(runner, '_work', '_tool'),
      RUNNER_WORKSPACE: path.join(runner, '_work', 'repo'),
      HOME: path.join(runner, 'home')
    })
    try {
      return fn()
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
      Object.assign(process.env, saved)
    }
  }
  function runnerLayout(): { runner: string; w: string } {
    const runner = ws()
    for (const d of ['_work/_temp/_runner_file_commands', '_work/_tool', 'home/.ssh', '_work/repo/repo'])
      fs.mkdirSync(path.join(runner, d), { recursive: true })
    return { runner, w: path.join(runner, '_work', 'repo', 'repo') }
  }

  it.each([
    [Inputs.CheckpointPath, '_work/_temp'],
    [Inputs.DataPath, 'home/.ssh']
  ])('%s committed as a link to the runner (%s) is refused, named as a link', (input, target) => {
    const { runner, w } = runnerLayout()
    fs.symlinkSync(path.join(runner, target), path.join(w, 'ckpt'))
    const e = asRunner(runner, () => error(w, { ...CPU, [input]: 'ckpt' }))
    expect(e.input).toBe(input)
    expect(e.message).toMatch(/ckpt is a link/)
  })

  it('a link anywhere below the workspace is refused, not only the last component', () => {
    const { runner, w } = runnerLayout()
    fs.symlinkSync(path.join(runner, '_work', '_temp'), path.join(w, 'dir'))
    const e = asRunner(runner, () => error(w, { ...CPU, [Inputs.DataPath]: 'dir/_runner_file_commands' }))
    expect(e.message).toMatch(/dir is a link/)
  })

  it.each(['_work/_temp', '_work/_tool', 'home', 'home/.ssh', '_work', ''])(
    'an absolute path in or above the runner folder %s is refused',
    sub => {
      const { runner, w } = runnerLayout()
      const e = asRunner(runner, () => error(w, { ...CPU, [Inputs.DataPath]: path.join(runner, sub) }))
      expect(e.message).toMatch(/outside the runner's own folders/)
    }
  )

  it('a real folder in the workspace, and one elsewhere on the host, are allowed', () => {
    const { runner, w } = runnerLayout()
    fs.mkdirSync(path.join(w, 'data'))
    const elsewhere = ws()
    asRunner(runner, () => {
      expect(loadConfig({ workspace: w, flags: { ...CPU, [Inputs.DataPath]: 'data' } }).data?.host).toBe(
        fs.realpathSync(path.join(w, 'data'))
      )
      expect(loadConfig({ workspace: w, flags: { ...CPU, [Inputs.DataPath]: elsewhere } }).data?.host).toBe(
        fs.realpathSync(elsewhere)
      )
    })
  })
})
