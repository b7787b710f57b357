/**
 * The environment the Actions runner gives an action: `INPUT_<NAME>` for every input of action.yml that has a
 * default, whether the workflow names it or not (DESIGN "Field facts", 2026-11-27), with the workflow's own
 * `with:` values on top. Read from action.yml itself, so a default added there is set here too.
 */
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

interface ActionYml {
  inputs: Record<string, { default?: string | number | boolean }>
}

/** The runner evaluates `${{ github.token }}` before the action starts: a token-shaped stand-in here. */
const EVALUATED: Record<string, string> = { '${{ github.token }}': 'ghs_0000000000000000000000000000000000' }

/** Every input with a default, as the runner sets it, then `withInputs` (the workflow's `with:`). */
export function runnerInputEnv(withInputs: Record<string, string>): Record<string, string> {
  const action = parse(readFileSync('action.yml', 'utf8')) as ActionYml
  const env: Record<string, string> = {}
  for (const [name, spec] of Object.entries(action.inputs))
    if (spec.default !== undefined) {
      const v = String(spec.default)
      env[`INPUT_${name.toUpperCase()}`] = EVALUATED[v] ?? v
    }
  for (const [name, v] of Object.entries(withInputs)) {
    if (!(name in action.inputs)) throw new Error(`action.yml has no input ${name}`)
    env[`INPUT_${name.toUpperCase()}`] = v
  }
  return env
}
