/**
 * A workload as data (issue 27): everything the stages need to know about one — how its process starts, its
 * arguments, the params that key its baseline, its folders, how its results are read, what gates — so the
 * built-ins and the user's commands go through one path and no stage compares workload names.
 */
import type { CommandFormat, CommandWorkload, Device } from '../../types/index.js'
import type { GateMetric } from '../tail-metrics.js'

/** The built-ins' knobs a definition reads (inputs matmul-dtype and llm-preset). */
export const MATMUL_DTYPES = ['fp32', 'tf32', 'bf16', 'fp16'] as const
export type MatmulDtype = (typeof MATMUL_DTYPES)[number]
export const LLM_PRESETS = ['tiny', '1b', '8b'] as const
export type LlmPreset = (typeof LLM_PRESETS)[number]

/** The settings a workload's arguments and params depend on (a subset of Config). */
export interface WorkloadSettings {
  device: Device
  matmulSize: number
  matmulDtype: MatmulDtype
  llmPreset: LlmPreset
  checkpointMb: number
  seed: number
  gateIoThroughput: boolean
  /** Tail metrics named in gate-metrics: a gated llm TTFT/TPOT tail raises its requests per process. */
  gateMetrics?: readonly GateMetric[]
}

/** io's folders as the process sees them (host paths natively, container paths in the image). */
export interface IoPaths {
  data: string
  checkpoint: string
}

/** How the process starts: a script of the workloads folder under Python, or the user's own argv (no shell). */
export type WorkloadStart = { kind: 'script'; script: string } | { kind: 'command'; command: CommandWorkload }

/**
 * Its metrics that do not gate by default. A metric's scope goes with its name, whoever emits it
 * (execute/metrics.ts reads these lists of the built-ins); a sample's direction comes with the sample or the
 * result format.
 */
export interface WorkloadMetrics {
  /** Reported for information only, whatever the settings. */
  informational: readonly string[]
  /** Informational unless gate-io-throughput asks to gate them. */
  gatedOnRequest: readonly string[]
  /**
   * Its only gateable samples are `gatedOnRequest`: unless asked, something else (io: its mount rule and
   * copy-up probe) gates it, so the check needs no gated sample from it.
   */
  onlyGatedOnRequest: boolean
}

/** Whether the check needs a gated sample from the workload to count as measured. */
export function gatedBySamples(d: Pick<WorkloadDefinition, 'metrics'>, gateIoThroughput: boolean): boolean {
  return !d.metrics.onlyGatedOnRequest || gateIoThroughput
}

/** Which domains a measured difference of the workload touches (analyze/explain). */
export type WorkloadDomains = 'io' | 'compute' | 'compute-and-launch'

export interface WorkloadDefinition {
  name: string
  start: WorkloadStart
  /** Arguments after the script; a user command's are already in its argv. */
  args(s: WorkloadSettings, io: IoPaths): string[]
  /** Recorded with every sample: the baseline key, so a baseline is only matched to the same work. */
  params(s: WorkloadSettings): Record<string, unknown>
  /** io's data (read-only) and a per-run checkpoint folder (writable), made and mounted for each run. */
  usesIoFolders: boolean
  /**
   * How its results are read: null, the built-ins' protocol channel (samples required); else a user
   * command's format (protocol, wall, auto or a tool's result file). A sample's direction comes from the
   * sample itself or the result format, never from here.
   */
  resultFormat: CommandFormat | null
  /** Whether it can be prestarted: it holds after its imports for "go" (the built-ins' protocol). */
  prestart: boolean
  /**
   * Whether its processes can take turns at one GPU iteration by iteration (Protocol.take_turn: a `turn`
   * event, then "turn" on stdin, before each measured iteration).
   */
  turns: boolean
  /** Which of its metrics gate: all its steady samples but these (a sample's direction comes with it). */
  metrics: WorkloadMetrics
  /** Preflight refuses it before start when the llm preset cannot fit the memory one process gets. */
  checksLlmMemory: boolean
  domains: WorkloadDomains
}
