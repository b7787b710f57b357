/**
 * Splits a stream into lines without quadratic buffering: each chunk is scanned once for newlines and
 * the unfinished tail is kept as a list of pieces, joined only when its newline arrives. A line longer
 * than the cap is dropped as it grows (never held whole) and reported once, by its length only.
 */

/** Longest line a workload or tool may print (a protocol event is a few hundred bytes). */
export const MAX_LINE_CHARS = 1024 * 1024

export interface LineSink {
  line(text: string): void
  /** A line past the cap was dropped; `chars` is how long it had grown when dropped or ended. */
  tooLong(chars: number): void
}

export class LineSplitter {
  private pieces: string[] = []
  private pending = 0
  private overflow = false

  constructor(
    private readonly sink: LineSink,
    private readonly maxChars = MAX_LINE_CHARS
  ) {}

  push(chunk: string): void {
    let start = 0
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      this.add(chunk.slice(start, nl))
      this.end()
      start = nl + 1
    }
    if (start < chunk.length) this.add(chunk.slice(start))
  }

  /** The stream ended: an unfinished last line counts as a line. */
  flush(): void {
    if (this.pending > 0 || this.overflow) this.end()
  }

  private add(piece: string): void {
    if (piece === '') return
    this.pending += piece.length
    if (this.overflow) return
    if (this.pending > this.maxChars) {
      this.overflow = true
      this.pieces = []
      return
    }
    this.pieces.push(piece)
  }

  private end(): void {
    if (this.overflow) this.sink.tooLong(this.pending)
    else this.sink.line(this.pieces.join(''))
    this.pieces = []
    this.pending = 0
    this.overflow = false
  }
}
