/**
 * The matmul's operands against the memory one process can get, refused before anything starts: a size from the
 * checked-out config file (`matmul-size: 65536` is 16 GiB an fp32 operand) must not run the runner out of memory.
 * The least the workload holds: one pair of operands and the output (workloads/matmul.py), and on the CPU the fp32
 * draw each operand is cast from.
 */
import type { Config } from '../config/index.js'
import type { PreflightResult } from '../types/index.js'
import { gpuFreeBytes, memoryBytes, readMemAvailable } from './llm-memory.js'
import type { GpuReport } from './gpu.js'

const ITEM_BYTES: Record<string, number> = { fp32: 4, tf32: 4, bf16: 2, fp16: 2 }

/** Bytes the matmul of `size` in `dtype` needs at least: A, B and C, and a fp32 draw where it casts. */
export function matmulBytes(size: number, dtype: string): number {
  const item = ITEM_BYTES[dtype] ?? 4
  return size * size * (3 * item + (item < 4 ? 4 : 0))
}

/** The GPUs of the report that the check's `gpus` input selects (all, or by index or UUID). */
export function gpusInUse(config: Pick<Config, 'gpus'>, gpus: GpuReport | null): GpuReport['gpus'] {
  return (gpus?.gpus ?? []).filter(
    g =>
      config.gpus === 'all' ||
      config.gpus.includes(String(g.index)) ||
      (g.uuid !== null && config.gpus.includes(g.uuid))
  )
}

const gib = (b: number): string => `${(b / 2 ** 30).toFixed(1)} GiB`

export function matmulMemoryCheck(config: Config, gpus: GpuReport | null): PreflightResult {
  const need = matmulBytes(config.matmulSize, config.matmulDtype)
  let available: number | null
  let source: string
  if (config.device === 'gpu') {
    available = gpuFreeBytes(gpusInUse(config, gpus))
    source = 'free memory of the GPU(s) used'
  } else {
    const host = readMemAvailable()
    const limit = config.containerMemory ? memoryBytes(config.containerMemory) : null
    const capped = limit !== null && host !== null && limit < host
    available = capped ? limit : host
    source = capped ? `container-memory ${config.containerMemory}` : 'MemAvailable'
  }
  const name = 'matmul-memory'
  const what = `matmul ${config.matmulSize}² ${config.matmulDtype} needs at least ${gib(need)}`
  if (available === null) return { name, status: 'skip', message: `${what}; ${source} unknown`, fix: null }
  if (need > available) {
    const item = ITEM_BYTES[config.matmulDtype] ?? 4
    const fits = Math.floor(Math.sqrt(available / (3 * item + (item < 4 ? 4 : 0))))
    return {
      name,
      status: 'fail',
      message: `${what} on ${config.device}, but only ${gib(available)} is available (${source}); not started`,
      fix: `use matmul-size ${Math.max(16, Math.min(fits, 65536))} or less, or free memory`
    }
  }
  return { name, status: 'pass', message: `${what}, ${gib(available)} available (${source})`, fix: null }
}
