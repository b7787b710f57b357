/**
 * Cancelling a check: Actions sends SIGINT then SIGTERM on cancel. The first signal aborts (the check keeps
 * what it measured and writes its report); a second one exits at once, killing every process tree still
 * running and running the caller's bounded, synchronous clean-up (nothing may be awaited then).
 */
import { randomBytes } from 'node:crypto'
import * as os from 'node:os'
import type { Logger } from './log.js'
import { killAllTrees } from './process-tree.js'

export interface Cancellation {
  signal: AbortSignal
  dispose: () => void
}

export function cancelOnSignals(logger: Logger, forcedCleanup: () => void): Cancellation {
  const controller = new AbortController()
  const handler = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      // A second signal: leave now. The INCOMPLETE report written before the check started stays.
      logger.warn(`received ${sig} again: exiting now; the results folder keeps the INCOMPLETE report`)
      killAllTrees()
      forcedCleanup()
      process.exit(128 + (os.constants.signals[sig] ?? 1))
    }
    logger.warn(
      `received ${sig}: stopping the check, keeping what was measured (send it again to exit at once)`
    )
    controller.abort()
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    }
  }
}

/** A check's id: its start time (UTC, to the second) and 6 random hex digits; also its containers' label. */
export function newCheckId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`
}
