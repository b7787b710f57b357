/**
 * The memory rows of preflight (llm-memory, matmul-memory): what one GPU (or the host) must hold at once, against
 * what it has. Where the processes run is the lanes' (lanes.ts, resolved once): a turns block puts every arm's
 * process on each GPU at once, on any number of GPUs (plan/steps.ts), so a GPU holds that many.
 */
import { takesTurns, type Config } from '../config/index.js'
import type { Lane, PreflightResult } from '../types/index.js'
import type { GpuReport } from './gpu.js'
import { checkLlmMemory, gpuFreeBytes, memoryBytes, readMemAvailable } from './llm-memory.js'
import { matmulMemoryCheck } from './matmul-memory.js'

type MemoryConfig = Pick<
  Config,
  | 'device'
  | 'gpus'
  | 'arms'
  | 'turns'
  | 'definitions'
  | 'llmPreset'
  | 'containerMemory'
  | 'matmulSize'
  | 'matmulDtype'
>

/**
 * The GPUs the check's processes run on: its lanes' GPUs; without lanes (a MIG selection, or facts that could not
 * be pinned: one unpinned process), those its `gpus` input names.
 */
export function gpusOfCheck(
  config: Pick<Config, 'gpus'>,
  gpus: GpuReport | null,
  lanes: readonly Lane[] | null
): GpuReport['gpus'] {
  const all = gpus?.gpus ?? []
  if (lanes?.length)
    return all.filter(g => lanes.some(l => (l.uuid !== null ? l.uuid === g.uuid : l.index === g.index)))
  return all.filter(
    g =>
      config.gpus === 'all' ||
      config.gpus.includes(String(g.index)) ||
      (g.uuid !== null && config.gpus.includes(g.uuid))
  )
}

/** Processes of a workload one GPU (or the host) holds at once: every arm's where it takes turns, else one. */
export function processesAtOnce(config: MemoryConfig, workload: string): number {
  return takesTurns(config, workload) ? config.arms.length : 1
}

/**
 * What `processes` of a workload held at once can get: the least free memory of the check's GPUs, or on the CPU
 * MemAvailable (every arm's process of a turns block shares the host) or a smaller container-memory (which holds
 * one container's process only).
 */
function memoryFor(
  config: MemoryConfig,
  gpus: GpuReport | null,
  lanes: readonly Lane[] | null,
  processes: number
): { available: number | null; source: string; processes: number } {
  if (config.device === 'gpu')
    return {
      available: gpuFreeBytes(gpusOfCheck(config, gpus, lanes)),
      source: 'free memory of the GPU(s) used',
      processes
    }
  const host = readMemAvailable()
  const limit = config.containerMemory ? memoryBytes(config.containerMemory) : null
  if (limit !== null && host !== null && limit < host)
    return { available: limit, source: `container-memory ${config.containerMemory}`, processes: 1 }
  return { available: host, source: 'MemAvailable', processes }
}

/** The llm preset against what its processes can get at once (refused before start when they cannot fit). */
export function llmMemoryRow(
  config: MemoryConfig,
  gpus: GpuReport | null,
  lanes: readonly Lane[] | null
): PreflightResult {
  const llm = config.definitions.find(d => d.checksLlmMemory)
  const atOnce = llm ? processesAtOnce(config, llm.name) : 1
  return checkLlmMemory({
    preset: config.llmPreset,
    device: config.device,
    ...memoryFor(config, gpus, lanes, atOnce)
  })
}

/** The matmul's operands against the memory of the GPUs it runs on, or of the host. */
export function matmulMemoryRow(
  config: MemoryConfig,
  gpus: GpuReport | null,
  lanes: readonly Lane[] | null
): PreflightResult {
  return matmulMemoryCheck(config, memoryFor(config, gpus, lanes, processesAtOnce(config, 'matmul')))
}
