/**
 * The one path to the Actions log and the terminal. Every line goes through logText (util/text.ts):
 * registered secrets masked, control characters (CR, ESC, bidi) removed, lengths bounded, and no line
 * the runner would read as a workflow command (`::set-env::`, `::warning::`, `##[`). ESLint forbids
 * `core.info`/`core.warning`/… and `process.stdout.write` anywhere else in src/.
 */
import * as core from '@actions/core'
import { logText, plainText, terminalMarkdown } from './text.js'

/** Where progress and warnings go: the Actions log (grouped) or the CLI's stderr. */
export interface Logger {
  info(message: string): void
  warn(message: string): void
  group<T>(name: string, fn: () => Promise<T>): Promise<T>
}

/** An annotation's title and message are command properties (core escapes them); still one bounded line. */
export function annotateLog(level: 'error' | 'warning', message: string, title?: string): void {
  const props = title === undefined ? {} : { title: plainText(title, 255) }
  if (level === 'error') core.error(plainText(message, 4000), props)
  else core.warning(plainText(message, 4000), props)
}

export const actionsLogger: Logger = {
  info: m => core.info(logText(m)),
  warn: m => core.warning(plainText(m, 4000)),
  group: (name, fn) => core.group(plainText(name, 200), fn)
}

/**
 * The CLI's output on stdout (a report, JSON): the same rules as the log, but not cut (it is the
 * command's result, and JSON escapes its own control characters).
 */
export function writeOut(text: string): void {
  process.stdout.write(`${logText(text.replace(/\n$/, ''), Infinity, Infinity)}\n`)
}

/**
 * Markdown on stdout (the CLI's `--format md`, the verdict line): users paste it into PR comments, so it is
 * published text. It passes the publishing sanitiser (terminalMarkdown), whose mention and link breaks
 * writeOut's log rules would strip.
 */
export function writeMarkdownOut(markdown: string): void {
  process.stdout.write(`${terminalMarkdown(markdown.replace(/\n$/, ''))}\n`)
}

/** Messages on stderr: the log's rules, lines bounded. */

export function writeErr(text: string): void {
  process.stderr.write(`${logText(text.replace(/\n$/, ''))}\n`)
}

export function consoleLogger(quiet = false): Logger {
  return {
    info: m => {
      if (!quiet) writeErr(m)
    },
    warn: m => writeErr(`warning: ${m}`),
    group: async (name, fn) => {
      if (!quiet) writeErr(`== ${name}`)
      return fn()
    }
  }
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, group: (_n, fn) => fn() }

/** Fails the action's step with one bounded, cleaned message. */
export function failStep(message: string): void {
  core.setFailed(plainText(message, 4000))
}
