/**
 * Secrets (the GitHub token) are masked in every line the tool prints or publishes. The Actions runner
 * masks a registered value line by line, so a value with a newline is registered whole AND per line;
 * `redactSecrets` does the same for text the tool writes itself (report, comment, summary, messages).
 */

import { isSecretName } from './secret-names.js'

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
    // Once is enough: the token is also the value of INPUT_GITHUB-TOKEN (registerEnvSecrets).
    if (registered.has(p)) continue
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

// Token shapes that must never be published, whatever string carried them in.
const TOKEN_SHAPES: [RegExp, string][] = [
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, MASK],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}\b/g, MASK],
  [/\bnvapi-[A-Za-z0-9_-]{16,}/g, MASK],
  [/\bAKIA[0-9A-Z]{16}\b/g, MASK],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, MASK],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, MASK],
  [/\b(Bearer|token|Basic)(\s+)[A-Za-z0-9._~+/=-]{16,}/gi, `$1$2${MASK}`],
  // Credentials in URLs: scheme://user:password@host
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/:@]+:[^\s/@]+@/gi, `$1${MASK}@`]
]

/**
 * `text` with registered secrets (and `extra`) masked, token shapes masked, and the value of every
 * `NAME=value` whose name is secret-shaped (util/secret-names: `NVIDIA_NGC_PAT=…`, `--api-key=…`) masked.
 */
export function redact(text: string, extra: readonly (string | null | undefined)[] = []): string {
  let out = redactSecrets(text, extra)
  for (const [pattern, replacement] of TOKEN_SHAPES) out = out.replace(pattern, replacement)
  return out.replace(
    /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(\s*=\s*)("[^"]*"|'[^']*'|[^\s,;]+)/g,
    (whole, name: string, sep: string) => (isSecretName(name) ? `${name}${sep}${MASK}` : whole)
  )
}

/** Shorter values of secret-named variables are not masked (`FOO_AUTH=1` would garble every number). */
const MIN_ENV_SECRET_CHARS = 8

/**
 * The value of every environment variable whose name is secret-shaped, registered: a secret a workflow
 * put in `env:` is masked in everything the tool writes, even where a child or an image echoed it.
 */
export function registerEnvSecrets(env: NodeJS.ProcessEnv, mask: (part: string) => void = () => {}): void {
  for (const [name, value] of Object.entries(env))
    if (value && value.trim().length >= MIN_ENV_SECRET_CHARS && isSecretName(name))
      registerSecret(value, mask)
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  registered.clear()
}
