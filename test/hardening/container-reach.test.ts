/**
 * Issue 41, what the image can reach, through `gpu-overhead run` (the CLI's main, in this process) and the real
 * Docker engine: the workspace's git folders (checkout's persisted credential) are not visible in the
 * container; the container runs with a PID limit and no capabilities; NVIDIA_CREDS never reaches it.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ensurePythonImageAs } from '../helpers/docker-image.js'
import { mainInProcess } from '../helpers/main-in-process.js'
import { cpuRunArgs } from '../helpers/cli.js'

/** Samples of what the process can see: `git_config` 1 when .git/config is readable, `sub_git` for sub/.git. */
const PROBE = `import json, os, sys
def seen(p):
    try:
        open(p).read(); return 1
    except OSError:
        return 0
caps = 0
for line in open("/proc/self/status"):
    if line.startswith("CapEff:"):
        caps = int(line.split()[1], 16)
pids = 0
for f in ("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max"):
    try:
        v = open(f).read().strip()
        pids = 0 if v == "max" else int(v)
        break
    except OSError:
        pass
creds = 1 if any(k == "NVIDIA_CREDS" for k in os.environ) else 0
values = {"git_config": seen(".git/config"), "sub_git": seen("sub/.git/config"), "cap_eff": caps, "pids_max": pids, "nvidia_creds": creds}
for i in range(3):
    for k, v in values.items():
        print(json.dumps({"event": "sample", "metric": k, "value": v, "unit": "1", "better": "lower", "iteration": i + 1}), flush=True)
`

/** Its own tag: the engine is shared, and another test's clean-up must not take this image away. */
const TAG = `local/gpu-overhead-reach-${process.pid}:py`
let image = ''
const made: string[] = []
beforeAll(async () => {
  image = await ensurePythonImageAs(TAG)
}, 600_000)
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
  spawnSync('docker', ['rmi', '-f', TAG], { timeout: 60_000 })
})

interface Sample {
  environment: string
  metric: string
  value: number
}

function samples(out: string): Sample[] {
  return fs
    .readFileSync(path.join(out, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as Sample)
}

describe('what the image can reach (issue 41)', () => {
  it('no git folder of the workspace, no capabilities, a PID limit, no NVIDIA_CREDS', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-reach-'))
    made.push(ws)
    fs.writeFileSync(path.join(ws, 'probe.py'), PROBE)
    for (const git of ['.git', 'sub/.git']) {
      fs.mkdirSync(path.join(ws, git), { recursive: true })
      fs.writeFileSync(path.join(ws, git, 'config'), '\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n')
    }
    const out = path.join(ws, 'out')
    const saved = process.env.NVIDIA_CREDS
    process.env.NVIDIA_CREDS = 'user:hunter2hunter2'
    let r: { code: number; stderr: string }
    try {
      r = await mainInProcess(
        cpuRunArgs({
          image,
          out,
          runs: 2,
          maxRuns: 2,
          workloads: 'probe',
          extra: ['--command', 'probe=python3 probe.py']
        }),
        { cwd: ws }
      )
    } finally {
      if (saved === undefined) delete process.env.NVIDIA_CREDS
      else process.env.NVIDIA_CREDS = saved
    }
    const { code, stderr } = r
    expect(stderr).not.toMatch(/gpu-overhead: /)
    expect([0, 1]).toContain(code)
    const s = samples(out)
    const of = (env: string, metric: string): number[] =>
      s.filter(x => x.environment.startsWith(env) && x.metric === metric).map(x => x.value)
    // The native arm is the runner's user: it sees the tree as it is (the control).
    expect(new Set(of('native', 'git_config'))).toEqual(new Set([1]))
    expect(new Set(of('native', 'sub_git'))).toEqual(new Set([1]))
    expect(of('container', 'git_config').length).toBeGreaterThan(0)
    expect(new Set(of('container', 'git_config'))).toEqual(new Set([0]))
    expect(new Set(of('container', 'sub_git'))).toEqual(new Set([0]))
    expect(new Set(of('container', 'cap_eff'))).toEqual(new Set([0]))
    const pids = of('container', 'pids_max')
    expect(pids.length).toBeGreaterThan(0)
    expect(pids.filter(p => p <= 0 || p > 65536)).toEqual([])
    expect(new Set(of('container', 'nvidia_creds'))).toEqual(new Set([0]))
    expect(new Set(of('native', 'nvidia_creds'))).toEqual(new Set([0]))
    // The tree is left as it was (a tmpfs over it in the container, nothing written to the host).
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toContain('AUTHORIZATION')
  }, 300_000)
})
