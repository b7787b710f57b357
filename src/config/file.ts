/** The optional YAML config file: measurement knobs only (tokens, modes and the file itself never come from it). */
import * as fs from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { type RawInputs } from './defaults.js'

/** Keys a config file may hold: every input but the file itself, the token and the aggregate-only ones. */
const FILE_KEYS = new Set<string>(
  Object.values(Inputs).filter(
    k =>
      k !== Inputs.Config &&
      k !== Inputs.GithubToken &&
      k !== Inputs.Mode &&
      k !== Inputs.AggregateDirs &&
      k !== Inputs.TrendMetrics &&
      k !== Inputs.TrendIssues
  )
)
/** Reads and validates a YAML config file into raw string values keyed by input name. */
export function readConfigFile(file: string): RawInputs {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw new InputError(
      Inputs.Config,
      file,
      `a readable YAML file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`
    )
  }
  let doc: unknown
  try {
    // Failsafe schema: every scalar stays the text that was written, so `runs: 0x10` or `runs: 5.0` reach
    // the same strict number parser as flags and inputs instead of being turned into 16 and 5 by YAML.
    doc = parseYaml(text, { schema: 'failsafe' })
  } catch (error) {
    throw new InputError(Inputs.Config, file, `valid YAML (${(error as Error).message.split('\n')[0]})`)
  }
  if (doc === null || doc === undefined) return {}
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new InputError(Inputs.Config, file, 'a YAML mapping of input names to values')
  const raw: RawInputs = {}
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    if (!FILE_KEYS.has(key))
      throw new InputError(
        `${Inputs.Config}: ${key}`,
        key,
        `one of ${[...FILE_KEYS].join(', ')} (tokens never go in files)`
      )
    if (Array.isArray(value) && value.every(v => typeof v === 'string' || typeof v === 'number'))
      raw[key as Inputs] = value.join(',')
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      raw[key as Inputs] = String(value)
    else throw new InputError(key, value, 'a string, number, boolean or list of them')
  }
  return raw
}
