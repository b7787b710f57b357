/** The first non-blank line of a tool's output, trimmed, at most `max` characters: for one-line error messages. */
export function firstLine(text: string, max = Infinity): string {
  return (
    text
      .split(/\r?\n/)
      .map(l => l.trim())
      .find(l => l !== '') ?? ''
  ).slice(0, max)
}
