/** The check's workloads that take turns (config/workloads decides which do: takesTurns). */
import { takesTurns, type Config } from '../config/index.js'
import type { Workload } from '../types/index.js'

export type TurnsConfig = Pick<Config, 'turns' | 'definitions'>

/** The check's workloads that take turns, in the order of its definitions. */
export function turningWorkloads(config: TurnsConfig & Pick<Config, 'workloads'>): Workload[] {
  return config.definitions
    .filter(d => config.workloads.includes(d.name) && takesTurns(config, d.name))
    .map(d => d.name)
}
