/**
 * The config file comes from the checked-out tree, which a pull request controls (docs/security.md). It may
 * set measurement knobs only: an allow-list, so an input added later is refused in files until someone
 * decides it is a knob. Values keep their source text (`runs: 1e3` stays "1e3" and is refused like the
 * flag), YAML aliases are refused (a self-referencing anchor would loop), the file must be a regular file
 * (no link, FIFO or device) inside the workspace, and no message quotes the file beyond the offending value.
 * One key more than knobs, and only when the workflow opts in (`allow-config-commands`): the `commands:` map,
 * `NAME: COMMAND` or `NAME: {run: COMMAND, format: FORMAT}` (its entries are judged like the input's,
 * config/commands.ts); without the opt-in the key fails the check by name.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml'
import { Inputs } from '../types/inputs.js'
import type { RawInputs } from './defaults.js'
import { InputError } from '../util/errors.js'
import { READ_LIMITS, UnsafePathError, readUntrusted } from '../util/safe-fs.js'
import { COMMAND_LIMITS, type FileCommand } from './commands.js'

/** Keys a config file may set: how much and what to measure, never where, with what, or how it is judged. */
export const FILE_KNOBS: readonly Inputs[] = [
  Inputs.Workloads,
  Inputs.Runs,
  Inputs.WarmupRuns,
  Inputs.Device,
  Inputs.MatmulSize,
  Inputs.MatmulDtype,
  Inputs.LlmPreset,
  Inputs.CheckpointMb,
  Inputs.Schedule,
  Inputs.GpuLayout,
  Inputs.Seed,
  Inputs.Telemetry
]

/** Longest value shown back in an error (the file is untrusted: never echo more of it). */
export const SHOWN_CHARS = 80
/** Entries a config file may hold (there are a dozen knobs). */
const MAX_KEYS = 100
/** Keys, list items and commas in the whole file, counted before parsing (a config file has a few hundred). */
const MAX_YAML_ENTRIES = 2000

export function shown(v: string): string {
  return v.length > SHOWN_CHARS ? `${v.slice(0, SHOWN_CHARS)}…` : v
}

function scalarText(node: Node, key: string): string {
  if (!isScalar(node))
    throw new InputError(key, '(a nested value)', 'a string, number, boolean or list of them')
  // Plain scalars keep what was written (`1e3`, `5.0`, `0x10`), so numbers are judged like flags.
  if (typeof node.source === 'string' && node.type === 'PLAIN') return node.source
  const v = node.value
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (v === null) return ''
  throw new InputError(key, '(a non-scalar value)', 'a string, number, boolean or list of them')
}

/** The config file must be inside the workspace (resolved) and a regular file, not a link. */
function checkLocation(file: string, workspace: string): void {
  let real: string
  try {
    real = fs.realpathSync.native(path.dirname(file))
  } catch {
    return // missing folder: readUntrusted says ENOENT
  }
  const rel = path.relative(fs.realpathSync.native(workspace), real)
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new InputError(
      Inputs.Config,
      file,
      `a file inside the workspace ${workspace} (its folder resolves to ${real})`
    )
}

/** What a config file holds: knob values keyed by input name, and its commands (when allowed). */
export interface ConfigFileContents {
  knobs: RawInputs
  commands: FileCommand[]
}

export interface ConfigFileOptions {
  /** The workflow's `allow-config-commands`: the file's `commands:` map is read; otherwise it is refused. */
  allowCommands?: boolean
}

/** How an error names a value from the file's `commands:` (the tree's text, marked as such). */
const IN_FILE = '(config file) '
const COMMAND_FORM = 'a map of NAME: COMMAND, or NAME: {run: COMMAND, format: FORMAT}'

function stringScalar(node: unknown, where: string, what: string): string {
  if (isAlias(node))
    throw new InputError(
      Inputs.Commands,
      `${IN_FILE}${where} (a YAML alias)`,
      'a plain value: no aliases (*name)'
    )
  if (!isScalar(node) || typeof node.value !== 'string')
    throw new InputError(Inputs.Commands, `${IN_FILE}${where}`, `${what} (a string) — ${COMMAND_FORM}`)
  return node.value
}

/** The file's `commands:` map, judged by shape and bounds (the words, names and formats by config/commands.ts). */
function fileCommands(value: Node | null): FileCommand[] {
  if (value === null || (isScalar(value) && value.value === null)) return []
  if (isAlias(value))
    throw new InputError(Inputs.Commands, `${IN_FILE}(a YAML alias)`, 'a plain value: no aliases (*name)')
  if (!isMap(value)) throw new InputError(Inputs.Commands, `${IN_FILE}(not a map)`, COMMAND_FORM)
  if (value.items.length > COMMAND_LIMITS.commands)
    throw new InputError(
      Inputs.Commands,
      `${IN_FILE}${value.items.length} commands`,
      `at most ${COMMAND_LIMITS.commands}`
    )
  return value.items.map(pair => {
    const name = stringScalar(pair.key, '(a command name)', 'a command name')
    const label = shown(name)
    const entry = pair.value
    let run: string
    let format: string | null = null
    if (isMap(entry)) {
      const fields = new Map<string, unknown>()
      for (const f of entry.items) {
        const key = stringScalar(f.key, `${label}: (a key)`, 'run or format')
        if (key !== 'run' && key !== 'format')
          throw new InputError(
            Inputs.Commands,
            `${IN_FILE}${label}: ${shown(key)}`,
            `run and format only — ${COMMAND_FORM}`
          )
        fields.set(key, f.value)
      }
      if (!fields.has('run'))
        throw new InputError(
          Inputs.Commands,
          `${IN_FILE}${label}: (no run)`,
          `run: COMMAND — ${COMMAND_FORM}`
        )
      run = stringScalar(fields.get('run'), `${label}.run`, 'a command')
      if (fields.has('format')) format = stringScalar(fields.get('format'), `${label}.format`, 'a format')
    } else run = stringScalar(entry, label, 'a command')
    if (run.length > COMMAND_LIMITS.chars)
      throw new InputError(
        Inputs.Commands,
        `${IN_FILE}${label}: ${shown(run)}`,
        `at most ${COMMAND_LIMITS.chars} characters`
      )
    return { name, run, format }
  })
}

