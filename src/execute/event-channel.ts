/**
 * The workload protocol's own channel (docs/protocol.md, version 2): an events file in the run's private
 * folder, named to the workload by GPU_OVERHEAD_EVENTS, read here as it grows. The image's stdout is never
 * parsed (NGC entrypoints print a banner there). The file is opened once, before the process starts, without
 * following a link: if the image replaces it, this descriptor still reads the file the runner made.
 * Reads are bounded (bytes per run, per tick); lines are split by the shared LineSplitter (per-line cap).
 */
import * as fs from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { LineSplitter } from '../util/lines.js'

/** Most bytes one run may write on its channel (a default check's llm run writes ~100 KB). */
export const MAX_CHANNEL_BYTES = 64 * 1024 * 1024
/** How often a live run's channel is read: protocol events are timestamped by the workload itself. */
export const CHANNEL_POLL_MS = 50
/** Bytes read per tick at most, so one chatty run cannot hold the event loop. */
const MAX_BYTES_PER_TICK = 4 * 1024 * 1024
const CHUNK = 256 * 1024

export interface ChannelSink {
  line(text: string): void
  tooLong(chars: number): void
  /** The run wrote more than MAX_CHANNEL_BYTES: reading stops, the run is failed and killed. */
  overflow(bytes: number): void
}

/** Creates the (empty) events file a run will append to: never through a link, never an existing file. */
export function createChannelFile(file: string, mode = 0o666): void {
  const fd = fs.openSync(
    file,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o600
  )
  try {
    // A non-root USER in the image must be able to append to it (the folder itself is private to the run).
    fs.fchmodSync(fd, mode)
  } finally {
    fs.closeSync(fd)
  }
}

export class EventChannel {
  private readonly fd: number
  private position = 0
  private readonly decoder = new StringDecoder('utf8')
  private readonly lines: LineSplitter
  private timer: NodeJS.Timeout | null = null
  private stopped = false

  constructor(
    file: string,
    private readonly sink: ChannelSink,
    private readonly maxBytes = MAX_CHANNEL_BYTES
  ) {
    this.fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    this.lines = new LineSplitter({ line: t => sink.line(t), tooLong: n => sink.tooLong(n) })
  }

  start(pollMs = CHANNEL_POLL_MS): void {
    this.timer = setInterval(() => this.read(MAX_BYTES_PER_TICK), pollMs)
    this.timer.unref()
  }

  /** The process ended: read what is left (within the bound), end the last line, close the file. */
  close(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.read(Infinity)
    if (!this.stopped) {
      this.lines.push(this.decoder.end())
      this.lines.flush()
    }
    this.stopped = true
    try {
      fs.closeSync(this.fd)
    } catch {
      // closed already
    }
  }

  private read(budget: number): void {
    if (this.stopped) return
    const buf = Buffer.allocUnsafe(CHUNK)
    for (let got = 0; got < budget;) {
      let n: number
      try {
        n = fs.readSync(this.fd, buf, 0, CHUNK, this.position)
      } catch {
        return
      }
      if (n <= 0) return
      if (this.position + n > this.maxBytes) {
        this.stopped = true
        if (this.timer) clearInterval(this.timer)
        this.sink.overflow(this.position + n)
        return
      }
      this.position += n
      got += n
      this.lines.push(this.decoder.write(buf.subarray(0, n)))
    }
  }
}
