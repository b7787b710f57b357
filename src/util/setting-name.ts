/**
 * How a user-facing message names a setting: the way the entry point the user used spells it. On the action a
 * setting is an input (`device: cpu`, as the workflow's `with:` writes it); on the CLI a flag (`--device cpu`).
 * The entry point says which once, before it parses anything (useSettingNames); every error, hint and report
 * line that names a setting gets its words from `setting()`, so no message tells an action user to pass a flag
 * or a CLI user to set an input. A message built before the entry point chose (a module constant) would keep the
 * default's words: build them where they are used.
 */

/** The entry point a setting is named for. */
export type SettingSurface = 'action' | 'cli'

/** Inputs whose CLI flag has another name (the CLI's `analyze` reads files named by --input and --format-in). */
const CLI_FLAG: Readonly<Record<string, string>> = {
  results: 'input',
  'results-format': 'format-in'
}

// The action's words (the product's main entry) until an entry point says otherwise: a stage's own tests see them.
let surface: SettingSurface = 'action'

/** Called once by each entry point (src/entry/action, src/entry/cli) before it reads its settings. */
export function useSettingNames(s: SettingSurface): void {
  surface = s
}

export function settingSurface(): SettingSurface {
  return surface
}

/** A value as a shell word: quoted where a shell would split or read it, or the CLI take it for a flag. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./][\w@%+=:,./-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`
}

/**
 * The setting `name` (an action input's name, e.g. `device`), with `value` where one is meant: `device: cpu` on
 * the action, `--device cpu` on the CLI; without a value, `device` or `--device`.
 */
export function setting(name: string, value?: string): string {
  if (surface === 'action') return value === undefined ? name : `${name}: ${value}`
  const flag = `--${CLI_FLAG[name] ?? name}`
  return value === undefined ? flag : `${flag} ${shellWord(value)}`
}

/**
 * A text with settings written as `{{name}}` or `{{name: value}}` (for messages kept in tables, built before an
 * entry point chose), each replaced by `setting()`'s words.
 */
export function namedSettings(text: string): string {
  return text.replace(/\{\{([a-z][a-z-]*)(?:: ([^}]*))?\}\}/g, (_m, name: string, value?: string) =>
    setting(name, value)
  )
}
