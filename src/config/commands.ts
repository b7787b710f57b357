/**
 * `commands`: the user's own workloads. One `NAME: CMD` (or `NAME=CMD`) a line; CMD is split into an argument
 * array like a shell splits words (single and double quotes, backslash), but no shell runs it: pipes,
 * redirections, `;`, `&&`, `$VAR` and backquotes are refused (wrap them in a script). `command-formats`:
 * `NAME=auto|protocol|wall` a line. Trusted inputs only (workflow or CLI): a command from the checked-out
 * config file would run code the workflow did not name (docs/security.md).
 */
import { COMMAND_FORMATS, WORKLOADS, type CommandFormat, type CommandWorkload } from '../types/index.js'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'

const NAME = /^[a-z][a-z0-9_-]{0,39}$/
const MAX_COMMANDS = 32
const MAX_COMMAND_CHARS = 4096
/** Outside quotes these would need a shell; no shell runs the command. */
const SHELL_ONLY = new Set(['|', '&', ';', '<', '>', '$', '`', '(', ')', '*', '?', '~'])

/** Shell-like word splitting without a shell; throws on what only a shell could do. */
export function splitCommand(name: string, text: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: '"' | "'" | null = null
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote === "'") {
      if (c === "'") quote = null
      else word += c
      continue
    }
    if (quote === '"') {
      if (c === '"') quote = null
      else if (c === '\\' && i + 1 < text.length && '"\\'.includes(text[i + 1]!)) word += text[++i]
      else if (c === '$' || c === '`')
        throw new InputError(
          Inputs.Commands,
          `${name}: ${text}`,
          'a command without $ or ` (no shell expands them)'
        )
      else word += c
      continue
    }
    if (c === "'" || c === '"') {
      quote = c
      inWord = true
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else if (SHELL_ONLY.has(c) && !(c === '~' && inWord)) {
      throw new InputError(
        Inputs.Commands,
        `${name}: ${text}`,
        `a plain command and its arguments (no shell runs it: put pipes, redirections, ${c} and the like in a script, then name the script)`
      )
    } else {
      word += c
      inWord = true
    }
  }
  if (quote) throw new InputError(Inputs.Commands, `${name}: ${text}`, 'balanced quotes')
  if (inWord) words.push(word)
  return words
}

function entries(input: Inputs, raw: string): [string, string][] {
  return raw
    .split('\n')
    .map(l => l.trim())
    .filter(l => l !== '' && !l.startsWith('#'))
    .map(line => {
      const m = /^([^:=\s]+)\s*[:=]\s*(.*)$/.exec(line)
      if (!m) throw new InputError(input, line, 'NAME: COMMAND (or NAME=COMMAND), one a line')
      return [m[1]!, m[2]!]
    })
}

/** `commands` + `command-formats` → the command workloads, in input order. */
export function commandWorkloads(rawCommands: string, rawFormats: string): CommandWorkload[] {
  const list = entries(Inputs.Commands, rawCommands)
  if (list.length > MAX_COMMANDS)
    throw new InputError(Inputs.Commands, `${list.length} commands`, `at most ${MAX_COMMANDS}`)
  const formats = new Map<string, CommandFormat>()
  for (const [name, fmt] of entries(Inputs.CommandFormats, rawFormats)) {
    if (!(COMMAND_FORMATS as readonly string[]).includes(fmt))
      throw new InputError(Inputs.CommandFormats, `${name}=${fmt}`, `NAME=${COMMAND_FORMATS.join('|')}`)
    formats.set(name, fmt as CommandFormat)
  }
  const seen = new Set<string>()
  const out = list.map(([name, text]): CommandWorkload => {
    if (!NAME.test(name) || (WORKLOADS as readonly string[]).includes(name))
      throw new InputError(
        Inputs.Commands,
        name,
        `a name of lowercase letters, digits, - and _ (at most 40, starting with a letter), not a built-in workload (${WORKLOADS.join(', ')})`
      )
    if (seen.has(name)) throw new InputError(Inputs.Commands, name, 'each name once')
    seen.add(name)
    if (text.length > MAX_COMMAND_CHARS)
      throw new InputError(
        Inputs.Commands,
        `${name}: ${text.slice(0, 80)}…`,
        `at most ${MAX_COMMAND_CHARS} characters`
      )
    const argv = splitCommand(name, text)
    if (argv.length === 0) throw new InputError(Inputs.Commands, `${name}:`, 'a command after the name')
    return { name, argv, format: formats.get(name) ?? 'auto' }
  })
  for (const name of formats.keys())
    if (!seen.has(name))
      throw new InputError(
        Inputs.CommandFormats,
        name,
        `the name of a command (${[...seen].join(', ') || 'none given'})`
      )
  return out
}
