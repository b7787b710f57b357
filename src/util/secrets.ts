/**
 * Secrets (the GitHub token) are masked in every line the tool prints or publishes. The Actions runner
 * masks a registered value line by line, so a value with a newline is registered whole AND per line;
 * `redactSecrets` does the same for text the tool writes itself (report, comment, summary, messages).
 */

import { appendAll } from './arrays.js'
import { isSecretName } from './secret-names.js'

const MASK = '***'
/** Lines shorter than this are not masked on their own (masking `a` would garble every message). */
const MIN_PART_CHARS = 4

const registered = new Set<string>()
/** Where a secret registered later is also announced (the action: core.setSecret), set once by the entry. */
let announce: (part: string) => void = () => {}

/** Every secret registered from now on is also passed to `mask` (the action's core.setSecret). */
export function announceSecretsTo(mask: (part: string) => void): void {
  announce = mask
}
/**
 * `redactName`'s answers: a metric name or unit stands on every sample (150k of one process), and `redact` of
 * each took seconds of a check's CPU. Emptied whenever the registered secrets change.
 */
const redactedNames = new Map<string, string>()
/** Distinct names remembered (a workload names a handful; past this, each is redacted afresh). */
const NAME_MEMO = 1000

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

/** Encoded forms shorter than this are not registered (a short run of base64 would garble other text). */
const MIN_ENCODED_CHARS = 12

/**
 * The base64 text that every encoding of `value` contains, whatever bytes come before or after it: for each
 * of the three alignments, the characters that depend on the value's bytes alone. `AUTHORIZATION: basic
 * base64(x-access-token:TOKEN)` (checkout's persisted credential in .git/config) contains one of them.
 */
function base64Cores(value: Buffer, alphabet: 'base64' | 'base64url'): string[] {
  const out: string[] = []
  for (let lead = 0; lead < 3; lead++) {
    const text = Buffer.concat([Buffer.alloc(lead), value])
      .toString(alphabet)
      .replace(/=+$/, '')
    // The first group holds `lead` bytes that are not the value's; the last, when partial, bytes after it.
    const start = lead === 0 ? 0 : 4
    const whole = Math.floor((lead + value.length) / 3) * 4
    const core = text.slice(start, whole)
    if (core.length >= MIN_ENCODED_CHARS) out.push(core)
  }
  return out
}

/**
 * The forms a secret travels in besides its text: base64 (and base64url) at every alignment, `user:secret`
 * as a git credential (`x-access-token:…`) in base64 whole, percent-encoding and hex.
 */
export function encodedForms(value: string): string[] {
  const forms = new Set<string>()
  const bytes = Buffer.from(value, 'utf8')
  for (const alphabet of ['base64', 'base64url'] as const)
    for (const core of base64Cores(bytes, alphabet)) forms.add(core)
  for (const user of ['x-access-token', 'x-oauth-basic', 'oauth2'])
    forms.add(Buffer.from(`${user}:${value}`).toString('base64'))
  const uri = encodeURIComponent(value)
  if (uri !== value) forms.add(uri)
  if (value.length >= MIN_PART_CHARS * 2) {
    const hex = bytes.toString('hex')
    forms.add(hex)
    forms.add(hex.toUpperCase())
    // Every byte percent-encoded (`%74%6F…`), as some clients write a URL's userinfo.
    forms.add(hex.replace(/../g, '%$&'))
    forms.add(hex.toUpperCase().replace(/../g, '%$&'))
  }
  forms.delete(value)
  return [...forms].filter(f => f.length >= MIN_ENCODED_CHARS)
}

/**
 * Registers a secret: `mask` is called for every part (in the action: core.setSecret), and the parts are
 * remembered for redactSecrets. So are its encoded forms (encodedForms): an image that reads a base64
 * credential and names a metric after it is masked like one that prints the token.
 */
export function registerSecret(
  value: string | null | undefined,
  mask: (part: string) => void = announce
): void {
  if (!value) return
  const parts = secretParts(value)
  for (const p of secretParts(value)) if (p.length >= MIN_ENCODED_CHARS / 2) appendAll(parts, encodedForms(p))
  for (const p of parts) {
    // Once is enough: the token is also the value of INPUT_GITHUB-TOKEN (registerEnvSecrets).
    if (registered.has(p)) continue
    registered.add(p)
    redactedNames.clear()
    mask(p)
  }
}

