/**
 * Issue 53, the high case (C17-24, C17-26, C17-27): a workflow command in the native arm — the pull request's
 * code — reads the action's environment through /proc/<parent pid>/environ (the token input,
 * ACTIONS_RUNTIME_TOKEN, a step `env:` secret such as HF_TOKEN) and appends NODE_OPTIONS to the step's
 * GITHUB_ENV, whose path it finds by listing the runner's _temp/_runner_file_commands folder.
 *
 * The action runs as the runner starts it: its own node process, with its inputs and secrets in its initial
 * environment (what /proc/<pid>/environ shows; a variable set later in process.env is not there). It runs once
 * as root and once as an unprivileged user (the runner's usual setup), each where this host allows.
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const ENTRY = path.resolve('src/entry/action/index.ts')
const TSX = path.resolve('node_modules/tsx/dist/loader.mjs')
const MARK = 'c17marker0123456789abcdef'
const SECRETS = {
  'INPUT_GITHUB-TOKEN': `ghs_${MARK}tok`,
  ACTIONS_RUNTIME_TOKEN: `rt-${MARK}`,
  HF_TOKEN: `hf_${MARK}hf`
}

/** The PR's script: every environment it can read, and every GITHUB_ENV it can find, written to findings/. */
const PROBE = String.raw`
import json, os, sys
ws = sys.argv[1]
mark = sys.argv[2].encode()
seen = {"pid": os.getpid(), "uid": os.getuid(), "ancestors": [], "hits": [], "visible": 0, "env_files": []}
pid = os.getppid()
for _ in range(8):
    try:
        if mark in open(f"/proc/{pid}/environ", "rb").read():
            seen["ancestors"].append(pid)
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except Exception as e:
        seen["ancestors"].append(type(e).__name__)
        break
    if pid <= 1:
        break
for d in os.listdir("/proc"):
    if d.isdigit():
        seen["visible"] += 1
        try:
            if mark in open(f"/proc/{d}/environ", "rb").read():
                seen["hits"].append(int(d))
        except Exception:
            pass
cmds = os.path.join(ws, "..", "..", "_temp", "_runner_file_commands")
for f in sorted(os.listdir(cmds)):
    if f.startswith("set_env_"):
        with open(os.path.join(cmds, f), "a") as fh:
            fh.write("NODE_OPTIONS=--require /tmp/pwned.js\n")
        seen["env_files"].append(f)
os.makedirs(os.path.join(ws, "findings"), exist_ok=True)
with open(os.path.join(ws, "findings", f"{os.getpid()}-{os.urandom(4).hex()}.json"), "w") as fh:
    json.dump(seen, fh)
`

interface Finding {
  pid: number
  uid: number
  ancestors: (number | string)[]
  hits: number[]
  visible: number
  env_files: string[]
}

const made: string[] = []
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

/** A runner's folders as the Actions runner lays them out: _work/<repo>/<repo>, _work/_temp/_runner_file_commands. */
function runnerLayout(): { root: string; ws: string; files: Record<string, string> } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-environ-'))
  made.push(root)
  fs.chmodSync(root, 0o755)
  const ws = path.join(root, '_work', 'repo', 'repo')
  const cmds = path.join(root, '_work', '_temp', '_runner_file_commands')
  fs.mkdirSync(ws, { recursive: true })
  fs.mkdirSync(cmds, { recursive: true })
  fs.writeFileSync(path.join(ws, 'probe.py'), PROBE)
  const files: Record<string, string> = {}
  for (const [v, f] of Object.entries({
    GITHUB_ENV: 'set_env_1f2e',
    GITHUB_PATH: 'add_path_1f2e',
    GITHUB_OUTPUT: 'set_output_1f2e',
    GITHUB_STATE: 'save_state_1f2e',
    GITHUB_STEP_SUMMARY: 'step_summary_1f2e'
  })) {
    files[v] = path.join(cmds, f)
    fs.writeFileSync(files[v], '')
  }
  fs.writeFileSync(path.join(root, 'event.json'), '{}')
  return { root, ws, files }
}

const INPUTS: Record<string, string> = {
  device: 'cpu',
  arms: 'native,native',
  python: '/usr/bin/python3',
  runs: '2',
  'max-runs': '2',
  comment: 'never',
  'check-run': '',
  'baseline-branch': '',
  commands: `probe: /usr/bin/python3 {workspace}/probe.py {workspace} ${MARK}`,
  'command-formats': 'probe=wall'
}

/** The action entry in its own process, as the runner starts it (as `user` when given: setpriv). */
function runAction(
  layout: ReturnType<typeof runnerLayout>,
  user: string[] = [],
  more: Record<string, string> = {}
): Promise<{ code: number | null; stdout: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: layout.root,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: layout.ws,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: path.join(layout.root, 'event.json'),
    RUNNER_TEMP: path.join(layout.root, '_work', '_temp'),
    ...layout.files,
    ...SECRETS
  }
  for (const [k, v] of Object.entries(INPUTS)) env[`INPUT_${k.toUpperCase()}`] = v
  Object.assign(env, more)
  if (user.length)
    for (const d of walk(layout.root)) fs.chmodSync(d, fs.statSync(d).isDirectory() ? 0o777 : 0o666)
  const argv = [...user, process.execPath, '--import', TSX, ENTRY]
  const child = spawn(argv[0] ?? '', argv.slice(1), {
    cwd: layout.ws,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stdout += d.toString()))
  return new Promise(resolve => child.on('close', code => resolve({ code, stdout })))
}

