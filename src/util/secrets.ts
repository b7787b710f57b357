/**
 * Secrets (the GitHub token) are masked in every line the tool prints or publishes. The Actions runner
 * masks a registered value line by line, so a value with a newline is registered whole AND per line;
 * `redactSecrets` does the same for text the tool writes itself (report, comment, summary, messages).
 */

const MASK = '***'
/** Lines shorter than this are not masked on their own (masking `a` would garble every message). */
const MIN_PART_CHARS = 4

const registered = new Set<string>()

/** The pieces of a secret that are masked: the whole value, each line, each line trimmed. */
export function secretParts(value: string): string[] {
  const parts = new Set<string>()
  if (value.trim() !== '') parts.add(value)
  for (const line of value.split(/\r?\n|\r/)) {
    for (const p of [line, line.trim()]) if (p.length >= MIN_PART_CHARS) parts.add(p)
  }
  // Longest first, so a line is not masked before the whole value that contains it.
  return [...parts].sort((a, b) => b.length - a.length)
}

/**
 * Registers a secret: `mask` is called for every part (in the action: core.setSecret), and the parts are
 * remembered for redactSecrets.
 */
export function registerSecret(
  value: string | null | undefined,
  mask: (part: string) => void = () => {}
): void {
  if (!value) return
  for (const p of secretParts(value)) {
    registered.add(p)
    mask(p)
  }
}

/** `text` with every registered secret part (and every part of `extra`) replaced by ***. */
export function redactSecrets(text: string, extra: readonly (string | null | undefined)[] = []): string {
  const parts = new Set(registered)
  for (const e of extra) if (e) for (const p of secretParts(e)) parts.add(p)
  let out = text
  for (const p of [...parts].sort((a, b) => b.length - a.length)) out = out.split(p).join(MASK)
  return out
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  registered.clear()
}
