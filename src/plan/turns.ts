/**
 * Which workloads take turns: the check asked for it (input `turns`) and the workload's definition can
 * (Protocol.take_turn). Decided here only; plan/steps.ts makes each block of such a workload one step, and
 * execute/ reads it off the steps it is given.
 */
import { definitionOf, type Config } from '../config/index.js'
import type { Workload } from '../types/index.js'

export type TurnsConfig = Pick<Config, 'turns' | 'definitions'>

export function takesTurns(config: TurnsConfig, workload: Workload): boolean {
  return config.turns && definitionOf(config.definitions, workload).turns
}

/** The check's workloads that take turns, in the order of its definitions. */
export function turningWorkloads(config: TurnsConfig & Pick<Config, 'workloads'>): Workload[] {
  return config.definitions
    .filter(d => config.workloads.includes(d.name) && takesTurns(config, d.name))
    .map(d => d.name)
}
