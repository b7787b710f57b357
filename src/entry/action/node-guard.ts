/**
 * Imported first by the action entry, so it runs before any other module of the bundle: an old Node (a runner
 * forced to another runtime) fails the step with one error annotation. @actions/core is not loaded yet, so the
 * workflow command is written as it would write it (the message holds no newline or `%`).
 */
import { unsupportedNode } from '../../util/node-version.js'

const refusal = unsupportedNode()
if (refusal) {
  // Before any other module (util/log.ts loads @actions/core): the one write that may not go through it.
  // eslint-disable-next-line no-restricted-syntax
  process.stdout.write(`::error::${refusal}\n`)
  process.exit(1)
}
