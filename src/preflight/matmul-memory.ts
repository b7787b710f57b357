/**
 * The matmul's operands against the memory one process can get, refused before anything starts: a size from the
 * checked-out config file (`matmul-size: 65536` is 16 GiB an fp32 operand) must not run the runner out of memory.
 * The least the workload holds: one pair of operands and the output (workloads/matmul.py), and on the CPU the fp32
 * draw each operand is cast from.
 */
import type { Config } from '../config/index.js'
import type { PreflightResult } from '../types/index.js'

const ITEM_BYTES: Record<string, number> = { fp32: 4, tf32: 4, bf16: 2, fp16: 2 }

/** Bytes the matmul of `size` in `dtype` needs at least: A, B and C, and a fp32 draw where it casts. */
export function matmulBytes(size: number, dtype: string): number {
  const item = ITEM_BYTES[dtype] ?? 4
  return size * size * (3 * item + (item < 4 ? 4 : 0))
}

const gib = (b: number): string => `${(b / 2 ** 30).toFixed(1)} GiB`

export function matmulMemoryCheck(
  config: Pick<Config, 'matmulSize' | 'matmulDtype' | 'device'>,
  memory: {
    /** Bytes the GPU (the least free of those used) or the host gives; null: unknown (the row is a skip). */
    available: number | null
    source: string
    /** matmul processes that hold their operands at once (turns: every arm's); default 1. */
    processes?: number
  }
): PreflightResult {
  const k = Math.max(1, memory.processes ?? 1)
  const one = matmulBytes(config.matmulSize, config.matmulDtype)
  const need = one * k
  const { available, source } = memory
  const name = 'matmul-memory'
  const at = k > 1 ? ` (${k} processes at once, turns)` : ''
  const what = `matmul ${config.matmulSize}² ${config.matmulDtype} needs at least ${gib(need)}${at}`
  if (available === null) return { name, status: 'skip', message: `${what}; ${source} unknown`, fix: null }
  if (need > available) {
    const fits = Math.floor(Math.sqrt(available / k / matmulBytes(1, config.matmulDtype)))
    return {
      name,
      status: 'fail',
      message: `${what} on ${config.device}, but only ${gib(available)} is available (${source}); not started`,
      fix: `use matmul-size ${Math.max(16, Math.min(fits, 65536))} or less, or free memory`
    }
  }
  return { name, status: 'pass', message: `${what}, ${gib(available)} available (${source})`, fix: null }
}
