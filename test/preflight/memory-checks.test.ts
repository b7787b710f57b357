/**
 * The memory rows count what one GPU holds at once where the processes really run: the lanes' GPUs, and every
 * arm's process of a turns block on each of them, on any number of GPUs (plan/steps.ts turns every GPU count).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { builtinDefinition, takesTurns, type WorkloadDefinition } from '../../src/config/index.js'
import { parseQueryGpuCsv, type GpuFacts } from '../../src/preflight/gpu.js'
import { resolveLanes } from '../../src/preflight/lanes.js'
import { llmMemory } from '../../src/preflight/llm-memory.js'
import { matmulBytes } from '../../src/preflight/matmul-memory.js'
import {
  gpusOfCheck,
  llmMemoryRow,
  matmulMemoryRow,
  processesAtOnce
} from '../../src/preflight/memory-checks.js'
import { planExecution } from '../../src/plan/index.js'
import { buildPlan } from '../../src/plan/schedule.js'
import type { Arm } from '../../src/types/index.js'

/** Recorded on the two-H200 host (nvidia-h200-x2). */
const pair = parseQueryGpuCsv(
  fs.readFileSync(path.resolve('test/__fixtures__/nvidia-smi-2gpu/query-gpu-preflight-2gpu.csv'), 'utf8')
)
const MIB = 2 ** 20
const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'container', kind: 'container', image: 'nvcr.io/nvidia/pytorch:25.01-py3' }
]
const def = (name: string): WorkloadDefinition => builtinDefinition(name)!

function config(over: { turns?: boolean; gpus?: 'all' | string[]; device?: 'gpu' | 'cpu' } = {}) {
  return {
    device: over.device ?? 'gpu',
    gpus: over.gpus ?? 'all',
    arms,
    turns: over.turns ?? true,
    definitions: [def('matmul'), def('llm')],
    llmPreset: '8b' as const,
    containerMemory: null,
    matmulSize: 10000,
    matmulDtype: 'fp32' as const
  }
}

/** The recorded GPUs with other processes holding all but `freeBytes` of each. */
function withFree(freeBytes: number): GpuFacts[] {
  return pair.map(g => ({
    ...g,
    compute_processes: [{ pid: 4242, used_memory_mib: g.memory_total_mib! - Math.floor(freeBytes / MIB) }]
  }))
}

describe('memory rows', () => {
  const one = llmMemory('8b', 'gpu').total
  // Room for one 8b process on each GPU, not for two.
  const gpus = { gpus: withFree(one * 1.5), driver: '580.159.04', cuda_version: '13.0' }
  const lanes = resolveLanes('all', pair, new Map())!

  it('the llm on two GPUs takes turns on each: a GPU holds both arms, as the plan runs them', () => {
    // What the plan does: each step of the llm puts a native and a container process on every lane at once.
    const c = config()
    const runs = buildPlan({ arms, workloads: ['llm'], runs: 1, warmupRuns: 0, schedule: 'abba', seed: 1 })
    const steps = planExecution(runs, lanes, 'lockstep', w => takesTurns(c, w)).steps
    for (const lane of lanes)
      expect(steps[0]!.processes.filter(p => p.lane === lane)).toHaveLength(processesAtOnce(c, 'llm'))
    const row = llmMemoryRow(c, gpus, lanes)
    expect(row.status).toBe('fail')
    expect(row.message).toMatch(/2 processes at once \(turns\)/)
    expect(row.fix).toMatch(/turns: false/)
  })

  it('without turns a GPU holds one llm process, and the same memory passes', () => {
    const row = llmMemoryRow(config({ turns: false }), gpus, lanes)
    expect(row.status).toBe('pass')
    expect(row.message).not.toMatch(/at once/)
  })

  it('the GPUs counted are the lanes’ (resolved once), else those the gpus input names', () => {
    const [g0, g1] = pair
    const lane1 = resolveLanes([g1!.uuid!], pair, new Map())!
    expect(gpusOfCheck(config(), { gpus: pair, driver: null, cuda_version: null }, lane1)).toEqual([g1])
    // One GPU full, the other free: only the lanes' GPU decides.
    const mixed = {
      gpus: [withFree(one * 1.5)[0]!, withFree(one * 3)[1]!],
      driver: null,
      cuda_version: null
    }
    expect(llmMemoryRow(config(), mixed, lane1).status).toBe('pass')
    expect(llmMemoryRow(config(), mixed, lanes).status).toBe('fail')
    // No lanes (a MIG selection, facts that could not be pinned): the input's selection.
    expect(
      gpusOfCheck(config({ gpus: ['0'] }), { gpus: pair, driver: null, cuda_version: null }, null)
    ).toEqual([g0])
  })

  it('matmul does not take turns: one process per GPU, refused only when one does not fit', () => {
    const c = config()
    expect(processesAtOnce(c, 'matmul')).toBe(1)
    const need = matmulBytes(10000, 'fp32')
    const fits = { gpus: withFree(need * 1.2), driver: null, cuda_version: null }
    const full = { gpus: withFree(need * 0.8), driver: null, cuda_version: null }
    expect(matmulMemoryRow(c, fits, lanes).status).toBe('pass')
    const row = matmulMemoryRow(c, full, lanes)
    expect(row.status).toBe('fail')
    expect(row.fix).toMatch(/use matmul-size \d+ or less/)
  })
})
