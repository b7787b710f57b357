/**
 * An image pull in preflight is bounded by the check's time-budget (what is left of it after the inspect) and by
 * its own limit, not only by the hung-engine rule: a pull that runs past it is stopped, its whole process tree
 * killed, and the check fails in one line naming the image and the time. A fake `docker` on PATH: the image is
 * absent, and its pull never ends (it ignores SIGTERM, and leaves a child in its group and one that escaped with
 * setsid).
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { loadConfig } from '../../src/config/index.js'
import { inspectImage, timeBudgetBudget } from '../../src/preflight/image.js'
import { preflightStage } from '../../src/preflight/index.js'
import { engineVersion, forgetHungEngines } from '../../src/tools/docker.js'
import { Inputs } from '../../src/types/inputs.js'
import { EnvironmentError } from '../../src/util/errors.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pull-budget-'))
const calls = path.join(dir, 'calls')
const pids = path.join(dir, 'pids')
/** The endless fake pull's own shell, which only the test ends (the tree's count in `pids` stays the tool's to kill). */
const pullShell = path.join(dir, 'pull-shell')
const REF = 'registry.example/big/image:1'
fs.writeFileSync(
  path.join(dir, 'docker'),
  `#!/bin/sh
echo "$*" >> '${calls}'
case "$1" in
  image) echo '[]'; echo "Error: No such image: $3" >&2; exit 1 ;;
  version) echo 20.10.24; exit 0 ;;
  pull)
    trap '' TERM
    echo $$ > '${pullShell}'
    sleep 600 & echo $! >> '${pids}'
    setsid sleep 600 & echo $! >> '${pids}'
    while :; do sleep 1; done ;;
esac
exit 2
`,
  { mode: 0o755 }
)

/** Running (a killed process whose parent is gone may stay a zombie where PID 1 does not reap: that is dead). */
const alive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
const children = (): number[] =>
  fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number) : []
const shell = (): number[] => (fs.existsSync(pullShell) ? [Number(fs.readFileSync(pullShell, 'utf8'))] : [])

let savedPath: string | undefined
beforeAll(() => {
  savedPath = process.env.PATH
  process.env.PATH = `${dir}:${savedPath ?? ''}`
})
beforeEach(() => {
  fs.rmSync(calls, { force: true })
  fs.rmSync(pids, { force: true })
  fs.rmSync(pullShell, { force: true })
  forgetHungEngines()
})
afterAll(() => {
  process.env.PATH = savedPath
  forgetHungEngines()
  for (const pid of [...children(), ...shell()]) if (alive(pid)) process.kill(pid, 'SIGKILL')
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a pull past what is left of time-budget is stopped, its tree killed, and named in one line; the engine is not taken for hung', async () => {
  const t0 = Date.now()
  const err = await inspectImage(REF, 'docker', { budget: timeBudgetBudget(3) }).catch((e: unknown) => e)
  const took = Date.now() - t0
  expect(err).toBeInstanceOf(EnvironmentError)
  expect((err as Error).message).toBe(
    `image ${REF} was not pulled within 3 s (time-budget 3 s): the pull was stopped and its process tree killed; ` +
      `pull it on this machine before the check (docker pull ${REF}), or raise time-budget`
  )
  // 3 s, then SIGTERM (ignored), SIGKILL 2 s later.
  expect(took).toBeGreaterThanOrEqual(2500)
  expect(took).toBeLessThan(15_000)
  expect(fs.readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
    `image inspect ${REF}`,
    `pull --quiet ${REF}`
  ])
  const left = children()
  expect(left).toHaveLength(2)
  for (const pid of left) expect(alive(pid)).toBe(false)
  // A slow download is not a hung engine: the next engine question is asked.
  expect(await engineVersion('docker')).toBe('20.10.24')
}, 30_000)

test("the check's preflight gives the pull its time-budget", async () => {
  const ws = fs.mkdtempSync(path.join(dir, 'ws-'))
  const config = loadConfig({
    workspace: ws,
    flags: {
      [Inputs.Device]: 'cpu',
      [Inputs.Image]: REF,
      [Inputs.TimeBudget]: '5',
      [Inputs.Python]: '/usr/bin/python3'
    }
  })
  const t0 = Date.now()
  await expect(preflightStage(config, null, 'pull-budget-test')).rejects.toThrow(
    new EnvironmentError(
      `image ${REF} was not pulled within 5 s (time-budget 5 s): the pull was stopped and its process tree killed; ` +
        `pull it on this machine before the check (docker pull ${REF}), or raise time-budget`
    )
  )
  expect(Date.now() - t0).toBeLessThan(20_000)
  for (const pid of children()) expect(alive(pid)).toBe(false)
}, 40_000)

test('no time left: no pull is started', async () => {
  const spent = { deadlineMs: Date.now() - 1, source: 'time-budget 5 s' }
  await expect(inspectImage(REF, 'docker', { budget: spent })).rejects.toThrow(
    `image ${REF} is not present locally and no time is left to pull it (time-budget 5 s): pull it on this machine before the check (docker pull ${REF}), or raise time-budget`
  )
  expect(fs.readFileSync(calls, 'utf8').trim().split('\n')).toEqual([`image inspect ${REF}`])
})

test('without a time-budget the pull keeps its own limit: run-timeout (one process) does not cut a first pull', async () => {
  const ws = fs.mkdtempSync(path.join(dir, 'ws-'))
  const config = loadConfig({
    workspace: ws,
    flags: {
      [Inputs.Device]: 'cpu',
      [Inputs.Image]: REF,
      [Inputs.RunTimeout]: '5',
      [Inputs.Python]: '/usr/bin/python3'
    }
  })
  const stage = preflightStage(config, null, 'pull-budget-test-2')
  const outcome = await Promise.race([
    stage.then(
      () => 'finished',
      () => 'failed'
    ),
    new Promise(resolve => setTimeout(() => resolve('still pulling'), 9000))
  ])
  expect(outcome).toBe('still pulling')
  // End the endless fake pull so the stage settles before the folder goes.
  // By its recorded pid, not `pkill`, which a minimal Debian lacks (the test hung there).
  for (const pid of [...children(), ...shell()]) if (alive(pid)) process.kill(pid, 'SIGKILL')
  await stage.catch(() => undefined)
}, 40_000)
