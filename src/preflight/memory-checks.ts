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

/** What the host (CPU check) gives one process: MemAvailable, or a smaller container-memory. */
function hostMemory(config: MemoryConfig): { available: number | null; source: string; capped: boolean } {
  const host = readMemAvailable()
  const limit = config.containerMemory ? memoryBytes(config.containerMemory) : null
  const capped = limit !== null && host !== null && limit < host
  return {
    available: capped ? limit : host,
    source: capped ? `container-memory ${config.containerMemory}` : 'MemAvailable',
    capped
  }
}

/** The llm preset against what its processes can get at once (refused before start when they cannot fit). */
export function llmMemoryRow(
  config: MemoryConfig,
  gpus: GpuReport | null,
  lanes: readonly Lane[] | null
): PreflightResult {
  const llm = config.definitions.find(d => d.checksLlmMemory)
  const atOnce = llm ? processesAtOnce(config, llm.name) : 1
  if (config.device === 'gpu')
    return checkLlmMemory({
      preset: config.llmPreset,
      device: 'gpu',
      available: gpuFreeBytes(gpusOfCheck(config, gpus, lanes)),
      source: 'free memory of the GPU(s) used',
      processes: atOnce
    })
  const host = hostMemory(config)
  return checkLlmMemory({
    preset: config.llmPreset,
    device: 'cpu',
    available: host.available,
    source: host.source,
    // A container's limit holds its own process; the host holds every arm's process of a turns block.
    processes: host.capped ? 1 : atOnce
  })
}

/** The matmul's operands against the memory of the GPUs it runs on, or of the host. */
export function matmulMemoryRow(
  config: MemoryConfig,
  gpus: GpuReport | null,
  lanes: readonly Lane[] | null
): PreflightResult {
  const processes = processesAtOnce(config, 'matmul')
  if (config.device === 'gpu')
    return matmulMemoryCheck(config, {
      available: gpuFreeBytes(gpusOfCheck(config, gpus, lanes)),
      source: 'free memory of the GPU(s) used',
      processes
    })
  const host = hostMemory(config)
  return matmulMemoryCheck(config, { ...host, processes: host.capped ? 1 : processes })
}
