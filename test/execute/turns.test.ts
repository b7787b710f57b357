/**
 * Turns with the real workload protocol (llm.py on the CPU): a block's two processes are started at once and
 * the runner gives them the device request by request, A B B A …; a process that fails ends the block's turns
 * instead of leaving the other to wait; on several GPUs each GPU's block takes turns on its own.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { executePlan } from '../../src/execute/runner.js'
import { nativeSpec } from '../../src/launchers/native/index.js'
import type { ProcessSpec } from '../../src/execute/process-types.js'
import { gpuCotenants } from '../../src/execute/cotenants.js'
import { planSteps, runsPerBlock, type PlannedRun } from '../../src/plan/index.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { ResultsWriter } from '../../src/results/store.js'
import type { Arm, Fingerprint, SampleRecord, Workload } from '../../src/types/index.js'
import { silentLogger } from '../../src/util/log.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turns-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))
const WORKLOADS = path.resolve('workloads')
const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'native#2', kind: 'native', image: null }
]
const LLM = ['--device', 'cpu', '--preset', 'tiny', '--iters', '4', '--warmup', '1']
const MATMUL = ['--device', 'cpu', '--size', '64', '--iters', '3', '--warmup', '1']

const planOf = (workloads: Workload[], runs: number): PlannedRun[] =>
  buildPlan({ arms, workloads, runs, warmupRuns: 0, schedule: 'abba', seed: 1 })

async function check(opts: {
  prestart: boolean
  plan?: PlannedRun[]
  args?: (p: PlannedRun) => string[]
  freeze?: (p: PlannedRun) => ProcessSpec['freeze']
  lanes?: { index: number; uuid: string; name: null; minor: null }[]
  layout?: 'lockstep' | 'duet'
  /** After its workload ends, a process waits (≤ 30 s) until this file exists: ordering without timing. */
  waitFor?: (p: PlannedRun) => string | null
}) {
  const turnsAsked: boolean[] = []
  const r = await executePlan(opts.plan ?? planOf(['llm'], 2), {
    checkId: 'c',
    ...(opts.lanes ? { lanes: opts.lanes, layout: opts.layout ?? 'lockstep' } : {}),
    specFor: (p, _lane, hold, turns) => {
      turnsAsked.push(turns)
      const spec = nativeSpec({
        python: 'python3',
        workloadsDir: WORKLOADS,
        script: `${p.workload}.py`,
        args: opts.args?.(p) ?? (p.workload === 'llm' ? LLM : MATMUL),
        env: {},
        timeoutMs: 60000,
        hold,
        turns
      })
      const freeze = opts.freeze?.(p)
      const mark = opts.waitFor?.(p) ?? null
      const waiting =
        mark === null
          ? spec
          : {
              ...spec,
              command: '/bin/sh',
              args: ['-c', WAIT_AFTER, 'sh', mark, spec.command, ...spec.args]
            }
      return freeze ? { ...waiting, freeze } : waiting
    },
    turns: w => w === 'llm',
    fingerprintFor: () => ({}) as Fingerprint,
    paramsFor: () => ({}),
    writer: ResultsWriter.open(fs.mkdtempSync(path.join(tmp, 'out-'))),
    logger: silentLogger,
    prestart: opts.prestart
  })
  return { r, turnsAsked }
}

/** Runs "$@" after the mark, then waits up to 30 s for the mark ($1) to appear; keeps the workload's status. */
const WAIT_AFTER =
  'mark=$1; shift; "$@"; s=$?; i=0; while [ ! -e "$mark" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; exit $s'

/** The arms of one block's TPOT samples in the order they were measured. */
function order(samples: readonly SampleRecord[], run: number): string[] {
  return samples
    .filter(s => s.metric === 'tpot_ms' && s.run === run)
    .sort((a, b) => a.time.localeCompare(b.time))
    .map(s => `${s.environment}:${s.iteration}`)
}

