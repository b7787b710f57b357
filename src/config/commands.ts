/**
 * `commands`: the user's own workloads. One `NAME: CMD` (or `NAME=CMD`) a line; CMD is split into an argument
 * array like a shell splits words (single and double quotes, backslash), but no shell runs it: pipes,
 * redirections, `;`, `&&`, `$VAR` and backquotes are refused (wrap them in a script). `command-formats`:
 * `NAME=FORMAT` a line. From the workflow (input or CLI flag), and from the checked-out config file's
 * `commands:` map only when the workflow opts in (`allow-config-commands`: a command there is the pull
 * request's choice of what runs, docs/security.md). Both are judged by the same rules; a workflow command
 * of the same name wins.
 */
import { registerCommandSecrets } from '../util/secrets.js'
import {
  COMMAND_FORMATS,
  WORKLOADS,
  type CommandFormat,
  type CommandSource,
  type CommandWorkload
} from '../types/index.js'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { redactCommand } from '../util/secrets.js'

const NAME = /^[a-z][a-z0-9_-]{0,39}$/
/** Most commands one source (the input, the config file) may name, and the longest command. */
/** A `commands:` entry of the config file as written: its words are judged by config/commands.ts. */
export interface FileCommand {
  name: string
  run: string
  format: string | null
}

export const COMMAND_LIMITS = { commands: 32, chars: 4096 } as const
/** Longest command text shown back in an error about a config-file command (the tree is untrusted). */
const FILE_SHOWN_CHARS = 80
/** Outside quotes these would need a shell; no shell runs the command. */
const SHELL_ONLY = new Set(['|', '&', ';', '<', '>', '$', '`', '(', ')', '*', '?', '~'])

/**
 * Shell-like word splitting without a shell; throws on what only a shell could do. `shownAs`: the value an
 * error shows (default `NAME: TEXT`).
 */
export function splitCommand(name: string, text: string, shownAs = `${name}: ${text}`): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: '"' | "'" | null = null
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i)
    if (quote === "'") {
      if (c === "'") quote = null
      else word += c
      continue
    }
    if (quote === '"') {
      if (c === '"') quote = null
      else if (c === '\\' && i + 1 < text.length && '"\\'.includes(text.charAt(i + 1)))
        word += text.charAt(++i)
      else if (c === '$' || c === '`')
        throw new InputError(Inputs.Commands, shownAs, 'a command without $ or ` (no shell expands them)')
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
        shownAs,
        `a plain command and its arguments (no shell runs it: put pipes, redirections, ${c} and the like in a script, then name the script)`
      )
    } else {
      word += c
      inWord = true
    }
  }
  if (quote) throw new InputError(Inputs.Commands, shownAs, 'balanced quotes')
  if (inWord) words.push(word)
  return words
}

function entries(input: Inputs, raw: string): [string, string][] {
  return raw
    .split('\n')
    .map(l => l.trim())
    .filter(l => l !== '' && !l.startsWith('#'))
    .map(line => {
      const [, name, command] = /^([^:=\s]+)\s*[:=]\s*(.*)$/.exec(line) ?? []
      if (name === undefined || command === undefined)
        throw new InputError(input, line, 'NAME: COMMAND (or NAME=COMMAND), one a line')
      return [name, command]
    })
}

function formatOf(input: string, shownAs: string, fmt: string, form = 'NAME='): CommandFormat {
  if (!(COMMAND_FORMATS as readonly string[]).includes(fmt))
    throw new InputError(input, shownAs, `${form}${COMMAND_FORMATS.join('|')}`)
  return fmt as CommandFormat
}

