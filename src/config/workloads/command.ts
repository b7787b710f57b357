/** A user command (config `commands`) as a workload definition: its own argv, read by its format. */
import type { CommandWorkload } from '../../types/index.js'
import type { WorkloadDefinition } from './definition.js'

export function commandDefinition(command: CommandWorkload): WorkloadDefinition {
  return {
    name: command.name,
    start: { kind: 'command', command },
    args: () => [],
    // A baseline is matched to the same command line and the same way of reading its results.
    params: s => ({ device: s.device, command: command.argv.join(' '), format: command.format }),
    usesIoFolders: false,
    resultFormat: command.format,
    // A user command does not hold after its imports (the built-ins' prestart protocol).
    prestart: false,
    // Nor does it take turns (it measures on its own).
    turns: false,
    metrics: { informational: [], gatedOnRequest: [], onlyGatedOnRequest: false },
    checksLlmMemory: false,
    domains: 'compute'
  }
}
