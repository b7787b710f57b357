/**
 * The one sanitiser for untrusted text that the tool publishes: metric names, units, error messages,
 * stderr tails, co-tenant command lines and stored history reach the PR comment, Check run, job summary,
 * trend issues, the log, CSV files and the terminal only through these functions.
 *
 * - plainText: registered secrets and token shapes masked, ANSI escapes and every control or format
 *   character (CR, ESC, bidi overrides, zero-width marks) removed, one line, at most `max` characters;
 * - mdText / mdCode: plainText made inert as markdown (prose with every markup character escaped, or a
 *   code span), with @-mentions, `org/repo#1` references and bare links broken; mdTableCell: what a table cell
 *   adds to either (its pipes escaped), applied by the one table builder (report/table.ts);
 * - logText: for log and terminal lines, which also never start a workflow command (`::warning::`, `##[`);
 * - csvCell: a CSV field that a spreadsheet never reads as a formula.
 */
import { maxOf } from './arrays.js'
import { redact } from './secrets.js'

/** What one published value may take when the caller names no bound. */
export const MAX_TEXT_CHARS = 1000
/** One log or terminal line. */
export const MAX_LOG_LINE_CHARS = 4000
/** Lines of one log message. */
export const MAX_LOG_LINES = 400

// CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`) and two-character escapes.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g
// Line breaks of every kind, tabs and the Unicode line/paragraph separators become one space.
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g
// Every other control (C0, DEL, C1) and format character (bidi overrides and isolates, zero-width marks).
const CONTROLS = /[\p{Cc}\p{Cf}]/gu
/** Characters past a cut that are still searched for secrets (a PEM key is about 3,300). */
const SECRET_MARGIN = 8192
/** A zero-width space: placed after `@` and `#`, it keeps GitHub from linking a mention or a reference. */
const BREAK = '\u200b'

/** At most `max` characters (code points), with `…` where text was cut. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text
  const points = Array.from(text.slice(0, max * 2 + 2))
  return points.length <= max ? points.join('') : `${points.slice(0, Math.max(0, max - 1)).join('')}…`
}

/** Untrusted text as one printable line: secrets masked, controls removed, at most `max` characters. */
export function plainText(text: unknown, max = MAX_TEXT_CHARS): string {
  const s = typeof text === 'string' ? text : String(text)
  // Work on a bounded prefix: a 5 MB message costs no more than a short one. Secrets are masked before
  // the prefix is cut, over a margin, so a secret is never cut in two with its first part shown.
  const keep = max * 4 + 256
  const head = s.length > keep ? redact(s.slice(0, keep + SECRET_MARGIN)).slice(0, keep) : redact(s)
  return clipText(head.replace(ANSI, '').replace(BREAKS, ' ').replace(CONTROLS, ''), max)
}

