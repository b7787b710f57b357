/** Which workloads the check runs: the `workloads` value against the built-ins and the user's commands. */
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { WORKLOADS, type CommandWorkload } from '../types/index.js'
import { list } from './parse.js'
import { setting } from '../util/setting-name.js'

/** `workloads: auto` (the default): the built-ins, unless commands are given; then only the commands. */
export const AUTO_WORKLOADS = 'auto'

/**
 * The check's workloads from the `workloads` value. The runner sets every input that has a default, so the
 * default (`auto`) must carry the rule itself: an absent input can never be told from a defaulted one.
 * An explicit list names built-ins and commands; a name that is neither is an error, and so is a command the
 * list leaves out (it would otherwise never run, silently).
 */
export function selectWorkloads(raw: string, commands: readonly CommandWorkload[]): string[] {
  const names = commands.map(c => c.name)
  if (raw.trim().toLowerCase() === AUTO_WORKLOADS) return names.length > 0 ? names : [...WORKLOADS]
  const items = list(Inputs.Workloads, raw)
  const known = [...WORKLOADS, ...names]
  const chosen = [
    ...new Set(
      items.map(w => {
        const v = w.trim().toLowerCase()
        if (v === AUTO_WORKLOADS)
          throw new InputError(
            Inputs.Workloads,
            raw,
            'auto alone, or a list of built-ins and commands (auto is not a list item)'
          )
        if (!known.includes(v))
          throw new InputError(
            Inputs.Workloads,
            w,
            `a built-in workload (${WORKLOADS.join(' | ')}) or one of the commands (${names.join(' | ') || 'none given'}), or auto`
          )
        return v
      })
    )
  ]
  const left = names.filter(n => !chosen.includes(n))
  if (left.length > 0)
    throw new InputError(
      Inputs.Workloads,
      raw,
      `a list naming every command too: ${left.map(n => `command ${n}`).join(', ')} would not run (add ${left.join(',')} to ${setting('workloads')}, e.g. ${setting('workloads', [...chosen, ...left].join(','))}; or ${setting('workloads', 'auto')} runs only the commands)`
    )
  return chosen
}
