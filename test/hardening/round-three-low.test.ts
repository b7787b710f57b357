/**
 * Issue 41's low cases, each as a user meets it: `gpu-overhead run` (the CLI's main, in this process), the
 * action's run(), or the built action bundle (dist/index.js) where only the bundle shows it.
 *
 * - a config file hard-linked to a file outside the workspace, and `.github` swapped for a link after the check;
 * - `aggregate` given a results folder whose summary.json links out of the workspace;
 * - a FIFO at GITHUB_EVENT_PATH (the bundle's libraries read it as they load);
 * - `matmul-size: 65536` from the config file on a CPU check, refused before anything runs;
 * - `--tmpfs` over the tool's folders spelled `//` or `/./`, and `-e NVIDIA_VISIBLE_DEVICES` in container-args;
 * - a `user:pass@` URL in the runner's environment, kept out of summary.json;
 * - an API host that never answers costs one bounded budget for the whole step.
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { resetApiBudget } from '../../src/tools/github.js'
import { clearSecrets } from '../../src/util/secrets.js'
import { runAction } from './action-env.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const made: string[] = []
const tmp = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-r3-${prefix}-`))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

// The action's run() (runAction) may set the exit code and register secrets too.
afterEach(() => {
  process.exitCode = undefined
  clearSecrets()
})

async function cli(ws: string, args: string[]): Promise<{ code: number; err: string }> {
  const r = await mainInProcess(args, { cwd: ws })
  return { code: r.code, err: r.stderr }
}

const CPU_RUN = ['run', '--device', 'cpu', '--arms', 'native,native', '--python', '/usr/bin/python3']
/**
 * What the outside file says: never read, never quoted. A knob no test input sets, with a value the config
 * refuses and quotes, so a read of it always shows in the log (an input would override `runs`, silently).
 */
const OUTSIDE = 'seed: 777777x\n'

describe('config files from the tree (issue 41)', () => {
  it('a config file hard-linked to a file outside the workspace is refused, not read', async () => {
    const ws = tmp('hardlink')
    const outside = path.join(tmp('outside'), 'private.yml')
    fs.writeFileSync(outside, OUTSIDE)
    fs.linkSync(outside, path.join(ws, 'gpu-overhead.yml'))
    const r = await runAction({
      workspace: ws,
      inputs: { config: 'gpu-overhead.yml', commands: 'x: /bin/true' }
    })
    expect(r.failed).toBe(true)
    expect(r.log).toMatch(/input 'config'.*has 2 hard links/)
    expect(r.log).not.toContain('777777')
    expect(fs.existsSync(path.join(ws, 'gpu-overhead-results', 'runs.jsonl'))).toBe(false)
  })

  it('`.github` swapped for a link between the check and the read never leads outside the workspace', async () => {
    const ws = tmp('race')
    const outsideDir = tmp('race-outside')
    fs.writeFileSync(path.join(outsideDir, 'gpu-overhead.yml'), OUTSIDE)
    fs.mkdirSync(path.join(ws, '.github'))
    // Inside: a value the config refuses, so every load that reads a file ends at once with a line that says
    // which file it read (a knob no input overrides); no check runs, so no verdict can fail it.
    fs.writeFileSync(path.join(ws, '.github', 'gpu-overhead.yml'), 'seed: inside\n')
    fs.symlinkSync(outsideDir, path.join(ws, '.gh-link'))
    // Swaps `.github` (a real folder) and the link, atomically, as fast as it can (renameat2 RENAME_EXCHANGE).
    const flipper = spawn(
      '/usr/bin/python3',
      [
        '-c',
        `import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + 60
while time.time() < end:
    if libc.renameat2(-100, b".github", -100, b".gh-link", 2) != 0:
        raise SystemExit("renameat2: %d" % ctypes.get_errno())
`
      ],
      { cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] }
    )
    let flipErr = ''
    flipper.stderr.on('data', (d: Buffer) => (flipErr += d.toString()))
    const seen = { inside: 0, outside: 0, link: 0, other: 0 }
    const others: string[] = []
    try {
      await new Promise(r => setTimeout(r, 200))
      for (let i = 0; i < 120 && flipper.exitCode === null; i++) {
        const r = await runAction({
          workspace: ws,
          inputs: { config: '.github/gpu-overhead.yml', commands: 'x: /bin/true' }
        })
        if (/777777/.test(r.log)) seen.outside++
        else if (/input 'seed': got "inside"/.test(r.log)) seen.inside++
        // The link met by the config read, or by a path under `.github` read before it (the baseline's).
        else if (r.failed && /input '[a-z-]+'.*(is a link|resolves outside|outside)/.test(r.log)) seen.link++
        else {
          seen.other++
          others.push(r.log.slice(-400))
        }
      }
    } finally {
      flipper.kill('SIGKILL')
    }
    if (/renameat2/.test(flipErr)) {
      // A file system without RENAME_EXCHANGE: nothing raced, nothing to judge.
      console.warn(`skipped: ${flipErr.trim()}`)
      return
    }
    // Most loads meet the link and are refused; none may read the file outside.
    expect(seen.inside + seen.link).toBeGreaterThan(20)
    expect({ ...seen, others }).toEqual({ ...seen, outside: 0, other: 0, others: [] })
  }, 120_000)
})

