/**
 * Prestart with the real workload protocol (matmul.py on the CPU): the next process is spawned while the
 * current one runs, holds after its imports, and is released only when the current one has ended; held
 * time stays out of the start-up figures; a held process that the check no longer needs is ended.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { executePlan } from '../../src/execute/runner.js'
import { nativeSpec } from '../../src/execute/native.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { ResultsWriter } from '../../src/results/store.js'
import type { Arm, Fingerprint } from '../../src/types/index.js'
import { silentLogger } from '../../src/util/log.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prestart-'))
const WORKLOADS = path.resolve('workloads')
const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'native#2', kind: 'native', image: null }
]

async function check(prestart: boolean, afterBlock?: () => string | null) {
  const plan = buildPlan({ arms, workloads: ['matmul'], runs: 2, warmupRuns: 0, schedule: 'abba', seed: 1 })
  const holds: boolean[] = []
  const r = await executePlan(plan, {
    checkId: 'c',
    specFor: (_p, _lane, hold) => {
      holds.push(hold)
      return nativeSpec({
        python: 'python3',
        workloadsDir: WORKLOADS,
        workload: 'matmul',
        args: ['--device', 'cpu', '--size', '64', '--iters', '3', '--warmup', '1'],
        env: {},
        timeoutMs: 60000,
        hold
      })
    },
    fingerprintFor: () => ({}) as Fingerprint,
    paramsFor: () => ({}),
    writer: ResultsWriter.open(path.join(tmp, `out-${prestart}-${Date.now()}`)),
    logger: silentLogger,
    prestart,
    ...(afterBlock ? { afterBlock } : {})
  })
  return { r, holds }
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
})