/** `text` with every registered secret part (and every part of `extra`) replaced by ***. */
export function redactSecrets(text: string, extra: readonly (string | null | undefined)[] = []): string {
  const parts = new Set(registered)
  for (const e of extra) if (e) for (const p of secretParts(e)) parts.add(p)
  const sorted = [...parts].sort((a, b) => b.length - a.length)
  let out = text
  for (const p of sorted) out = out.split(p).join(MASK)
  return maskEncodedRuns(out, sorted)
}

/** Secret parts at least this long are looked for in decoded text (a shorter one would match by chance). */
const MIN_DECODED_PART_CHARS = 8

/**
 * Runs of percent-encoding (any mix of `%XX` in either case and plain characters) and of hex (either case, any
 * alignment) are decoded, and a run whose decoding holds a secret is masked whole: no list of encodings can
 * name every mix of encoded and plain characters, or of upper- and lower-case digits.
 */
function maskEncodedRuns(text: string, parts: readonly string[]): string {
  const long = parts.filter(p => p.length >= MIN_DECODED_PART_CHARS)
  if (long.length === 0) return text
  const holds = (decoded: string): boolean => long.some(p => decoded.includes(p))
  return text
    .replace(
      /(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=:@/-])*%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=:@/-])*/g,
      run => (holds(percentDecoded(run)) ? MASK : run)
    )
    .replace(/[0-9A-Fa-f]{16,}/g, run =>
      holds(Buffer.from(run, 'hex').toString('latin1')) ||
      holds(Buffer.from(run.slice(1), 'hex').toString('latin1'))
        ? MASK
        : run
    )
}

/** `%XX` to its byte, everything else as it is; bytes read as UTF-8 (a malformed sequence stays as bytes). */
function percentDecoded(run: string): string {
  const bytes = Buffer.from(
    run.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1'
  )
  return bytes.toString('utf8')
}

// Token shapes that must never be published, whatever string carried them in.
const TOKEN_SHAPES: [RegExp, string | ((...m: string[]) => string)][] = [
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, MASK],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}\b/g, MASK],
  [/\bnvapi-[A-Za-z0-9_-]{16,}/g, MASK],
  [/\bAKIA[0-9A-Z]{16}\b/g, MASK],
  // API keys by their published prefixes (OpenAI/Anthropic `sk-`, Hugging Face, GitLab, Slack).
  [/\bsk-[A-Za-z0-9_-]{16,}/g, MASK],
  [/\bhf_[A-Za-z0-9]{20,}\b/g, MASK],
  [/\bglpat-[A-Za-z0-9_-]{16,}/g, MASK],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, MASK],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, MASK],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, MASK],
  [/\b(Bearer|token|Basic)(\s+)[A-Za-z0-9._~+/=-]{16,}/gi, `$1$2${MASK}`],
  // A Bearer credential of any length (a short one is still a credential), and whatever an Authorization
  // header carries, with or without its scheme.
  [/\b(Bearer)(\s+)(?!\*\*\*)[A-Za-z0-9._~+/-]{4,}=*/gi, `$1$2${MASK}`],
  [
    /\b(Authorization:[ \t]*)(?:(Bearer|Basic|token|Digest)[ \t]+)?(?!\*\*\*)[^\s,;]+/gi,
    (_: string, h: string, scheme?: string) => `${h}${scheme ? `${scheme} ` : ''}${MASK}`
  ],
  // Credentials in URLs: scheme://user:password@host, and scheme://user@host (a token alone is a user name
  // to git and to most HTTP clients: https://TOKEN@github.com/…).
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/:@]+:[^\s/@]+@/gi, `$1${MASK}@`],
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)(?!\*\*\*@)[^\s/:@?#]+@(?=[^\s/@])/gi, `$1${MASK}@`]
]

