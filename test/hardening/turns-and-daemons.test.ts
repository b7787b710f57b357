/**
 * Issue 41, turns that never end and runs that never end, through `gpu-overhead run` (the CLI's main in this
 * process) on the CPU with the real Docker engine. An image whose entrypoint replaces the llm workload with a
 * process that misbehaves in the turn protocol: floods `turn` events, says `wait` forever, or exits 0 in the
 * middle of its turns. Each ends the block at once (well inside run-timeout, never the 555 s the flood cost),
 * fails the run, and names the container arm, not the native one. And a native command that leaves a setsid'd
 * child holding its stdout ends when the command exits; the child is killed.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ensurePythonImageAs } from '../helpers/docker-image.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const TAG = `local/gpu-overhead-turns41-${process.pid}`
const BASE = `${TAG}:py`

/** The entrypoint: speaks just enough protocol to take part in turns, then does what FAKE_MODE says. */
const FAKE = `import json, os, sys, time
ev = open(os.environ["GPU_OVERHEAD_EVENTS"], "a", buffering=1)
def emit(o):
    ev.write(json.dumps(o) + "\\n")
emit({"event": "start", "workload": "llm", "protocol": 2, "run_id": os.environ.get("GPU_OVERHEAD_RUN_ID"), "params": {}})
if os.environ.get("GPU_OVERHEAD_HOLD") == "stdin":
    sys.stdin.readline()
mode = os.environ["FAKE_MODE"]
if mode == "flood":
    for i in range(300000):
        ev.write('{"event":"turn","edge":"wait","iteration":1}\\n')
    time.sleep(900)
elif mode == "forever":
    while True:
        emit({"event": "turn", "edge": "wait", "iteration": 1})
        if sys.stdin.readline().strip() != "turn":
            sys.exit(0)
elif mode == "exitmid":
    emit({"event": "turn", "edge": "wait", "iteration": 1})
    sys.stdin.readline()
    sys.exit(0)
`

const MODES = ['flood', 'forever', 'exitmid'] as const
type Mode = (typeof MODES)[number]

function docker(args: string[]): string {
  const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 })
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.trim()
}

const made: string[] = []
beforeAll(async () => {
  await ensurePythonImageAs(BASE)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-turns41-'))
  made.push(dir)
  fs.writeFileSync(path.join(dir, 'fake.py'), FAKE)
  const ctr = docker(['create', BASE, 'true'])
  try {
    docker(['cp', path.join(dir, 'fake.py'), `${ctr}:/fake.py`])
    for (const mode of MODES)
      docker([
        'commit',
        '--change',
        `ENV FAKE_MODE=${mode}`,
        '--change',
        'ENTRYPOINT ["python3", "/fake.py"]',
        ctr,
        `${TAG}:${mode}`
      ])
  } finally {
    docker(['rm', '-f', ctr])
  }
}, 600_000)
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
  spawnSync('docker', ['rmi', '-f', BASE, ...MODES.map(m => `${TAG}:${m}`)], { timeout: 120_000 })
})

async function cli(ws: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return mainInProcess(['run', '--device', 'cpu', '--python', '/usr/bin/python3', ...args], { cwd: ws })
}

interface Run {
  environment: string
  status: string
  error?: string
}

function runs(out: string): Run[] {
  return fs
    .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as Run)
}

describe('turns that never end (issue 41)', () => {
  it.each<[Mode, RegExp]>([
    // Whichever bound it meets first: the turn queue, or the channel's 200,000 events.
    [
      'flood',
      /the container\S* process sent more than 4 turn events without being given a turn|more than 200000 protocol events/
    ],
    // Its own run-timeout kills it, or the block's turns pass it: the same 30 s either way.
    ['forever', /turns ran past run-timeout \(30 s\)|^timed out|still asked for turns after 10000/],
    ['exitmid', /the container\S* process exited during its turns without saying done \(exit code 0/]
  ])(
    'an image that %s ends the block at once, fails the run and names the container arm',
    async (mode, why) => {
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-turns41-${mode}-`))
      made.push(ws)
      const out = path.join(ws, 'out')
      const t0 = Date.now()
      const { code, stderr } = await cli(ws, [
        '--image',
        `${TAG}:${mode}`,
        '--workloads',
        'llm',
        '--runs',
        '2',
        '--max-runs',
        '2',
        '--warmup-runs',
        '0',
        '--run-timeout',
        '30',
        '--out',
        out
      ])
      const seconds = (Date.now() - t0) / 1000
      const log = stderr
      expect(code).not.toBe(0)
      // Bounded by run-timeout (30 s) and a grace, with preflight: never minutes of unpause calls.
      expect(seconds).toBeLessThan(75)
      const rs = runs(out)
      const container = rs.filter(r => r.environment.startsWith('container'))
      const native = rs.filter(r => r.environment === 'native')
      expect(container).toHaveLength(1)
      expect(['failed', 'timeout']).toContain(container[0]!.status)
      expect(container[0]!.error).toMatch(why)
      expect(native).toHaveLength(1)
      expect(native[0]!.error ?? '').not.toMatch(why)
      // The log names the arm that broke the turns.
      expect(log).toMatch(/llm native \+ container\S* run 1 \(in turns\) on [\w ]*container\S* failed/)
    },
    150_000
  )
})

/** A `sleep` duration no other process on this host runs: its command line finds the child from outside. */
const SLEEP_MARK = `300.${process.pid}`

function sleepersLeft(): number[] {
  const left: number[] = []
  for (const d of fs.readdirSync('/proc'))
    if (/^\d+$/.test(d))
      try {
        if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8') === `sleep\0${SLEEP_MARK}\0`) left.push(Number(d))
      } catch {
        // ended meanwhile
      }
  return left
}

describe('a native command that leaves a setsid child holding its stdout (issue 41)', () => {
  it('ends when the command exits, not at run-timeout, and the child is killed', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-setsid-'))
    made.push(ws)
    fs.writeFileSync(
      path.join(ws, 'serve.py'),
      `import json, os, subprocess
child = subprocess.Popen(["sleep", "${SLEEP_MARK}"], start_new_session=True)
with open("pids", "a") as f:
    f.write("%d\\n" % child.pid)
for i in range(3):
    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)
`
    )
    const out = path.join(ws, 'out')
    const t0 = Date.now()
    const { code } = await cli(ws, [
      '--arms',
      'native,native',
      '--command',
      'serve=/usr/bin/python3 serve.py',
      '--runs',
      '2',
      '--max-runs',
      '2',
      '--run-timeout',
      '40',
      '--out',
      out
    ])
    const seconds = (Date.now() - t0) / 1000
    expect([0, 1]).toContain(code)
    expect(runs(out).map(r => r.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    // Four runs, each ended about a second after its command: far from one run-timeout.
    expect(seconds).toBeLessThan(30)
    const pids = fs.readFileSync(path.join(ws, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number)
    expect(pids).toHaveLength(4)
    // The PIDs it wrote are its namespace's where native commands are isolated (docs/security.md): no
    // process on this host runs its child's command line any more.
    expect(sleepersLeft()).toEqual([])
  }, 120_000)
})
