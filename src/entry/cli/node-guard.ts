/** Imported first by the CLI entry, so it runs before any other module of the bundle: an old Node is refused in one line (exit 2). */
import { unsupportedNode } from '../../util/node-version.js'

const refusal = unsupportedNode()
if (refusal) {
  // Before any other module (util/log.ts loads @actions/core): the one write that may not go through it.
  // eslint-disable-next-line no-restricted-syntax
  process.stderr.write(`${refusal}\n`)
  process.exit(2)
}