/** Breaks what GitHub would link in plain prose: @-mentions, `#1`/`GH-1` references, URLs. */
function breakLinks(text: string): string {
  return (
    text
      // A mention (`@name` after a non-word character) or an e-mail address (`a@b.c`, autolinked).
      .replace(/(^|[^\p{L}\p{N}_])@(?=[\p{L}\p{N}])|@(?=[\p{L}\p{N}_-]+\.[\p{L}\p{N}])/gu, `$1@${BREAK}`)
      .replace(/#(?=\d)/g, `#${BREAK}`)
      .replace(/\b(GH)-(?=\d)/gi, `$1${BREAK}-`)
      .replace(/:\/\//g, `:/${BREAK}/`)
      .replace(/\b(www)\./gi, `$1${BREAK}.`)
  )
}

const MD_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }

/**
 * Untrusted text as inert markdown prose (also safe in a table cell): no link, image, HTML, emphasis,
 * code span, heading or strikethrough can start inside it, nothing in it mentions or references.
 */
export function mdText(text: unknown, max = MAX_TEXT_CHARS): string {
  const escaped = plainText(text, max)
    .replace(/[&<>]/g, c => MD_ESCAPES[c] ?? c)
    .replace(/[\\`*[\]|~]/g, '\\$&')
    // `_` emphasises only at a word's edge: snake_case names stay readable in the source.
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
    // At a line's start `- `, `+ `, `# `, `1. ` or a run of `=`/`-` would open a list, a heading or an underline.
    .replace(/^(\s*)([-+#=])(?=\s|$|[-=]*\s*$)/, '$1\\$2')
    .replace(/^(\s*\d+)([.)])(?=\s|$)/, '$1\\$2')
  return breakLinks(escaped)
}

/**
 * Untrusted text as a markdown code span: nothing inside a code span renders, mentions or references. The fence
 * is longer than any run of backticks inside. Its text is as given, pipes included (a backslash in a code span
 * shows as one): in a table cell, mdTableCell adds what the cell needs.
 */
export function mdCode(text: unknown, max = MAX_TEXT_CHARS): string {
  const t = plainText(text, max)
  if (t === '') return '` `'
  const longest = maxOf([0, ...Array.from(t.matchAll(/`+/g), m => m[0].length)])
  const fence = '`'.repeat(longest + 1)
  const pad = t.startsWith('`') || t.endsWith('`') || (t.startsWith(' ') && t.endsWith(' ')) ? ' ' : ''
  return `${fence}${pad}${t}${pad}${fence}`
}

/**
 * Markdown (already inert: mdText, mdCode, the report's own markup) placed in a GFM table cell: every `|` gets a
 * backslash before it. A pipe right after a backslash never ends a cell, and the table drops that one backslash
 * before it parses the cell's inlines, code spans included (GFM spec, tables; cmark-gfm's cell scanner and
 * unescape_pipes): so `a|b` in a code span shows `a|b`, `a\|b` shows `a\|b`, and an mdText `\|` still reads `|`.
 * Only a cell needs this: in prose or a list the same backslash would show inside a code span.
 */
export function mdTableCell(md: string): string {
  return md.replace(/\|/g, '\\|')
}

/** GitHub's limit on a comment, an issue body and a Check run's summary or text. */
export const MAX_MARKDOWN_CHARS = 65_535
/**
 * The last pass over a whole markdown document before it is published (comment, Check run, job summary,
 * trend issue, report.md, the CLI's markdown on stdout), whatever its pieces went through: secrets masked,
 * control and format characters other than the line feed removed, @-mentions and `#1` references outside
 * code broken, at most `max` characters. Per-value escaping (mdText, mdCode) is still what keeps markup inert.
 *
 * What counts as code is read conservatively (inertCode): text is left unbroken only where CommonMark surely
 * renders it as code or as an HTML comment; anything doubtful (an escaped or unclosed backtick run, a span that
 * a table cell, an HTML tag or an autolink may cut, an HTML block) is broken.
 */
export function publishMarkdown(doc: string, max = MAX_MARKDOWN_CHARS): string {
  const clean = redact(doc)
    .replace(ANSI, '')
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n')
    // The zero-width space stays: mdText put it there to break a mention or a link.
    .replace(/[\p{Cc}\p{Cf}]/gu, c => (c === '\n' || c === '\t' || c === BREAK ? c : ''))
  return clipText(breakOutsideCode(clean.split('\n')).join('\n'), max)
}

/** An opening code fence: up to 3 spaces, 3+ backticks whose info has none, or 3+ tildes. */
const FENCE_OPEN = /^ {0,3}(?:(`{3,})[^`]*|(~{3,}).*)$/
/** A line that is one HTML comment (CommonMark's: no `--` inside, not `<!-->`): our markers. */
const COMMENT_LINE = /^ {0,3}<!--(?!>|->)(?:(?!--)[\s\S])*?(?<!-)-->\s*$/
/** Where a table cell, an HTML tag or an autolink may cut a code span: on such a line no span is trusted. */
const CUTS_SPANS = /(?<!\\)\||<[A-Za-z/!?]/

/** An HTML block's start (CommonMark 4.6) and what ends it; null: a blank line; undefined: no HTML block. */
function htmlBlockEnd(line: string): RegExp | null | undefined {
  const m = /^ {0,3}<(.?)/.exec(line)
  if (!m) return undefined
  if (/^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)/i.test(line))
    return /<\/(?:script|pre|style|textarea)>/i
  if (/^ {0,3}<!--/.test(line)) return /-->/
  if (/^ {0,3}<!\[CDATA\[/.test(line)) return /\]\]>/
  if (m[1] === '?') return /\?>/
  if (m[1] === '!') return />/
  return null
}

/**
 * Each line with mentions broken outside what is surely code. Kept: fenced code blocks and lines that are one
 * HTML comment. Inside an HTML block nothing is code (no fence or code span opens there). After a line with an
 * unclosed backtick run the paragraph's later lines trust no span (the run may close on one of them, shifting
 * which runs pair).
 */
function breakOutsideCode(lines: string[]): string[] {
  let fence: RegExp | null = null
  let html: RegExp | null | undefined
  let dirty = false
  return lines.map(line => {
    if (fence !== null) {
      if (fence.test(line)) fence = null
      return line
    }
    if (line.trim() === '') {
      dirty = false
      if (html === null) html = undefined
      return line
    }
    if (COMMENT_LINE.test(line)) {
      if (html !== null && html?.test(line)) html = undefined
      return line
    }
    if (html !== undefined) {
      if (html !== null && html.test(line)) html = undefined
      return breakMentions(line)
    }
    const f = FENCE_OPEN.exec(line)
    if (f) {
      const [char, len] = f[1] !== undefined ? ['`', f[1].length] : ['~', (f[2] ?? '').length]
      fence = new RegExp(`^ {0,3}${char}{${len},}[ \\t]*$`)
      dirty = false
      return line
    }
    const end = htmlBlockEnd(line)
    if (end !== undefined) {
      html = end !== null && end.test(line.slice(line.indexOf('<') + 2)) ? undefined : end
      return breakMentions(line)
    }
    const out = codeSpans(line)
    if (out.unclosed) dirty = true
    return dirty || CUTS_SPANS.test(line) ? breakMentions(line) : out.text
  })
}

/**
 * One line read as CommonMark reads code spans: a run of N backticks not escaped by a backslash opens one that
 * the next run of exactly N closes (backslashes inside are literal); a run that nothing closes is literal text
 * (`unclosed`). Mentions are broken outside the spans.
 */
function codeSpans(line: string): { text: string; unclosed: boolean } {
  let out = ''
  let plain = ''
  let unclosed = false
  let i = 0
  while (i < line.length) {
    const c = line[i] ?? ''
    if (c === '\\' && /[!-/:-@[-`{-~]/.test(line[i + 1] ?? '')) {
      plain += line.slice(i, i + 2)
      i += 2
    } else if (c === '`') {
      const run = /^`+/.exec(line.slice(i))?.[0] ?? '`'
      const rest = line.slice(i + run.length)
      const close = new RegExp(`(?<!\`)${run}(?!\`)`).exec(rest)
      if (close === null) {
        unclosed = true
        plain += run
        i += run.length
      } else {
        const span = run + rest.slice(0, close.index + run.length)
        out += breakMentions(plain) + span
        plain = ''
        i += span.length
      }
    } else {
      plain += c
      i++
    }
  }
  return { text: out + breakMentions(plain), unclosed }
}

function breakMentions(text: string): string {
  return text.replace(/(^|[^\p{L}\p{N}_])@(?=[\p{L}\p{N}])/gu, `$1@${BREAK}`).replace(/#(?=\d)/g, `#${BREAK}`)
}

/**
 * A markdown document printed on stdout (the CLI's `--format md`): users paste it into PR comments, so it is
 * published text: publishMarkdown (which keeps the zero-width breaks that plainText would strip), and no line
 * that the runner would read as a workflow command.
 */
export function terminalMarkdown(doc: string): string {
  return publishMarkdown(doc, Infinity)
    .split('\n')
    .map(l => l.replace(/^(\s*):(?=:)/, `$1:${BREAK}`).replace(/##\[/g, `#${BREAK}#[`))
    .join('\n')
}

/**
 * A message for the Actions log or a terminal: each line through plainText, and no line that the
 * runner would read as a workflow command (`::set-env::`, `::warning::`, `##[group]`).
 */
export function logText(text: unknown, maxLine = MAX_LOG_LINE_CHARS, maxLines = MAX_LOG_LINES): string {
  const lines = (typeof text === 'string' ? text : String(text)).split('\n')
  const kept = lines.slice(0, maxLines).map(l =>
    plainText(l, maxLine)
      .replace(/^(\s*):(?=:)/, `$1:${BREAK}`)
      .replace(/##\[/g, `#${BREAK}#[`)
  )
  if (lines.length > maxLines) kept.push(`… ${lines.length - maxLines} more lines`)
  return kept.join('\n')
}

/**
 * One CSV field: quoted when it holds a separator, a quote or a line break; a text that starts with
 * `=`, `+`, `-`, `@` (or a tab or CR) gets a leading `'`, so a spreadsheet shows it as text, never as
 * a formula. Numbers and booleans are written as they are.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return ''
  if (typeof value !== 'string') return String(value)
  const s = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** A field as csvCell wrote it, back to its text (the `'` before a formula character dropped). */
export function csvText(field: string): string {
  return /^'[=+\-@\t\r]/.test(field) ? field.slice(1) : field
}

/** The first non-blank line of a tool's output, trimmed, at most `max` characters: for one-line error messages. */
export function firstLine(text: string, max = Infinity): string {
  return (
    text
      .split(/\r?\n/)
      .map(l => l.trim())
      .find(l => l !== '') ?? ''
  ).slice(0, max)
}

/** A percentage with its sign, one decimal: "+10.2%", "-0.6%" (how analysis notes and headlines give one). */
export function signedPct(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`
}