describe('turns', () => {
  for (const prestart of [true, false])
    it(`gives the block's processes the device request by request, A B B A … (prestart ${prestart})`, async () => {
      const { r, turnsAsked } = await check({ prestart })
      expect(r.complete).toBe(true)
      expect(r.runs.map(x => x.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
      expect(turnsAsked.every(Boolean)).toBe(true)
      const tpot = r.samples.filter(s => s.metric === 'tpot_ms')
      expect(tpot.length).toBe(16)
      expect(tpot.every(s => s.interleave === 'turns')).toBe(true)
      // Block 1 starts with the process that got ready first (either arm); each round reverses the order.
      const firstUp = order(r.samples, 1)[0]!.split(':')[0]!
      const [a, b] = [firstUp, r.runs.map(x => x.environment).find(e => e !== firstUp)!]
      expect(order(r.samples, 1)).toEqual([
        `${a}:1`,
        `${b}:1`,
        `${b}:2`,
        `${a}:2`,
        `${a}:3`,
        `${b}:3`,
        `${b}:4`,
        `${a}:4`
      ])
      // Both processes of a block lived at once (prepared together), unlike blocks of their own.
      const [p1, p2] = [r.runs[0]!, r.runs[1]!]
      expect(Math.max(p1.start_ms, p2.start_ms)).toBeLessThan(Math.min(p1.end_ms, p2.end_ms))
    }, 120000)

  it('on two GPUs (a duet layout): each GPU runs both arms of its block, taking turns on its own', async () => {
    const lanes = [0, 1].map(index => ({ index, uuid: `u${index}`, name: null, minor: null }))
    const { r } = await check({ prestart: false, plan: planOf(['llm'], 1), lanes, layout: 'duet' })
    expect(r.complete).toBe(true)
    expect(r.runs).toHaveLength(4)
    // Lane k's block is run k + 1; each has both arms, A B B A … within itself.
    for (const run of [1, 2]) {
      const seq = order(r.samples, run)
      expect(seq).toHaveLength(8)
      expect(new Set(seq.map(x => x.split(':')[0]))).toEqual(new Set(['native', 'native#2']))
      const [a, b] = [seq[0]!.split(':')[0], seq[1]!.split(':')[0]]
      expect(seq).toEqual([`${a}:1`, `${b}:1`, `${b}:2`, `${a}:2`, `${a}:3`, `${b}:3`, `${b}:4`, `${a}:4`])
    }
    expect(r.samples.filter(s => s.metric === 'tpot_ms').every(s => s.interleave === 'turns')).toBe(true)
  }, 120000)

  it('a process that fails ends the turns of its block: the other is not left waiting', async () => {
    const t0 = Date.now()
    const { r } = await check({
      prestart: false,
      plan: planOf(['llm'], 1),
      args: p => (p.arm.label === 'native#2' ? [...LLM, '--output-lens', '1'] : LLM)
    })
    expect(Date.now() - t0).toBeLessThan(30000)
    expect(r.complete).toBe(false)
    expect(r.incompleteReason).toMatch(/llm/)
    expect(r.runs.map(x => x.status).sort()).toEqual(['failed', 'failed'])
    const other = r.runs.find(x => x.environment === 'native')!
    expect(other.error).toMatch(/ended the turns/)
  }, 60000)

  it('a container that cannot be frozen stops the turns, and the failure says why and what to set', async () => {
    const { r } = await check({
      prestart: false,
      plan: planOf(['llm'], 1),
      freeze: p =>
        p.arm.label === 'native#2' ? () => Promise.resolve('docker pause failed: no freezer') : undefined
    })
    expect(r.complete).toBe(false)
    expect(r.incompleteReason).toMatch(/docker pause failed: no freezer.*set turns: false/)
    expect(r.runs.map(x => x.status)).toEqual(['failed', 'failed'])
  }, 60000)

  it('a process held by prestart is frozen after its imports while another measures, thawed before its release', async () => {
    const calls: string[] = []
    const plan = planOf(['matmul'], 2)
    const { r } = await check({
      prestart: true,
      plan,
      // Each process warms up 3 s before it measures: the one held behind it has imported by then (on a loaded
      // runner it may not have; then it is thawed unfrozen once the one ahead has measured, which is also right).
      args: () => ['--device', 'cpu', '--size', '64', '--iters', '3', '--warmup', '1', '--min-warmup-s', '3'],
      freeze: p => (frozen: boolean) => {
        calls.push(`${p.arm.label}:${p.run}:${frozen ? 'freeze' : 'thaw'}`)
        return Promise.resolve(null)
      }
    })
    expect(r.complete).toBe(true)
    // Every process after the first was held while the one before it measured: frozen, then thawed; never
    // frozen and left so, never thawed without a freeze.
    const held = r.runs.slice(1).map(x => `${x.environment}:${x.run}`)
    expect(held).toHaveLength(3)
    const each = held.map(h => calls.filter(c => c.startsWith(`${h}:`)))
    for (const [k, c] of each.entries())
      expect([[], [`${held[k]}:freeze`, `${held[k]}:thaw`]]).toContainEqual(c)
    expect(each.filter(c => c.length === 2).length).toBeGreaterThanOrEqual(1)
    // The first process was never held: nothing froze it.
    const first = `${r.runs[0]!.environment}:${r.runs[0]!.run}`
    expect(calls.filter(c => c.startsWith(`${first}:`))).toEqual([])
  }, 120000)

  it('a workload that does not take turns runs as before, one process at a time', async () => {
    const { r, turnsAsked } = await check({ prestart: true, plan: planOf(['matmul', 'llm'], 1) })
    expect(r.runs.map(x => x.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(turnsAsked).toEqual([false, false, true, true])
    const matmul = r.runs.filter(x => x.workload === 'matmul')
    expect(matmul[1]!.start_ms).toBeGreaterThanOrEqual(matmul[0]!.end_ms)
    expect(r.samples.filter(s => s.metric === 'kernel_ms').every(s => s.interleave === undefined)).toBe(true)
  }, 120000)
})

describe('planSteps with turns', () => {
  const plan = planOf(['matmul', 'llm'], 2)
  const llm = (p: PlannedRun): boolean => p.workload === 'llm'
  it('makes each block of a turn-taking workload one step, on one lane', () => {
    const steps = planSteps(plan, [null], 'lockstep', llm)
    expect(steps.map(s => `${s.slots[0]!.workload}x${s.slots.length}${s.turns ? 't' : ''}`)).toEqual([
      'matmulx1',
      'matmulx1',
      'matmulx1',
      'matmulx1',
      'llmx2t',
      'llmx2t'
    ])
    expect(steps[4]!.processes.map(p => p.planned.arm.label)).toEqual(steps[4]!.slots.map(s => s.arm.label))
    expect(steps[4]!.processes.map(p => p.run)).toEqual([1, 1])
  })
  it('on every lane and in every layout: each GPU takes its own turns, its blocks labelled per lane', () => {
    const lanes = [
      { index: 0, uuid: 'a', name: null, minor: null },
      { index: 1, uuid: 'b', name: null, minor: null }
    ]
    for (const layout of ['lockstep', 'duet'] as const) {
      const steps = planSteps(plan, lanes, layout, llm)
      const turning = steps.filter(s => s.turns)
      expect(turning).toHaveLength(2)
      // Block r on lane k: run (r − 1)·2 + k + 1, both arms on the same GPU.
      for (const [r, step] of turning.entries()) {
        expect(step.processes.map(p => `${p.lane!.index}:${p.planned.arm.label}:${p.run}`)).toEqual([
          `0:${step.slots[0]!.arm.label}:${2 * r + 1}`,
          `0:${step.slots[1]!.arm.label}:${2 * r + 1}`,
          `1:${step.slots[0]!.arm.label}:${2 * r + 2}`,
          `1:${step.slots[1]!.arm.label}:${2 * r + 2}`
        ])
      }
      // matmul keeps the layout's own steps (a duet pairs the arms across the GPUs).
      const matmul = steps.filter(s => s.slots[0]!.workload === 'matmul')
      expect(matmul.every(s => !s.turns)).toBe(true)
      if (layout === 'duet') expect(matmul[0]!.processes.map(p => p.lane!.index).sort()).toEqual([0, 1])
    }
    expect(runsPerBlock('duet', 2, true)).toBe(2)
    expect(runsPerBlock('duet', 2)).toBe(1)
  })
})

describe('GPU co-tenants while taking turns', () => {
  // A /proc with three GPU processes: this one (host PID 100), the block's other arm in a container (host
  // PID 200, PID 7 inside), and a neighbour's job (host PID 300, PID 7 inside its own container).
  const proc = fs.mkdtempSync(path.join(tmp, 'proc-'))
  const task = (pid: number, nspid: string): void => {
    fs.mkdirSync(path.join(proc, String(pid)))
    fs.writeFileSync(path.join(proc, String(pid), 'status'), `Name:\tpython3\nNSpid:\t${nspid}\n`)
    fs.writeFileSync(path.join(proc, String(pid), 'cmdline'), 'python3\0job.py\0')
  }
  task(100, '100')
  task(200, '200\t7')
  task(301, '301')
  const csv = ['GPU-1, 100, python3, 900', 'GPU-1, 200, python3, 900', 'GPU-1, 301, python3, 4000'].join('\n')
  it("leaves the check's other process of the block out and still names a neighbour", () => {
    const l = gpuCotenants({ csv, gpuUuid: 'GPU-1', ownPid: 100, checkPids: [7], proc })
    expect(l.unavailable).toBeNull()
    expect(l.processes.map(p => p.pid)).toEqual([301])
    const without = gpuCotenants({ csv, gpuUuid: 'GPU-1', ownPid: 100, proc })
    expect(without.processes.map(p => p.pid)).toEqual([200, 301])
  })
})
