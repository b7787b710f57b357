/**
 * Prestart with the real workload protocol (matmul.py on the CPU): the next process is spawned while the
 * current one runs, holds after its imports, and is released only when the current one has ended; held
 * time stays out of the start-up figures; a held process that the check no longer needs is ended.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { executePlan } from '../../src/execute/runner.js'
import type { ExecuteContext } from '../../src/execute/context.js'
import { nativeSpec } from '../../src/launchers/native/index.js'
import { nextCandidates, planExecution, type PlannedRun } from '../../src/plan/index.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { ResultsWriter } from '../../src/results/store.js'
import type { Arm, Fingerprint, Workload } from '../../src/types/index.js'
import { silentLogger } from '../../src/util/log.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prestart-'))
const WORKLOADS = path.resolve('workloads')
const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'native#2', kind: 'native', image: null }
]

/** Per-workload CPU arguments: small and fast, the real protocol all the same. */
const ARGS: Record<string, string[]> = {
  matmul: ['--device', 'cpu', '--size', '64', '--iters', '3', '--warmup', '1'],
  llm: ['--device', 'cpu', '--preset', 'tiny', '--iters', '2', '--warmup', '0']
}

const planOf = (workloads: Workload[], runs: number): PlannedRun[] =>
  buildPlan({ arms, workloads, runs, warmupRuns: 0, schedule: 'abba', seed: 1 })

/** Runs a plan (default: matmul, 2 runs per arm); every process start is recorded in `launches`. */
async function check(
  prestart: boolean,
  afterBlock?: ExecuteContext['afterBlock'],
  plan: PlannedRun[] = planOf(['matmul'], 2)
) {
  const holds: boolean[] = []
  const launches: { workload: string; run: number; at: number }[] = []
  const r = await executePlan(plan, {
    checkId: 'c',
    specFor: (p, _lane, hold) => {
      holds.push(hold)
      launches.push({ workload: p.workload, run: p.run, at: Date.now() })
      return nativeSpec({
        python: 'python3',
        workloadsDir: WORKLOADS,
        script: `${p.workload}.py`,
        args: ARGS[p.workload]!,
        env: {},
        timeoutMs: 60000,
        hold
      })
    },
    fingerprintFor: () => ({}) as Fingerprint,
    paramsFor: () => ({}),
    writer: ResultsWriter.open(fs.mkdtempSync(path.join(tmp, 'out-'))),
    logger: silentLogger,
    prestart,
    ...(afterBlock ? { afterBlock } : {})
  })
  return { r, holds, launches }
}