describe('aggregate (issue 41)', () => {
  it('a results folder whose summary.json links out of the workspace is refused, its target never read', async () => {
    const ws = tmp('aggregate')
    const outside = path.join(tmp('aggregate-outside'), 'summary.json')
    fs.writeFileSync(outside, '{"schema": "gpu-overhead/summary@1", "secret": "424242424"}')
    const dir = path.join(ws, 'results', 'h100')
    fs.mkdirSync(dir, { recursive: true })
    fs.symlinkSync(outside, path.join(dir, 'summary.json'))
    fs.writeFileSync(path.join(dir, 'results.jsonl'), '')
    const r = await runAction({
      workspace: ws,
      inputs: { mode: 'aggregate', 'aggregate-dirs': 'results' }
    })
    expect(r.failed).toBe(true)
    expect(r.log).toMatch(/summary\.json cannot be read \(is a symbolic link; refusing to read through it\)/)
    expect(r.log).not.toContain('424242424')
  })
})

describe('the event payload (issue 41)', () => {
  const bundle = path.resolve('dist/index.js')
  it('a FIFO at GITHUB_EVENT_PATH: the built action does not hang as it loads; a pull request is refused', () => {
    const runner = tmp('fifo')
    const fifo = path.join(runner, 'event')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    for (const f of ['out', 'state', 'summary']) fs.writeFileSync(path.join(runner, f), '')
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: fifo,
      GITHUB_OUTPUT: path.join(runner, 'out'),
      GITHUB_STATE: path.join(runner, 'state'),
      GITHUB_STEP_SUMMARY: path.join(runner, 'summary'),
      GITHUB_WORKSPACE: runner,
      INPUT_DEVICE: 'cpu',
      INPUT_ARMS: 'native,native',
      INPUT_COMMANDS: 'mine: /bin/true',
      INPUT_PYTHON: '/usr/bin/python3'
    }
    const t0 = Date.now()
    // SIGKILL: a node blocked in a FIFO's open() does not die of SIGTERM.
    const r = spawnSync(process.execPath, [bundle], {
      env,
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL'
    })
    expect(r.signal).toBeNull()
    expect(Date.now() - t0).toBeLessThan(30_000)
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/::error::cannot read the pull_request event payload \(GITHUB_EVENT_PATH\)/)
  }, 60_000)
})

