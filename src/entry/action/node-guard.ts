/**
 * Imported first by the action entry, so it runs before any other module of the bundle: an old Node (a runner
 * forced to another runtime) fails the step with one error annotation. @actions/core is not loaded yet, so the
 * workflow command is written as it would write it (the message holds no newline or `%`).
 */
import { unsupportedNode } from '../../util/node-version.js'

const refusal = unsupportedNode()
if (refusal) {
  process.stdout.write(`::error::${refusal}\n`)
  process.exit(1)
}
