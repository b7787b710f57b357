import * as core from '@actions/core'
import { redactSecrets } from './secrets.js'

/** Where progress and warnings go: the Actions log (grouped) or the CLI's stderr. */
export interface Logger {
  info(message: string): void
  warn(message: string): void
  group<T>(name: string, fn: () => Promise<T>): Promise<T>
}

// Every line is redacted: a registered secret never reaches the log, whole or by line (util/secrets.ts).
export const actionsLogger: Logger = {
  info: m => core.info(redactSecrets(m)),
  warn: m => core.warning(redactSecrets(m)),
  group: (name, fn) => core.group(name, fn)
}

export function consoleLogger(quiet = false): Logger {
  return {
    info: m => {
      if (!quiet) process.stderr.write(`${redactSecrets(m)}\n`)
    },
    warn: m => process.stderr.write(`warning: ${redactSecrets(m)}\n`),
    group: async (name, fn) => {
      if (!quiet) process.stderr.write(`== ${name}\n`)
      return fn()
    }
  }
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, group: (_n, fn) => fn() }
