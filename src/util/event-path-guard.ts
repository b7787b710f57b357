/**
 * The event payload (GITHUB_EVENT_PATH) as a library sees it. @actions/github (loaded by @actions/artifact) reads
 * it with a blocking readFileSync the moment the bundle loads, before any of the tool's code runs: a FIFO there
 * would hang the step, a device would never end. Imported first by the action entry: when the path is not a
 * regular file of bounded size (opened non-blocking, fstat'd), it is taken out of the environment for the
 * libraries, and remembered here, so readEventPayload still says `unreadable` (and a pull request's event is
 * refused as before) rather than `unset`.
 */
import * as fs from 'node:fs'

/** Must match READ_LIMITS.event (util/safe-fs.ts), which this module cannot import before the bundle loads. */
const MAX_EVENT_BYTES = 25 * 1024 * 1024

let refused: string | null = null

/** The GITHUB_EVENT_PATH this process took out because it is no readable regular file, or null. */
export function refusedEventPath(): string | null {
  return refused
}

/** Whether `file` opens non-blocking as a regular file of at most the event cap. */
function regularFile(file: string): boolean {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    try {
      const st = fs.fstatSync(fd)
      return st.isFile() && st.size <= MAX_EVENT_BYTES
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
}

/** Takes GITHUB_EVENT_PATH out of `env` when it is not a regular file (a missing one the libraries handle). */
export function guardEventPath(env: NodeJS.ProcessEnv = process.env): void {
  const file = env.GITHUB_EVENT_PATH
  if (!file || !fs.existsSync(file) || regularFile(file)) return
  refused = file
  delete env.GITHUB_EVENT_PATH
}

guardEventPath()
