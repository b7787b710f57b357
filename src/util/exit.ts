/**
 * Exit only after stdout and stderr have handed everything to the OS. On Linux, writes to a pipe are
 * asynchronous: `process.exit()` right after a large write drops whatever is still queued (everything
 * past the 64 KiB pipe buffer when the reader is slow), so `analyze --format json | consumer` got cut
 * JSON. A reader that closes early (`| head -c 100`) is not an error of ours: EPIPE is ignored.
 */
type Stream = Pick<NodeJS.WriteStream, 'write' | 'on' | 'writableLength' | 'destroyed'>

/** Resolves once everything written to `stream` so far is flushed (or the stream is gone). */
export function drained(stream: Stream): Promise<void> {
  return new Promise(resolve => {
    if (stream.destroyed) return resolve()
    // An empty write's callback runs after every earlier write has been handed to the OS.
    stream.write('', () => resolve())
  })
}

/** Ignore EPIPE (the reader went away); anything else stays an error. */
function ignoreEpipe(stream: Stream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
}

export async function flushAndExit(
  code: number,
  streams: { stdout: Stream; stderr: Stream } = process,
  exit: (code: number) => never = c => process.exit(c)
): Promise<never> {
  ignoreEpipe(streams.stdout)
  ignoreEpipe(streams.stderr)
  await Promise.all([drained(streams.stdout), drained(streams.stderr)])
  return exit(code)
}