/** Reads and validates a YAML config file: knob values as raw strings keyed by input name, and its commands. */
export function readConfigFile(
  file: string,
  workspace?: string,
  options: ConfigFileOptions = {}
): ConfigFileContents {
  if (workspace !== undefined) checkLocation(file, workspace)
  const text = readConfigText(file, workspace)
  // Bounded before parsing: the YAML parser's time grows with the entries (and its duplicate-key check with
  // their square: 60,000 keys took ~100 s), and a config file has a few hundred at most.
  const entries = text.match(/:(?=[\s]|$)|,|^\s*-(?=\s)/gm)?.length ?? 0
  if (entries > MAX_YAML_ENTRIES)
    throw new InputError(
      Inputs.Config,
      file,
      `a config file of at most ${MAX_YAML_ENTRIES} keys, list items and commas (it has ${entries})`
    )
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false })
  const problem = doc.errors[0]
  if (problem) {
    const at = problem.linePos?.[0]
      ? ` at line ${problem.linePos[0].line}, column ${problem.linePos[0].col}`
      : ''
    throw new InputError(Inputs.Config, file, `valid YAML (${problem.code}${at})`)
  }
  const root = doc.contents
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined)))
    return { knobs: {}, commands: [] }
  if (!isMap(root)) throw new InputError(Inputs.Config, file, 'a YAML mapping of input names to values')
  if (root.items.length > MAX_KEYS) throw new InputError(Inputs.Config, file, `at most ${MAX_KEYS} keys`)
  const raw: RawInputs = {}
  let commands: FileCommand[] = []
  for (const pair of root.items) {
    const keyNode = pair.key as Node | null
    const key = keyNode && isScalar(keyNode) ? String(keyNode.value) : null
    if (key === null) throw new InputError(Inputs.Config, file, 'plain keys (input names)')
    if (key === String(Inputs.Commands)) {
      // A command is code: the tree may name one only when the workflow opted in (docs/security.md).
      if (!options.allowCommands)
        throw new InputError(
          key,
          `(set in the config file ${path.basename(file)})`,
          `commands from the workflow only: a command in the checked-out config file runs only when the workflow sets the input ${Inputs.AllowConfigCommands}: true (CLI --${Inputs.AllowConfigCommands}); docs/security.md`
        )
      commands = fileCommands(pair.value)
      continue
    }
    if (!(FILE_KNOBS as readonly string[]).includes(key)) {
      const isInput = (Object.values(Inputs) as string[]).includes(key)
      throw new InputError(
        key,
        `(set in the config file ${path.basename(file)})`,
        isInput
          ? `not from a config file: ${key} is a workflow input or flag only (the file may set ${FILE_KNOBS.join(', ')}; docs/security.md)`
          : `an input name; a config file may set ${FILE_KNOBS.join(', ')}`
      )
    }
    const value = pair.value as Node | null
    if (value === null) continue
    if (isAlias(value) || (isSeq(value) && value.items.some(i => isAlias(i))))
      throw new InputError(
        key,
        '(a YAML alias)',
        'a plain value: aliases (*name) are not allowed in the config file'
      )
    const text = isSeq(value)
      ? value.items.map(i => scalarText(i as Node, key)).join(',')
      : scalarText(value, key)
    if (text.length > SHOWN_CHARS) throw new InputError(key, shown(text), `at most ${SHOWN_CHARS} characters`)
    raw[key as Inputs] = text
  }
  return { knobs: raw, commands }
}

/** The config file's text, read with the safe-fs limits; a file it refuses or cannot read is an InputError. */
function readConfigText(file: string, workspace: string | undefined): string {
  try {
    // Judged again on the file opened: a `.github` swapped for a link after checkLocation, or a hard link to
    // a file outside the workspace, is refused (safe-fs `within`, `oneLink`).
    return readUntrusted(file, {
      maxBytes: READ_LIMITS.config,
      noFollow: true,
      ...(workspace === undefined ? {} : { within: workspace, oneLink: true })
    })
  } catch (error) {
    const why =
      error instanceof UnsafePathError
        ? error.reason
        : ((error as NodeJS.ErrnoException).code ?? 'unreadable')
    throw new InputError(
      Inputs.Config,
      file,
      `a readable YAML file, a regular file at most ${READ_LIMITS.config} bytes (${why})`
    )
  }
}