describe('prestart', () => {
  it('overlaps each process start with the previous process and releases it only after that one ended', async () => {
    const { r, holds } = await check(true)
    expect(r.complete).toBe(true)
    expect(r.runs.map(x => x.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(holds.every(Boolean)).toBe(true)
    const wall = r.samples.filter(s => s.metric === 'process_wall_s')
    const startup = r.samples.filter(s => s.metric === 'total_startup_s')
    expect(r.samples.some(s => s.metric === 'held_s')).toBe(false)
    for (let i = 1; i < r.runs.length; i++) {
      const prev = r.runs[i - 1]!
      const cur = r.runs[i]!
      // start_ms is the release: never before the previous process ended.
      expect(cur.start_ms).toBeGreaterThanOrEqual(prev.end_ms)
    }
    // Later processes were started early, so their held wait was taken out: the start-up total stays
    // about the same as the first (never held) process's, well under the process's whole life.
    for (const s of startup) expect(s.value).toBeLessThan(10)
    expect(wall.length).toBe(4)
    expect(r.samples.filter(s => s.metric === 'kernel_ms').length).toBe(12)
  }, 120000)

  it('holds two slots ahead: the third process is started while the first one runs', async () => {
    const { r, launches } = await check(true)
    expect(launches.length).toBe(4)
    // In time order: slot 1 cold, then slots 2 and 3 at once when slot 1 is released, slot 4 at slot 2's.
    expect(launches[2]!.at).toBeLessThan(r.runs[0]!.end_ms)
    expect(launches[3]!.at).toBeGreaterThanOrEqual(r.runs[0]!.end_ms)
  }, 120000)

  it('without prestart, nothing is held', async () => {
    const { r, holds } = await check(false)
    expect(r.runs.map(x => x.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(holds.some(Boolean)).toBe(false)
  }, 120000)

  it('ends the held process of a workload that stopped early', async () => {
    const { r } = await check(true, () => 'decided')
    expect(r.runs.length).toBe(2)
    expect(r.complete).toBe(true)
  }, 120000)

  it('where the sequential rule may stop a workload, the next workload’s first process is held too', async () => {
    // matmul is decided after its first block (one run per arm); llm runs all three.
    const { r, launches } = await check(
      true,
      b => (b.workload === 'matmul' ? 'decided' : null),
      planOf(['matmul', 'llm'], 3)
    )
    expect(r.complete).toBe(true)
    expect(r.runs.map(x => `${x.workload}:${x.run}`)).toEqual([
      'matmul:1',
      'matmul:1',
      ...Array(6)
        .fill('llm')
        .map((w, i) => `${w}:${Math.floor(i / 2) + 1}`)
    ])
    const lastMatmulEnd = Math.max(...r.runs.filter(x => x.workload === 'matmul').map(x => x.end_ms))
    const firstLlm = launches.find(l => l.workload === 'llm')!
    // llm's first process was started while matmul still measured, not cold after the stop.
    expect(firstLlm.at).toBeLessThan(lastMatmulEnd)
    // The speculative matmul run 2 (both its processes: two slots ahead) was started, then dropped; nothing
    // else was wasted.
    expect(launches.filter(l => l.workload === 'matmul').map(l => l.run)).toEqual([1, 1, 2, 2])
    expect(launches.filter(l => l.workload === 'llm').length).toBe(6)
  }, 180000)
})

describe('nextCandidates', () => {
  const plan = planOf(['matmul', 'llm'], 2)
  const all = (): boolean => true
  const key = (ps: { workload: string; run: number }[]): string[] => ps.map(p => `${p.workload}:${p.run}`)
  describe('one slot ahead', () => {
    it('inside a block: only the next slot', () => {
      expect(key(nextCandidates(plan, 0, all, true, 1))).toEqual(['matmul:1'])
    })
    it('at a block end that may stop: the next slot and the next workload’s first', () => {
      expect(key(nextCandidates(plan, 1, all, true, 1))).toEqual(['matmul:2', 'llm:1'])
    })
    it('without a sequential rule, or at a workload boundary: one slot', () => {
      expect(key(nextCandidates(plan, 1, all, false, 1))).toEqual(['matmul:2'])
      expect(key(nextCandidates(plan, 3, all, true, 1))).toEqual(['llm:1'])
      expect(key(nextCandidates(plan, 7, all, true, 1))).toEqual([])
    })
    it('skips stopped or failed workloads', () => {
      expect(key(nextCandidates(plan, 1, p => p.workload !== 'matmul', true, 1))).toEqual(['llm:1'])
    })
  })
  describe('two slots ahead (the default)', () => {
    it('holds the next two slots; a block end before the second also holds the next workload’s first', () => {
      // Slot 1 ends matmul's first block: slot 2 may never run.
      expect(key(nextCandidates(plan, 0, all, true))).toEqual(['matmul:1', 'matmul:2', 'llm:1'])
      expect(key(nextCandidates(plan, 1, all, true))).toEqual(['matmul:2', 'matmul:2', 'llm:1'])
      // Slot 3 ends matmul: the two slots ahead are llm's, nothing else is needed.
      expect(key(nextCandidates(plan, 2, all, true))).toEqual(['matmul:2', 'llm:1'])
      expect(key(nextCandidates(plan, 3, all, true))).toEqual(['llm:1', 'llm:1'])
    })
    it('without a sequential rule only the slots ahead; at the end of the plan what is left', () => {
      expect(key(nextCandidates(plan, 1, all, false))).toEqual(['matmul:2', 'matmul:2'])
      expect(key(nextCandidates(plan, 6, all, true))).toEqual(['llm:2'])
      expect(key(nextCandidates(plan, 7, all, true))).toEqual([])
    })
    it('never holds a slot of a stopped or failed workload', () => {
      expect(key(nextCandidates(plan, 1, p => p.workload !== 'matmul', true))).toEqual(['llm:1', 'llm:1'])
    })
  })
  describe('a next workload whose blocks take turns', () => {
    // What starts together with a slot: its step's slots, as the runner plans them (a turns block whole).
    const startsWith =
      (of: PlannedRun[]) =>
      (p: PlannedRun): readonly PlannedRun[] =>
        planExecution(of, [null], 'lockstep', w => w === 'llm').steps.find(s => s.slots.includes(p))
          ?.slots ?? [p]
    const turns = startsWith(plan)
    it('at a block end that may stop: its whole first block, which starts only when all of it is ready', () => {
      expect(key(nextCandidates(plan, 1, all, true, 1, turns))).toEqual(['matmul:2', 'llm:1', 'llm:1'])
      expect(key(nextCandidates(plan, 1, all, true, 2, turns))).toEqual([
        'matmul:2',
        'matmul:2',
        'llm:1',
        'llm:1'
      ])
      // The other way round a workload that does not take turns keeps one slot held.
      const back = planOf(['llm', 'matmul'], 2)
      expect(key(nextCandidates(back, 1, all, true, 1, startsWith(back)))).toEqual(['llm:2', 'matmul:1'])
    })
    it('never more than the block, and not without a sequential rule', () => {
      expect(key(nextCandidates(plan, 2, all, true, 2, turns))).toEqual(['matmul:2', 'llm:1', 'llm:1'])
      expect(key(nextCandidates(plan, 1, all, false, 1, turns))).toEqual(['matmul:2'])
    })
  })
})