describe('sizes that cannot fit (issue 41)', () => {
  it('matmul-size 65536 from the config file on a CPU check is refused before anything runs', async () => {
    const ws = tmp('matmul')
    fs.writeFileSync(path.join(ws, 'gpu-overhead.yml'), 'workloads: matmul\nmatmul-size: 65536\n')
    const r = await cli(ws, [...CPU_RUN, '--config', 'gpu-overhead.yml', '--out', 'out'])
    expect(r.code).not.toBe(0)
    expect(r.err).toMatch(
      /matmul-memory: fail — matmul 65536² fp32 needs at least 48\.0 GiB on cpu, but only .* is available/
    )
    const runs = path.join(ws, 'out', 'runs.jsonl')
    expect(fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8') : '').toBe('')
  })
})

describe('container-args (issue 41)', () => {
  it.each([
    ['--tmpfs //gpu-overhead'],
    ['--tmpfs /./gpu-overhead/run'],
    ['--tmpfs /gpu-overhead//run/'],
    ['--tmpfs //data:size=1m'],
    ['-e NVIDIA_VISIBLE_DEVICES=all'],
    ['--env NVIDIA_DRIVER_CAPABILITIES=all'],
    ['-e NVIDIA_REQUIRE_CUDA=cuda>=9.0']
  ])('%s is refused by name', async flags => {
    const ws = tmp('flags')
    const r = await cli(ws, [
      ...CPU_RUN,
      '--arms',
      'native,container',
      '--image',
      'local/none:never',
      '--container-args',
      flags,
      '--out',
      'out'
    ])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/input 'container-args'/)
  })

  it('a tmpfs of its own (/scratch) is still allowed', async () => {
    const { containerLaunchArgs } = await import('../../src/config/launch-flags.js')
    expect(containerLaunchArgs('--tmpfs /scratch:size=8g', null)).toEqual(['--tmpfs', '/scratch:size=8g'])
  })
})

describe("the runner's environment (issue 41)", () => {
  it('a user:pass@ URL in an environment variable never reaches summary.json or the report', async () => {
    const ws = tmp('urlenv')
    fs.writeFileSync(
      path.join(ws, 'env.py'),
      `import json, os
for i in range(3):
    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)
`
    )
    const r = await runAction({
      workspace: ws,
      inputs: { commands: 'mine: /usr/bin/python3 env.py' },
      env: {
        NVIDIA_MIRROR_URL: 'https://alice:s3cr3tpassw0rd@mirror.example/x',
        PIP_INDEX_URL: 'https://bob:an0therpassw0rd@pypi.example/simple',
        http_proxy: 'http://carol:thirdpassw0rd@proxy.example:3128'
      }
    })
    expect(r.failed).toBe(false)
    const out = path.join(ws, 'gpu-overhead-results')
    const all = ['summary.json', 'report.md', 'runs.jsonl', 'results.jsonl']
      .map(f => fs.readFileSync(path.join(out, f), 'utf8'))
      .concat([r.summary, r.outputs])
      .join('\n')
    for (const pw of ['s3cr3tpassw0rd', 'an0therpassw0rd', 'thirdpassw0rd']) expect(all).not.toContain(pw)
  }, 120_000)
})

describe('the GitHub API phase (issue 41)', () => {
  it('a host that accepts and never answers costs one budget for the whole step, not a timeout per call', async () => {
    const sockets: net.Socket[] = []
    const server = net.createServer(s => void sockets.push(s))
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as net.AddressInfo).port
    const ws = tmp('silent')
    fs.writeFileSync(
      path.join(ws, 'x.py'),
      'import json\nfor i in range(3):\n    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)\n'
    )
    resetApiBudget(4000)
    const t0 = Date.now()
    try {
      const r = await runAction({
        workspace: ws,
        inputs: {
          commands: 'mine: /usr/bin/python3 x.py',
          'github-token': `ghs_${'a'.repeat(36)}`,
          'check-run': 'gpu-overhead',
          'baseline-branch': 'gpu-overhead-baseline',
          'save-baseline': 'true',
          comment: 'always'
        },
        env: {
          GITHUB_REPOSITORY: 'o/r',
          GITHUB_API_URL: `http://127.0.0.1:${port}`,
          GITHUB_REF: 'refs/heads/main',
          GITHUB_SHA: 'b'.repeat(40),
          GITHUB_ACTIONS: 'true'
        }
      })
      // Every call after the first few seconds fails at once with the budget's line.
      expect(r.log).toMatch(/not sent: the GitHub API took 4 s of this step already/)
      expect(Date.now() - t0).toBeLessThan(40_000)
    } finally {
      resetApiBudget()
      for (const s of sockets) s.destroy()
      server.close()
    }
  }, 120_000)
})
