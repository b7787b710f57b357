/**
 * A hyperfine export that compares commands (`hyperfine 'A' 'B' --export-json F`) read as arms: `--arm ENV=SEL`
 * names which command is which arm, SEL being the command's index in `results` (0, 1, …) or its text (the
 * command, or its `--command-name`). hyperfine starts a fresh process for every timed run, so each timed run
 * is one run of its arm (run k of one arm and run k of the other make block k); several files add their runs in
 * order. hyperfine runs every timed run of one command before the next command's: the arms are not interleaved,
 * and the report says so.
 */
import { InputError } from '../../util/errors.js'
import type { RawRow } from '../run-values/index.js'
import { hyperfineCommands } from './hyperfine.js'
import { JsonSource } from './json-file.js'

const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
const ARM_FORM =
  'ENV=INDEX or ENV=COMMAND, once per arm (e.g. --arm native=0 --arm container=1, or --arm native="python3 a.py")'

export interface HyperfineArm {
  environment: string
  /** The command's index in the file's results, or its text (command or --command-name). */
  select: number | string
}

export function parseArmSpecs(specs: readonly string[]): HyperfineArm[] {
  const arms = specs.map(spec => {
    const eq = spec.indexOf('=')
    const environment = eq < 0 ? '' : spec.slice(0, eq).trim()
    const sel = eq < 0 ? '' : spec.slice(eq + 1).trim()
    if (!ENV_NAME.test(environment) || sel === '') throw new InputError('--arm', spec, ARM_FORM)
    return { environment, select: /^\d{1,4}$/.test(sel) ? Number(sel) : sel }
  })
  if (arms.length < 2) throw new InputError('--arm', specs.join(' '), `at least two arms: ${ARM_FORM}`)
  const envs = new Set(arms.map(a => a.environment))
  if (envs.size !== arms.length) throw new InputError('--arm', specs.join(' '), `each arm once: ${ARM_FORM}`)
  return arms
}

/** The rows of hyperfine files with several commands, each command an arm; and a note naming which is which. */
export function hyperfineArmRows(
  files: readonly string[],
  arms: readonly HyperfineArm[]
): { rows: RawRow[]; notes: string[] } {
  const rows: RawRow[] = []
  const runs = new Map<string, number>()
  const named = new Map<string, string>()
  for (const file of files) {
    const src = new JsonSource(file, 'hyperfine')
    const commands = hyperfineCommands(src, src.read())
    const texts = commands.map((c, i) => `${i}: ${c.command}`).join('; ')
    const taken = new Set<number>()
    for (const arm of arms) {
      const i =
        typeof arm.select === 'number' ? arm.select : commands.findIndex(c => c.command === arm.select)
      const chosen = commands[i]
      if (chosen === undefined)
        throw new InputError(
          `--arm ${arm.environment}`,
          arm.select,
          `the index or the text of a command in ${file}: ${texts}`
        )
      if (taken.has(i))
        throw new InputError(`--arm ${arm.environment}`, arm.select, `a command no other arm took (${texts})`)
      taken.add(i)
      const was = named.get(arm.environment)
      if (was !== undefined && was !== chosen.command)
        throw new InputError(
          `--arm ${arm.environment}`,
          arm.select,
          `the same command in every file (${file} gives ${chosen.command}, an earlier file ${was})`
        )
      named.set(arm.environment, chosen.command)
      for (const t of chosen.times) {
        const run = (runs.get(arm.environment) ?? 0) + 1
        runs.set(arm.environment, run)
        // One workload for all arms: the arms are the commands being compared.
        rows.push({
          workload: 'hyperfine',
          metric: 'time',
          value: t,
          unit: 's',
          better: 'lower',
          environment: arm.environment,
          run
        })
      }
    }
  }
  const which = arms.map(a => `${a.environment} = \`${named.get(a.environment) ?? ''}\``).join(', ')
  return {
    rows,
    notes: [
      `hyperfine commands as arms: ${which}; each timed run is one run of its arm (a fresh process). hyperfine ran every timed run of one command before the next, so the arms were not interleaved: a drift between them is not cancelled (gpu-overhead run --command interleaves them).`
    ]
  }
}
