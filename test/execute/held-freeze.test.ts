/**
 * When prestart freezes a held container: once its imports are done (so they run while another process
 * measures, off the check's critical path), unless a held container has reported other processes beside
 * its workload — then every later one is frozen from its first event, and the check says why. Real processes
 * speaking the real protocol (workloads/_protocol.py); the freeze is the test's, which records when it came.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { executePlan } from '../../src/execute/runner.js'
import { HeldFreeze } from '../../src/execute/held-freeze.js'
import { nativeSpec } from '../../src/launchers/native/index.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { ResultsWriter } from '../../src/results/store.js'
import type { Arm, CotenantList, Fingerprint } from '../../src/types/index.js'
import { silentLogger } from '../../src/util/log.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'held-freeze-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))
const WORKLOADS = path.resolve('workloads')

/**
 * A workload whose imports take 1 s (a mark file when they are done) and whose measured part takes 3 s:
 * a process held behind it has long imported when it is released.
 */
const FAKE = `import os, sys, time
sys.path.insert(0, sys.argv[1])
import _protocol as P
def main(proto, argv):
    proto.start({})
    t = time.perf_counter()
    time.sleep(1.0)
    open(sys.argv[2], "w").close()
    proto.phase("imports", t, time.perf_counter())
    proto.region("start")
    time.sleep(3.0)
    proto.sample("kernel_ms", 1.0, "ms", 1, "lower")
    proto.region("end")
    proto.summary({})
P.run(P.Protocol("matmul", time.time(), time.perf_counter()), main, [])
`
fs.writeFileSync(path.join(tmp, 'fake.py'), FAKE)

const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'container', kind: 'native', image: null }
]

/**
 * Runs 2 blocks with prestart; `peers`: which slots' processes list their other processes at their hold (all of
 * this host's: natively the "container" is the host).
 */
async function check(peers: (order: number) => boolean) {
  const marks = fs.mkdtempSync(path.join(tmp, 'marks-'))
  const when: Record<string, 'after imports' | 'from start'> = {}
  const plan = buildPlan({ arms, workloads: ['matmul'], runs: 2, warmupRuns: 0, schedule: 'abba', seed: 1 })
  const r = await executePlan(plan, {
    checkId: 'c',
    specFor: (p, _lane, hold, turns) => {
      const mark = path.join(marks, String(p.order))
      const spec = nativeSpec({
        python: 'python3',
        workloadsDir: tmp,
        script: 'fake.py',
        args: [WORKLOADS, mark],
        // Natively the "container" lists every other process of this host: a container that runs some.
        env: peers(p.order) ? { GPU_OVERHEAD_PEERS: 'pid-namespace' } : {},
        timeoutMs: 60000,
        hold,
        turns
      })
      return {
        ...spec,
        freeze: (frozen: boolean) => {
          if (frozen) when[p.order] = fs.existsSync(mark) ? 'after imports' : 'from start'
          return Promise.resolve(null)
        }
      }
    },
    fingerprintFor: () => ({}) as Fingerprint,
    paramsFor: () => ({}),
    writer: ResultsWriter.open(fs.mkdtempSync(path.join(tmp, 'out-'))),
    logger: silentLogger,
    prestart: true
  })
  return { r, when }
}

describe('prestart: when a held container is frozen', () => {
  it('once its imports are done, when no held container runs anything beside its workload', async () => {
    const { r, when } = await check(() => false)
    expect(r.runs.map(x => x.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    // Slot 0 was never held; 1 and 2 were held behind it, 3 behind 1.
    expect(when).toEqual({ 1: 'after imports', 2: 'after imports', 3: 'after imports' })
    expect(r.warnings).toEqual([])
  }, 120000)

  it('from its first event once a held container reported other processes, and the check says beside what', async () => {
    // Slots 1 and 2 were held behind slot 0 (matmul native run 1): what they ran, ran beside its measurement.
    const { r, when } = await check(order => order > 0)
    expect(r.runs.map(x => x.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    // 1 and 2 started before either had reported; 3 started after they did.
    expect(when).toEqual({ 1: 'after imports', 2: 'after imports', 3: 'from start' })
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings?.[0]).toMatch(
      /^prestart: the held container of matmul \S+ run \d ran \d+ other process(es)? beside the workload \(.+\) while matmul native run 1 measured \(what ran there may have slowed it\); from then on every held container was frozen from its start/
    )
  }, 120000)

  it('a container its own step started ran beside no measurement: the warning says no such thing', async () => {
    const { r, when } = await check(order => order === 0)
    expect(when).toEqual({ 1: 'after imports', 2: 'after imports', 3: 'from start' })
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings?.[0]).toMatch(
      /^prestart: the container of matmul native run 1 ran \d+ other process(es)? beside the workload \(.+\); from then on every held container was frozen from its start/
    )
    expect(r.warnings?.[0]).not.toMatch(/measured/)
  }, 120000)
})

describe('HeldFreeze', () => {
  const list = (over: Partial<CotenantList>): CotenantList => ({
    scope: 'pid-namespace',
    unavailable: null,
    total: 0,
    processes: [],
    ...over
  })
  const proc = (name: string) => ({
    pid: 7,
    name,
    cmdline: null,
    cpu_pct: 1,
    gpu_mem_mib: null,
    uses_gpu: false
  })

  it('stays after the imports while the held containers run their workload alone', () => {
    const f = new HeldFreeze()
    expect(f.observe(list({}), 'llm container run 1')).toBeNull()
    expect(f.fromStart).toBe(false)
    expect(f.warnings()).toEqual([])
  })

  it('turns to the first event on the first report of another process, and says it once', () => {
    const f = new HeldFreeze()
    const names = ['sshd', 'burn', 'a', 'b', 'c', 'd'].map(proc)
    const said = f.observe(list({ total: 9, processes: names }), 'matmul container run 2')
    expect(said).toMatch(
      /matmul container run 2 ran 9 other processes beside the workload \(sshd, burn, a, b and 5 more\)/
    )
    expect(f.fromStart).toBe(true)
    expect(f.observe(list({ total: 1, processes: [proc('x')] }), 'matmul container run 3')).toBeNull()
    expect(f.warnings()).toEqual([said])
  })

  it('names the step that measured beside it, where one did', () => {
    const f = new HeldFreeze()
    const said = f.observe(
      list({ total: 1, processes: [proc('sshd')] }),
      'llm container run 2',
      'llm native + container run 1 (in turns)'
    )
    expect(said).toMatch(
      /^prestart: the held container of llm container run 2 ran 1 other process beside the workload \(sshd\) while llm native \+ container run 1 \(in turns\) measured \(what ran there may have slowed it\);/
    )
  })

  it('a container that cannot list its processes is treated as one that runs others', () => {
    const f = new HeldFreeze()
    expect(f.observe(list({ unavailable: 'PermissionError: /proc' }), 'io container run 1')).toMatch(
      /could not list its other processes \(PermissionError: \/proc\)/
    )
    expect(f.fromStart).toBe(true)
  })
})
