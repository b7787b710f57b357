/** Imported first by the CLI entry, so it runs before any other module of the bundle: an old Node is refused in one line (exit 2). */
import { unsupportedNode } from '../../util/node-version.js'

const refusal = unsupportedNode()
if (refusal) {
  process.stderr.write(`${refusal}\n`)
  process.exit(2)
}