/** One command, judged by the same rules whatever its source: name, length, words, format. */
function judged(
  name: string,
  text: string,
  format: CommandFormat,
  source: CommandSource,
  seen: Set<string>
): CommandWorkload {
  // A config-file command is the tree's text: shown back shortened and marked as coming from there.
  const shownAs = (t: string): string =>
    source === 'workflow'
      ? t
      : `(config file) ${t.length > FILE_SHOWN_CHARS ? `${t.slice(0, FILE_SHOWN_CHARS)}…` : t}`
  if (!NAME.test(name) || (WORKLOADS as readonly string[]).includes(name))
    throw new InputError(
      Inputs.Commands,
      shownAs(name),
      `a name of lowercase letters, digits, - and _ (at most 40, starting with a letter), not a built-in workload (${WORKLOADS.join(', ')})`
    )
  if (seen.has(name)) throw new InputError(Inputs.Commands, shownAs(name), 'each name once')
  seen.add(name)
  if (text.length > COMMAND_LIMITS.chars)
    throw new InputError(
      Inputs.Commands,
      `${shownAs(name)}: ${text.slice(0, 80)}…`,
      `at most ${COMMAND_LIMITS.chars} characters`
    )
  // The input holds one command a line; a YAML string could carry a line break (or a NUL) inside quotes.
  if (/[\0\r\n]/.test(text))
    throw new InputError(
      Inputs.Commands,
      shownAs(name),
      'a command on one line, without line breaks or NUL characters'
    )
  const argv = splitCommand(name, text, shownAs(`${name}: ${text}`))
  // A key the command is given is masked in whatever the command prints, as the token is.
  registerCommandSecrets(argv)
  if (argv.length === 0)
    throw new InputError(Inputs.Commands, `${shownAs(name)}:`, 'a command after the name')
  return { name, argv, format, source }
}

/** `commands` + `command-formats` (the workflow's, or the CLI's flags) → the command workloads, in input order. */
export function commandWorkloads(rawCommands: string, rawFormats: string): CommandWorkload[] {
  const list = entries(Inputs.Commands, rawCommands)
  if (list.length > COMMAND_LIMITS.commands)
    throw new InputError(Inputs.Commands, `${list.length} commands`, `at most ${COMMAND_LIMITS.commands}`)
  const formats = new Map<string, CommandFormat>()
  for (const [name, fmt] of entries(Inputs.CommandFormats, rawFormats))
    formats.set(name, formatOf(Inputs.CommandFormats, `${name}=${fmt}`, fmt))
  const seen = new Set<string>()
  const out = list.map(([name, text]) => judged(name, text, formats.get(name) ?? 'auto', 'workflow', seen))
  for (const name of formats.keys())
    if (!seen.has(name))
      throw new InputError(
        Inputs.CommandFormats,
        name,
        `the name of a command of the workflow (${[...seen].join(', ') || 'none given'}); a config-file command sets its own: NAME: {run: COMMAND, format: FORMAT}`
      )
  return out
}

/**
 * The config file's `commands:` entries (config/file.ts read their shape; only with `allow-config-commands`)
 * → command workloads, judged exactly like the input's.
 */
export function fileCommandWorkloads(list: readonly FileCommand[]): CommandWorkload[] {
  if (list.length > COMMAND_LIMITS.commands)
    throw new InputError(Inputs.Commands, `${list.length} commands`, `at most ${COMMAND_LIMITS.commands}`)
  const seen = new Set<string>()
  return list.map(c =>
    judged(
      c.name,
      c.run,
      c.format === null
        ? 'auto'
        : formatOf(
            Inputs.Commands,
            `(config file) ${c.name}.format: ${c.format.slice(0, FILE_SHOWN_CHARS)}`,
            c.format,
            'format: '
          ),
      'config-file',
      seen
    )
  )
}

/** The workflow's commands, then the config file's; a workflow command of the same name wins. */
export function mergeCommands(
  workflow: readonly CommandWorkload[],
  file: readonly CommandWorkload[]
): { commands: CommandWorkload[]; overridden: string[] } {
  const names = new Set(workflow.map(c => c.name))
  const overridden = file.filter(c => names.has(c.name)).map(c => c.name)
  return { commands: [...workflow, ...file.filter(c => !names.has(c.name))], overridden }
}

/** Log lines on where the check's commands come from: a config-file command is the pull request's choice. */
export function commandSourceLines(config: {
  commands: readonly CommandWorkload[]
  workloads: readonly string[]
  overriddenCommands: readonly string[]
  configFile: string | null
}): string[] {
  const file = config.configFile ?? 'the config file'
  const lines = config.overriddenCommands.map(
    n =>
      `command ${n}: the workflow's command of that name is used; the entry in ${file} is ignored (a workflow command wins)`
  )
  for (const c of config.commands)
    if (c.source === 'config-file' && config.workloads.includes(c.name))
      lines.push(
        `command ${c.name} comes from the checked-out ${file} (${Inputs.AllowConfigCommands}: true): the pull request chose what it runs (${redactCommand(c.argv).slice(0, 160)})`
      )
  return lines
}
