/** A user command (config `commands`) as a workload definition: its own argv, read by its format. */
import type { CommandWorkload } from '../../types/index.js'
import type { WorkloadDefinition } from './definition.js'
import { redactCommand } from '../../util/secrets.js'

export function commandDefinition(command: CommandWorkload): WorkloadDefinition {
  return {
    name: command.name,
    start: { kind: 'command', command },
    args: () => [],
    // A baseline is matched to the same command line and the same way of reading its results. The params are
    // stored and published (samples.csv, summary.json, the baseline): the words with every secret masked,
    // the same for the same command (util/secrets.ts redactCommand).
    params: s => ({ device: s.device, command: redactCommand(command.argv), format: command.format }),
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
