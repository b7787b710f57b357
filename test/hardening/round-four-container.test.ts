/**
 * Issue 53's medium cases through `gpu-overhead run` (the CLI's main, in this process) and the real Docker
 * engine, as a user meets them:
 *
 * - every checkout's credential is hidden from the image, however the workspace hides it: a second checkout
 *   (`path: tools`) behind more than 1,000 files of the PR's (C18-08), a checkout two levels down (C18-02), a
 *   `.git` FILE naming a git folder elsewhere in the workspace (`git clone --separate-git-dir`, a worktree;
 *   C18-09);
 * - `container-args` reach the container as written: `--pids-limit 64` (C18-10), `--cpuset-mems 0` (C18-12)
 *   and `--memory-swap` (C18-13), read back from the container's own cgroup.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ensurePythonImageAs } from '../helpers/docker-image.js'
import { mainInProcess } from '../helpers/main-in-process.js'
import { cpuRunArgs } from '../helpers/cli.js'

const SECRET = 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3JvdW5kNA=='

/**
 * What the process can see, as samples: for each named checkout, 1 when its credential can be read (a `.git`
 * file is followed to the folder its `gitdir:` names, as git does); and the cgroup limits it runs under.
 */
const PROBE = `import json, os
def read(p):
    try:
        with open(p) as f:
            return f.read()
    except OSError:
        return ""
def git_dir(top):
    g = os.path.join(top, ".git")
    if os.path.isfile(g):
        line = read(g).strip()
        if line.startswith("gitdir:"):
            d = line[len("gitdir:"):].strip()
            return d if os.path.isabs(d) else os.path.join(top, d)
        return ""
    return g
def cred(top):
    d = git_dir(top)
    if not d:
        return 0
    common = read(os.path.join(d, "commondir")).strip()
    cfg = read(os.path.join(d, "config")) + (read(os.path.join(d, common, "config")) if common else "")
    return 1 if ${JSON.stringify(SECRET)} in cfg else 0
def first(*paths):
    for p in paths:
        v = read(p).strip()
        if v:
            return v
    return ""
pids = first("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max")
mem = first("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
shares = first("/sys/fs/cgroup/cpu.weight", "/sys/fs/cgroup/cpu/cpu.shares")
values = {
    "top": cred("."), "tools": cred("tools"), "deep": cred("a/b"), "separate": cred("sep"), "worktree": cred("wt"),
    "git_file_read": 1 if read("sep/.git") else 0,
    "pids_max": -1 if pids in ("", "max") else int(pids),
    "cpus": len(os.sched_getaffinity(0)),
    "memory_mib": -1 if mem in ("", "max") or int(mem) > 1 << 50 else int(mem) >> 20,
    "cpu_shares": int(shares or -1),
}
for i in range(2):
    for k, v in values.items():
        print(json.dumps({"event": "sample", "metric": k, "value": v, "unit": "1", "better": "lower", "iteration": i + 1}), flush=True)
`

/** Its own tag: the engine is shared, and another test's clean-up must not take this image away. */
const TAG = `local/gpu-overhead-r4-${process.pid}:py`
let image = ''
const made: string[] = []
beforeAll(async () => {
  image = await ensurePythonImageAs(TAG)
}, 600_000)
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
  spawnSync('docker', ['rmi', '-f', TAG], { timeout: 60_000 })
})

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
}

/** A checkout as actions/checkout leaves it: a real repository whose config holds the persisted credential. */
function checkout(at: string): void {
  fs.mkdirSync(at, { recursive: true })
  git(at, 'init', '-q')
  fs.appendFileSync(
    path.join(at, '.git', 'config'),
    `[http "https://github.com/"]\n\textraheader = ${SECRET}\n`
  )
}

/**
 * The workspace: the PR's tree at the top (a checkout itself), a second checkout at `tools` pushed past the
 * first 1,000 entries of the top folder by the PR's files, one at `a/b`, one whose git folder lives elsewhere in
 * the workspace (`sep/.git` a file), and a worktree of the top checkout.
 */