function walk(dir: string): string[] {
  const out = [dir]
  for (const e of fs.readdirSync(dir, { withFileTypes: true }))
    out.push(...(e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
  return out
}

function findings(ws: string): Finding[] {
  const dir = path.join(ws, 'findings')
  return fs.existsSync(dir)
    ? fs.readdirSync(dir).map(f => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Finding)
    : []
}

async function expectNothingRead(user: string[]): Promise<void> {
  const layout = runnerLayout()
  const r = await runAction(layout, user)
  const seen = findings(layout.ws)
  // Both arms ran the probe (A/A, two runs each).
  expect(seen.length).toBeGreaterThanOrEqual(4)
  for (const f of seen) {
    // Not one environment of the action (nor of anything else holding the marker) was readable.
    expect(f.ancestors.filter(a => typeof a === 'number')).toEqual([])
    expect(f.hits).toEqual([])
    // Its own processes only: the namespace's first process and what it started.
    expect(f.visible).toBeLessThanOrEqual(3)
  }
  expect(r.stdout).toMatch(/native-isolation: pass/)
  // GITHUB_ENV was found and appended to: the action put it back and failed the step, naming it.
  expect(seen.some(f => f.env_files.includes('set_env_1f2e'))).toBe(true)
  expect(fs.readFileSync(layout.files.GITHUB_ENV ?? '', 'utf8')).toBe('')
  expect(r.stdout).toMatch(/GITHUB_ENV .*changed by something other than the action/)
  expect(r.code).not.toBe(0)
  // The secrets' values appear nowhere but in the runner's own mask commands.
  const printed = r.stdout
    .split('\n')
    .filter(l => !l.includes('::add-mask::'))
    .join('\n')
  for (const v of Object.values(SECRETS)) expect(printed).not.toContain(v)
}

function userNamespaces(): boolean {
  return spawnSync('unshare', ['--map-current-user', '--pid', '--fork', '--mount-proc', 'true']).status === 0
}

const root = process.getuid?.() === 0
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups']
const nobodyCan =
  root &&
  spawnSync('setpriv', [
    ...NOBODY,
    'unshare',
    '--map-current-user',
    '--pid',
    '--fork',
    '--mount-proc',
    'true'
  ]).status === 0
// A checkout under /root (0700 on Debian) is out of nobody's reach: the action cannot even start as nobody there.
const nobodyReaches =
  root &&
  spawnSync('setpriv', [
    ...NOBODY,
    process.execPath,
    '-e',
    `for (const f of ${JSON.stringify([ENTRY, TSX])}) require('fs').accessSync(f, require('fs').constants.R_OK)`
  ]).status === 0

test('as root: a native command reads none of the action environment, and its GITHUB_ENV write is undone', async () => {
  if (!root || !userNamespaces()) return console.log('skipped: needs root and util-linux unshare')
  await expectNothingRead([])
}, 180_000)

test('as an unprivileged runner user: the same, through an unprivileged user namespace', async () => {
  if (!nobodyCan)
    return console.log('skipped: needs root (to become nobody) and unprivileged user namespaces')
  if (!nobodyReaches)
    return console.log(
      `skipped: user nobody cannot read ${ENTRY} (a folder above it, e.g. /root, is closed to others): clone the repository where other users can read it to run this test`
    )
  await expectNothingRead(['setpriv', ...NOBODY])
}, 180_000)

/** A PATH with every program of /usr/bin and /bin but util-linux unshare: a host where it cannot isolate. */
function pathWithoutUnshare(root: string): string {
  const bin = path.join(root, 'bin')
  fs.mkdirSync(bin)
  for (const dir of ['/usr/bin', '/bin'])
    for (const name of fs.readdirSync(dir))
      if (name !== 'unshare' && !fs.existsSync(path.join(bin, name)))
        fs.symlinkSync(path.join(dir, name), path.join(bin, name))
  return bin
}

test('where it cannot isolate, a step holding the token or a secret fails before any command runs', async () => {
  const layout = runnerLayout()
  const r = await runAction(layout, [], { PATH: pathWithoutUnshare(layout.root) })
  expect(findings(layout.ws)).toEqual([])
  expect(r.code).not.toBe(0)
  expect(r.stdout).toMatch(
    /native-isolation: fail .*cannot be isolated here \(util-linux unshare is not installed\)/
  )
  expect(r.stdout).toMatch(/HF_TOKEN, INPUT_GITHUB-TOKEN/)
  expect(r.stdout).toMatch(/github-token: ''/)
}, 180_000)

test('where it cannot isolate and the step holds no secret, the commands run with a warning', async () => {
  const layout = runnerLayout()
  const r = await runAction(layout, [], {
    PATH: pathWithoutUnshare(layout.root),
    'INPUT_GITHUB-TOKEN': '',
    HF_TOKEN: ''
  })
  expect(r.stdout).toMatch(/native-isolation: warn/)
  // It ran, unisolated: it saw the action's process (ACTIONS_RUNTIME_TOKEN, which every action step has).
  const seen = findings(layout.ws)
  expect(seen.length).toBeGreaterThanOrEqual(4)
  expect(seen.some(f => f.visible > 3)).toBe(true)
  // Its GITHUB_ENV write is still undone.
  expect(fs.readFileSync(layout.files.GITHUB_ENV ?? '', 'utf8')).toBe('')
}, 180_000)
