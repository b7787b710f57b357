/**
 * A run's log: what the image's entrypoint, its libraries and the workload printed on stdout and stderr,
 * interleaved as it arrived. Kept bounded (its head, where an entrypoint says what it set up, and its tail,
 * where a failure says why) and never parsed: it is shown when the run fails.
 */
const HEAD_CHARS = 4 * 1024
const TAIL_CHARS = 12 * 1024

export class RunLog {
  private head = ''
  private tail = ''
  private total = 0

  push(chunk: string): void {
    this.total += chunk.length
    if (this.head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.head.length
      this.head += chunk.slice(0, room)
      chunk = chunk.slice(room)
    }
    if (chunk) this.tail = (this.tail + chunk).slice(-TAIL_CHARS)
  }

  /** Head and tail, with how much was left out between them. */
  text(): string {
    const dropped = this.total - this.head.length - this.tail.length
    return dropped > 0
      ? `${this.head}\n[… ${dropped} characters left out …]\n${this.tail}`
      : this.head + this.tail
  }

  /** The last non-empty lines (for a one-line failure description). */
  lastLines(n: number): string[] {
    return this.text()
      .split(/\r?\n/)
      .map(l => l.trim())
      .filter(Boolean)
      .slice(-n)
  }
}
