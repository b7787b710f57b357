/** The workload JSON-lines protocol (workloads/_protocol.py emits these, execute/ reads them). */
import type { Direction } from './basics.js'

// ---- Workload JSON-lines protocol (workloads/_protocol.py emits these) ----

export interface StartEvent {
  event: 'start'
  workload: string
  /** Protocol version (2: events on their own channel; absent in version 1). */
  protocol?: number
  /** Echo of GPU_OVERHEAD_RUN_ID: which run these events belong to. */
  run_id?: string | null
  /** Epoch seconds at which the OS created the process (from /proc/self/stat). */
  proc_start_epoch_s: number | null
  /** Epoch seconds when the first line of Python ran. */
  epoch_s: number
  params: Record<string, unknown>
}
export interface EnvEvent {
  event: 'env'
  [key: string]: unknown
}
export interface PhaseEvent {
  event: 'phase'
  /** interpreter | imports | held | device_init | first_kernel | prepare */
  name: string
  duration_s: number
  end_epoch_s: number
}
export interface SampleEvent {
  event: 'sample'
  metric: string
  value: number
  unit: string
  iteration: number
  /** Which way is better: declared by the workload, never guessed from the name. */
  better: Direction
  /** The gated metric this one is a function of (reported, not tested again). */
  derived_from?: string
  [key: string]: unknown
}
export interface SummaryEvent {
  event: 'summary'
  [key: string]: unknown
}
export interface ErrorEvent {
  event: 'error'
  type: string
  message: string
}
/** The software stack in effect (workloads/_stack.py); free-form facts compared by the explainer. */
export interface StackEvent {
  event: 'stack'
  [key: string]: unknown
}
/** GPU memory after warm-up (workloads/_gpu_memory.py). */
export interface MemoryEvent {
  event: 'memory'
  [key: string]: unknown
}
/** The container's other processes over the measured region just ended (workloads/_peers.py). */
export interface PeersEvent {
  event: 'peers'
  [key: string]: unknown
}
/** Start or end of the measured region; telemetry is attributed to it. */
export interface RegionEvent {
  event: 'region'
  edge: 'start' | 'end'
  epoch_s: number
}
/**
 * Turns (execute/turns.ts): the process gave the GPU back and waits for "turn" on stdin (wait, before its
 * measured iteration `iteration`), or finished measuring (done). Untrusted like every event: only its edge is read.
 */
export interface TurnEvent {
  event: 'turn'
  edge: 'wait' | 'done'
  iteration: number
}
export type WorkloadEvent =
  | StartEvent
  | EnvEvent
  | PhaseEvent
  | SampleEvent
  | SummaryEvent
  | ErrorEvent
  | StackEvent
  | MemoryEvent
  | RegionEvent
  | PeersEvent
  | TurnEvent

/** Start-up phase names in order, as metrics (seconds). `launch` is measured by the runner. */
export const STARTUP_PHASES = [
  'launch',
  'interpreter',
  'imports',
  'device_init',
  'first_kernel',
  // First kernel → first measured region: warm-up, graph capture, checks, recorded facts.
  'prepare'
] as const
export type StartupPhase = (typeof STARTUP_PHASES)[number]