function workspace(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-r4-'))
  made.push(ws)
  checkout(ws)
  fs.writeFileSync(path.join(ws, 'probe.py'), PROBE)
  git(ws, 'add', 'probe.py')
  git(ws, 'commit', '-qm', 'probe')
  checkout(path.join(ws, 'tools'))
  checkout(path.join(ws, 'a', 'b'))
  // `git clone --separate-git-dir`: sep/.git is a file naming gitstore/sep.git, which holds the config.
  fs.mkdirSync(path.join(ws, 'gitstore'))
  git(ws, 'clone', '-q', '--separate-git-dir', path.join(ws, 'gitstore', 'sep.git'), ws, path.join(ws, 'sep'))
  fs.appendFileSync(path.join(ws, 'gitstore', 'sep.git', 'config'), `\textraheader = ${SECRET}\n`)
  git(ws, 'worktree', 'add', '-q', path.join(ws, 'wt'))
  // The PR's files: as many as it takes for `tools` to come after the first 1,000 entries the folder lists.
  for (let n = 0; n < 20_000; n += 200) {
    for (let i = n; i < n + 200; i++)
      fs.writeFileSync(path.join(ws, `f${String(i).padStart(5, '0')}.txt`), '')
    if (fs.readdirSync(ws).indexOf('tools') >= 1000 && n >= 1000) break
  }
  expect(fs.readdirSync(ws).indexOf('tools')).toBeGreaterThanOrEqual(1000)
  return ws
}

interface Sample {
  environment: string
  metric: string
  value: number
}

let samples: Sample[] = []
let code = -1
let stderr = ''
const of = (env: string, metric: string): number[] =>
  samples.filter(x => x.environment.startsWith(env) && x.metric === metric).map(x => x.value)

describe('issue 53: what the container reaches, through the CLI and the real engine', () => {
  let ws = ''
  beforeAll(async () => {
    ws = workspace()
    const out = path.join(ws, 'out')
    const r = await mainInProcess(
      cpuRunArgs({
        image,
        out,
        runs: 2,
        maxRuns: 2,
        workloads: 'probe',
        extra: [
          '--command',
          'probe=python3 probe.py',
          '--container-args',
          '--pids-limit 64 --cpuset-mems 0 --memory 256m --memory-swap 512m'
        ]
      }),
      { cwd: ws }
    )
    code = r.code
    stderr = r.stderr
    const results = path.join(out, 'results.jsonl')
    if (fs.existsSync(results))
      samples = fs
        .readFileSync(results, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as Sample)
  }, 300_000)

  it('the check ran both arms', () => {
    expect(stderr).not.toMatch(/gpu-overhead: /)
    expect([0, 1]).toContain(code)
    expect(of('container', 'top').length).toBeGreaterThan(0)
  })

  it.each(['top', 'tools', 'deep', 'separate', 'worktree'])(
    "the %s checkout's credential: read natively (the control), never in the container",
    checkout => {
      expect(new Set(of('native', checkout))).toEqual(new Set([1]))
      expect(new Set(of('container', checkout))).toEqual(new Set([0]))
    }
  )

  it('a `.git` file is hidden too (it names where the git folder is)', () => {
    expect(new Set(of('native', 'git_file_read'))).toEqual(new Set([1]))
    expect(new Set(of('container', 'git_file_read'))).toEqual(new Set([0]))
  })

  it('the launch flags are the ones asked for: --pids-limit, --cpuset-mems, --memory with --memory-swap', () => {
    expect(new Set(of('container', 'pids_max'))).toEqual(new Set([64]))
    // --cpuset-mems restricts memory nodes only: the container keeps every CPU the host gives the native arm.
    expect(new Set(of('container', 'cpus'))).toEqual(new Set(of('native', 'cpus')))
    expect(new Set(of('container', 'memory_mib'))).toEqual(new Set([256]))
    // No --cpu-shares made up from --pids-limit: the engine's default weight (1024 on cgroup v1, 100 on v2).
    expect([1024, 100]).toContain(of('container', 'cpu_shares')[0])
  })

  it('the tree is left as it was (masks in the container, nothing written to the host)', () => {
    expect(fs.readFileSync(path.join(ws, 'tools', '.git', 'config'), 'utf8')).toContain(SECRET)
    expect(fs.readFileSync(path.join(ws, 'sep', '.git'), 'utf8')).toMatch(/^gitdir: /)
  })
})
