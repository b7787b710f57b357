/** `gpu-overhead run`'s flags: refused action inputs, then every flag as the raw input of the same name. */
import { flagKey, loadConfig, type RawInputs } from '../../config/index.js'
import { Inputs } from '../../types/inputs.js'
import { InputError } from '../../util/errors.js'
import { consoleLogger } from '../../util/log.js'
import { ACTION_ONLY, ACTION_ONLY_INSTEAD } from './help.js'

/** Collects the flags the user actually gave, as raw strings keyed by input name. */
function rawFlags(opts: Record<string, unknown>): RawInputs {
  const raw: RawInputs = {}
  for (const name of Object.values(Inputs)) {
    const v = opts[flagKey(name)]
    if (v === undefined) continue
    raw[name] = v === true ? 'true' : typeof v === 'string' ? v : JSON.stringify(v)
  }
  return raw
}

/** `run`: the flags as raw inputs (the check's own parser, loadConfig, reads them), then the check. */
export async function runCommand(opts: Record<string, unknown>): Promise<number> {
  for (const name of ACTION_ONLY) {
    const v = opts[flagKey(name)]
    if (v !== undefined)
      throw new InputError(
        name,
        v,
        `nothing here: --${name} is an action input; ${ACTION_ONLY_INSTEAD[name]}`
      )
  }
  // The user's own shell picks where results go: --out /tmp/x is fine (the action keeps them in the workspace).
  const flags = rawFlags(opts)
  // --command NAME=CMD and --command-format NAME=FMT repeat; they add lines to commands / command-formats.
  for (const [input, key] of [
    [Inputs.Commands, 'command'],
    [Inputs.CommandFormats, 'commandFormat']
  ] as const) {
    const more = opts[key]
    if (Array.isArray(more) && more.length)
      flags[input] = [flags[input] ?? '', ...more.map(String)].filter(Boolean).join('\n')
  }
  const config = loadConfig({ flags, workspace: process.cwd(), outputsAnywhere: true })
  const { runCheckCli } = await import('./run.js')
  return runCheckCli(config, consoleLogger())
}