/**
 * `text` with registered secrets (and `extra`) masked, token shapes masked, and the value of every
 * `NAME=value` whose name is secret-shaped (util/secret-names: `NVIDIA_NGC_PAT=…`, `--api-key=…`) masked.
 */
export function redact(text: string, extra: readonly (string | null | undefined)[] = []): string {
  let out = redactSecrets(text, extra)
  for (const [pattern, replacement] of TOKEN_SHAPES)
    out =
      typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement)
  return out
    .replace(
      /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(\s*=\s*)("[^"]*"|'[^']*'|[^\s,;]+)/g,
      (whole, name: string, sep: string) => (isSecretName(name) ? `${name}${sep}${MASK}` : whole)
    )
    .replace(
      // `--token VALUE`, `-api-key VALUE`: an option with a secret-shaped name, and the word after it, whatever
      // it starts with (`--token -Xy3…`: a value may start with '-').
      /(?<![A-Za-z0-9_.-])(--?[A-Za-z][A-Za-z0-9_.-]*)([ \t]+)("[^"]*"|'[^']*'|[^\s"',;][^\s,;]*)/g,
      (whole, name: string, sep: string, word: string) =>
        isSecretName(name) && word !== MASK ? `${name}${sep}${MASK}` : whole
    )
}

/** `redact` for short text that repeats on many records (metric names, units): the same answer, remembered. */
export function redactName(text: string): string {
  let out = redactedNames.get(text)
  if (out === undefined) {
    out = redact(text)
    if (redactedNames.size < NAME_MEMO) redactedNames.set(text, out)
  }
  return out
}

/**
 * A command's words as they may be stored and published (a workload's params, its baseline key, the log):
 * stable for the same words, and no secret in it. The word after an option with a secret-shaped name
 * (`--token X`, `--api-key X`) and the value of `--password=X` are masked, as is every registered secret,
 * token shape and URL credential (`redact`) in each word.
 */
export function redactCommand(argv: readonly string[]): string {
  const out: string[] = []
  let maskNext = false
  for (const word of argv) {
    if (maskNext) {
      // The word after `--token` is its value, whatever it starts with (a value may start with '-').
      maskNext = false
      out.push(MASK)
      continue
    }
    const option = /^(--?)([A-Za-z][A-Za-z0-9_.-]*)(?:([=:])([\s\S]*))?$/.exec(word)
    const name = option?.[2]
    if (option && name !== undefined && isSecretName(name)) {
      if (option[3] === undefined) {
        out.push(word)
        maskNext = true
      } else out.push(`${option[1]}${option[2]}${option[3]}${MASK}`)
      continue
    }
    out.push(redact(word))
  }
  return out.join(' ')
}

/**
 * The values a command's words give secret-named options (`--api-key X`, `--token=X`) and variables
 * (`HF_TOKEN=X`), registered as secrets: the command's own output (a failing command that echoes its key on
 * stderr) is masked like the token wherever the tool shows it.
 */
export function registerCommandSecrets(argv: readonly string[]): void {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? ''
    const option = /^(--?)([A-Za-z][A-Za-z0-9_.-]*)(?:([=:])([\s\S]*))?$/.exec(word)
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]+)$/.exec(word)
    if (option?.[2] !== undefined && isSecretName(option[2])) {
      const value = option[3] === undefined ? argv[i + 1] : option[4]
      if (value !== undefined && value.trim().length >= MIN_PART_CHARS) registerSecret(value)
    } else if (assignment?.[1] !== undefined && assignment[2] !== undefined && isSecretName(assignment[1]))
      if (assignment[2].trim().length >= MIN_PART_CHARS) registerSecret(assignment[2])
  }
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
  redactedNames.clear()
}

/**
 * A JSON value with every string in it (keys included) through `redact`: for the files the tool writes whole
 * (summary.json, runs.jsonl), whose strings come from the workload, the image and the runner alike.
 */
export function redactDeep<T>(value: T): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return redact(v)
    if (v === null || typeof v !== 'object' || depth > 64) return v
    if (Array.isArray(v)) return v.map(x => walk(x, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[redact(k)] = walk(x, depth + 1)
    return out
  }
  return walk(value, 0) as T
}
