/** Workloads as definitions: the built-ins' table, user commands, and the check's workloads resolved once. */
import type { CommandWorkload } from '../../types/index.js'
import { builtinDefinition } from './builtins.js'
import { commandDefinition } from './command.js'
import type { WorkloadDefinition } from './definition.js'

export { BUILTIN_DEFINITIONS, builtinDefinition } from './builtins.js'
export { commandDefinition } from './command.js'
export { gatedBySamples } from './definition.js'
export type {
  IoPaths,
  WorkloadMetrics,
  WorkloadDefinition,
  WorkloadDomains,
  WorkloadSettings,
  WorkloadStart
} from './definition.js'

/** The named workloads (already validated against the built-ins and commands) as definitions, in order. */
export function resolveWorkloads(
  names: readonly string[],
  commands: readonly CommandWorkload[]
): WorkloadDefinition[] {
  return names.map(name => {
    const command = commands.find(c => c.name === name)
    const definition = command ? commandDefinition(command) : builtinDefinition(name)
    if (!definition) throw new Error(`workload ${name} is neither a built-in nor a command`)
    return definition
  })
}

/** The definition of a workload the check runs (its plan only names configured workloads). */
export function definitionOf(definitions: readonly WorkloadDefinition[], name: string): WorkloadDefinition {
  const definition = definitions.find(d => d.name === name)
  if (!definition) throw new Error(`workload ${name} is not one of this check's workloads`)
  return definition
}

/**
 * Whether a workload's processes take turns: the check asked for it (input `turns`) and its definition can
 * (Protocol.take_turn). Decided here only: plan/steps.ts makes each block of such a workload one step, preflight
 * counts its processes on a GPU at once, and execute/ reads it off the steps it is given.
 */
export function takesTurns(
  config: { turns: boolean; definitions: readonly WorkloadDefinition[] },
  workload: string
): boolean {
  return config.turns && definitionOf(config.definitions, workload).turns
}
