/** Where a mode's raw values come from, and the one reader that picks each value by precedence. */
import type { Inputs } from '../types/inputs.js'
import { DEFAULTS, type RawInputs } from './defaults.js'
import { chosen, given } from './parse.js'

export interface ConfigSources {
  flags?: RawInputs
  inputs?: RawInputs
  /** Directory that relative paths resolve against, and (unless `outputsAnywhere`) outputs must stay inside. */
  workspace: string
  /** The CLI: `out` and `baseline-path` may be anywhere the user names. The action leaves this unset. */
  outputsAnywhere?: boolean
}

export interface InputReader {
  /** The first layer's chosen value, else the input's default. */
  get: (name: Inputs) => string
  /** Whether any layer gives a non-empty value (a default that depends on another input must not win then). */
  isSet: (name: Inputs) => boolean
}

/** Reads the layers in order of precedence (flags, then inputs, then the config file's knobs). */
export function inputReader(layers: readonly RawInputs[]): InputReader {
  return {
    get: name => {
      for (const src of layers) {
        const v = chosen(src, name)
        if (v !== undefined) return v
      }
      return DEFAULTS[name]
    },
    isSet: name => layers.some(src => given(src[name]))
  }
}

/** The reader of a mode without a config file: flags over action inputs. */
export function sourcesReader(sources: ConfigSources): InputReader {
  return inputReader([sources.flags ?? {}, sources.inputs ?? {}])
}

/**
 * The reader of a CLI command's own flags (commander's options, camelCase keys): a string flag is taken as
 * given (an empty one too: it is the user's value), anything else falls back to the input's default.
 */
function flagReader(opts: Record<string, unknown>): InputReader {
  const value = (name: Inputs): unknown => opts[flagKey(name)]
  return {
    get: name => {
      const v = value(name)
      return typeof v === 'string' ? v : DEFAULTS[name]
    },
    isSet: name => typeof value(name) === 'string'
  }
}

/** commander's key of `--some-input`: someInput. */
export function flagKey(name: string): string {
  return name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())
}

/** How an input is named in its errors: by the action's input name, or as the CLI flag. */
export type Label = (name: Inputs) => string
export const INPUT_LABEL: Label = name => name
export const FLAG_LABEL: Label = name => `--${name}`

/**
 * What one mode's parser reads, from either surface: the values through an InputReader, each named in its
 * errors by `label` (the action's input name, or the CLI's `--flag`), and the surface's own extras.
 */
export interface ActionSource {
  surface: 'action'
  read: InputReader
  label: Label
  /** Directory that relative paths resolve against, and outputs must stay inside. */
  workspace: string
}
export interface CliSource {
  surface: 'cli'
  read: InputReader
  label: Label
  /** commander's options, for the flags that are no action input (`--input`, `--arm`, `--format`, …). */
  opts: Record<string, unknown>
  /** The command's arguments (`aggregate DIR...`). */
  args: string[]
}
export type ModeSource = ActionSource | CliSource

/** The action's source: flags over inputs (sourcesReader), named by input. */
export function actionSource(sources: ConfigSources): ActionSource {
  return { surface: 'action', read: sourcesReader(sources), label: INPUT_LABEL, workspace: sources.workspace }
}

/** A CLI command's source: its own flags (flagReader), named as `--flag`. */
export function cliSource(opts: Record<string, unknown>, args: string[] = []): CliSource {
  return { surface: 'cli', read: flagReader(opts), label: FLAG_LABEL, opts, args }
}

/** A CLI command's `--format`: json when asked, else the command's text format. */
export function outputFormat<T extends string>(opts: Record<string, unknown>, text: T): T | 'json' {
  return opts.format === 'json' ? 'json' : text
}

/** A CLI flag's non-empty string, else undefined (the command's own fallback applies). */
export function stringFlag(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw !== '' ? raw : undefined
}
