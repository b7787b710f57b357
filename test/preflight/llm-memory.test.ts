/** The llm memory estimate: the same shapes as the workload, and a refusal with numbers before anything starts. */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import type { LlmPreset } from '../../src/config/index.js'
import {
  LLM_PRESETS,
  checkLlmMemory,
  gpuFreeBytes,
  llmMemory,
  llmParams,
  memAvailable,
  memoryBytes
} from '../../src/preflight/llm-memory.js'

const GIB = 1024 ** 3
/** The machines of this project (CI, developers): 24 GiB. */
const CI_MACHINE = 24 * GIB

describe('llm memory estimate', () => {
  it('uses the shapes and parameter count of workloads/llm.py', () => {
    const probe =
      'import sys, json; sys.path.insert(0, "workloads"); import llm; ' +
      'print(json.dumps({k: dict(v, params=llm.param_count(v)) for k, v in llm.PRESETS.items()}))'
    const py = JSON.parse(execFileSync('python3', ['-c', probe], { encoding: 'utf8' })) as Record<
      string,
      Record<string, number>
    >
    expect(Object.keys(py).sort()).toEqual(Object.keys(LLM_PRESETS).sort())
    for (const preset of Object.keys(LLM_PRESETS) as LlmPreset[]) {
      const { params, rope_theta: _theta, ...shape } = py[preset]!
      expect(LLM_PRESETS[preset]).toEqual(shape)
      expect(llmParams(preset)).toBe(params)
    }
  })

  it('8b on the CPU (fp32) needs more than a 24 GiB machine has: refused before start, with the need', () => {
    const need = llmMemory('8b', 'cpu')
    expect(need.weights).toBe(8_030_261_248 * 4)
    const r = checkLlmMemory({ preset: '8b', device: 'cpu', available: CI_MACHINE, source: 'MemAvailable' })
    expect(r.status).toBe('fail')
    expect(r.message).toMatch(
      /^llm preset 8b needs about 3\d\.\d GiB \(29\.9 GiB weights \+ .* KV cache \+ .* logits \+ margin\) on cpu, but only 24\.0 GiB is available \(MemAvailable\); not started$/
    )
    expect(r.fix).toBe('use a smaller llm-preset (tiny, 1b) or free memory')
  })

  it('taking turns, every arm holds its llm process at once: a preset that fits once but not twice is refused', () => {
    const one = llmMemory('8b', 'gpu').total
    const card = one * 1.5
    const alone = checkLlmMemory({ preset: '8b', device: 'gpu', available: card, source: 'GPU 0' })
    expect(alone.status).toBe('pass')
    const turns = checkLlmMemory({
      preset: '8b',
      device: 'gpu',
      available: card,
      source: 'GPU 0',
      processes: 2
    })
    expect(turns.status).toBe('fail')
    expect(turns.message).toMatch(/needs about .* \(2 processes at once \(turns\) × \(.* weights/)
    expect(turns.fix).toMatch(/turns: false \(one process at a time\)/)
    const fits = checkLlmMemory({
      preset: '1b',
      device: 'gpu',
      available: card,
      source: 'GPU 0',
      processes: 2
    })
    expect(fits.message).toMatch(/\(2 processes at once, turns\)/)
  })

  it('the presets that fit pass; on a GPU 8b bf16 fits an H200 but not a 16 GiB card', () => {
    expect(checkLlmMemory({ preset: 'tiny', device: 'cpu', available: CI_MACHINE, source: 'x' }).status).toBe(
      'pass'
    )
    expect(checkLlmMemory({ preset: '1b', device: 'cpu', available: CI_MACHINE, source: 'x' }).status).toBe(
      'pass'
    )
    const h200 = gpuFreeBytes([{ memory_total_mib: 143771, compute_processes: [] }])
    expect(checkLlmMemory({ preset: '8b', device: 'gpu', available: h200, source: 'x' }).status).toBe('pass')
    const busy = gpuFreeBytes([
      { memory_total_mib: 143771, compute_processes: [] },
      { memory_total_mib: 16384, compute_processes: [{ used_memory_mib: 1024 }] }
    ])
    expect(busy).toBe(15360 * 1024 ** 2) // the smallest free memory among the GPUs used
    expect(checkLlmMemory({ preset: '8b', device: 'gpu', available: busy, source: 'x' }).status).toBe('fail')
  })

  it('unknown memory is a skip, never a guess', () => {
    expect(
      checkLlmMemory({ preset: '8b', device: 'cpu', available: null, source: 'MemAvailable' }).status
    ).toBe('skip')
  })

  it('reads MemAvailable from this machine’s /proc/meminfo and container-memory sizes', () => {
    const available = memAvailable(fs.readFileSync('/proc/meminfo', 'utf8'))
    expect(available).toBeGreaterThan(0)
    expect(memAvailable('MemTotal: 1 kB\n')).toBeNull()
    expect(memoryBytes('8g')).toBe(8 * GIB)
    expect(memoryBytes('512m')).toBe(512 * 1024 ** 2)
    expect(memoryBytes('lots')).toBeNull()
  })
})
