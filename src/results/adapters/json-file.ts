/**
 * Bounded reading of one tool's JSON result file: the file comes from the checked-out tree (untrusted), so
 * its size, nesting depth, list lengths and names are capped before anything uses them, and every error
 * names the file, the format and what was expected at which JSON path — never the file's contents beyond
 * the one bad value (InputError shortens that too).
 */
import type { Direction } from '../../types/index.js'
import { InputError } from '../../util/errors.js'
import { parseJsonQuiet, readUntrusted, UnsafePathError } from '../../util/safe-fs.js'

/** Caps on a result file: vLLM's --save-detailed files are the largest (per-request lists). */
export const RESULT_FILE_LIMITS = {
  bytes: 64 * 1024 * 1024,
  /** Nesting depth: the formats need 4; a deeper file is not one of them. */
  depth: 32,
  /** Benchmarks (entries) in one file. */
  entries: 10_000,
  /** Values in one file, all benchmarks together. */
  values: 1_000_000,
  /** Characters of a benchmark name (it becomes a workload label in the report). */
  name: 200
} as const

/** One value a result file gives: the long format's row without environment and run. */
export interface SampleRow {
  workload: string
  metric: string
  value: number
  unit: string
  better: Direction
  iteration?: number
  params?: Record<string, unknown>
  /**
   * 'derived': a function of another metric of the same entry (Google Benchmark's rates are iterations or bytes
   * over its time): shown, never tested again, so one measurement is not several members of the Holm family.
   */
  scope?: 'derived'
}

/** Where in which file of which format: the context every error of an adapter carries. */
export class JsonSource {
  private values = 0

  constructor(
    readonly file: string,
    readonly format: string
  ) {}

  /** An InputError at `path` (a JSON path such as results[0].times[3]) of this file. */
  error(path: string, value: unknown, expected: string): InputError {
    return new InputError(`${this.file} (${this.format})${path === '' ? '' : ` at ${path}`}`, value, expected)
  }

  /** The file, read with its caps and parsed. */
  read(): unknown {
    const text = this.text()
    const depth = nestingDepth(text)
    if (depth > RESULT_FILE_LIMITS.depth)
      throw this.error('', `nesting depth ${depth}`, `JSON nested at most ${RESULT_FILE_LIMITS.depth} deep`)
    const parsed = parseJsonQuiet(text)
    if (!parsed.ok) throw this.error('', `${text.length} characters`, `one JSON document (${parsed.error})`)
    return parsed.value
  }

  /**
   * A JSON Lines file (one JSON object a line, as a tool appends them), each line parsed; blank lines skipped.
   * Python's json.dumps writes a float NaN or infinity as a bare `NaN`/`Infinity`, which JSON has no word for:
   * such a value reads as null (the metric is absent from that line), never as a number.
   */
  readLines(): unknown[] {
    const text = this.text()
    const depth = nestingDepth(text)
    if (depth > RESULT_FILE_LIMITS.depth)
      throw this.error('', `nesting depth ${depth}`, `JSON nested at most ${RESULT_FILE_LIMITS.depth} deep`)
    const lines = text.split('\n').filter(l => l.trim() !== '')
    if (lines.length > RESULT_FILE_LIMITS.entries)
      throw this.error('', `${lines.length} lines`, `at most ${RESULT_FILE_LIMITS.entries} lines`)
    return lines.map((line, i) => {
      const parsed = parseJsonQuiet(line.replace(/([:[,]\s*)-?(?:NaN|Infinity)(?=\s*[,}\]])/g, '$1null'))
      if (!parsed.ok)
        throw this.error(
          `line ${i + 1}`,
          `${line.length} characters`,
          `one JSON object a line (${parsed.error})`
        )
      return parsed.value
    })
  }

  private text(): string {
    let text: string
    try {
      text = readUntrusted(this.file, { maxBytes: RESULT_FILE_LIMITS.bytes })
    } catch (error) {
      const why = error instanceof UnsafePathError ? error.reason : (error as NodeJS.ErrnoException).code
      throw this.error(
        '',
        this.file,
        `a readable regular file of at most ${RESULT_FILE_LIMITS.bytes} bytes (${why})`
      )
    }
    return text
  }

  object(value: unknown, path: string, expected: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw this.error(path, kindOf(value), `an object (${expected})`)
    return value as Record<string, unknown>
  }

  /**
   * The opening of a `{"KEY": [...]}` file (hyperfine's `results`, pytest-benchmark's `benchmarks`): the
   * document an object, its KEY a list, then each entry an object, with its JSON path (`KEY[i]`). Lazy: an
   * entry is checked only when the loop reaches it, so errors come in the file's order.
   */
  *entries(
    doc: unknown,
    key: string,
    expected: { doc: string; list: string; entry: string }
  ): Generator<{ entry: Record<string, unknown>; at: string }> {
    const top = this.object(doc, '', expected.doc)
    const list = this.list(top[key], key, expected.list)
    for (const [i, raw] of list.entries()) {
      const at = `${key}[${i}]`
      yield { entry: this.object(raw, at, expected.entry), at }
    }
  }

  /** A list of at most `max` items. */
  list(value: unknown, path: string, expected: string, max: number = RESULT_FILE_LIMITS.entries): unknown[] {
    if (!Array.isArray(value)) throw this.error(path, kindOf(value), `a list (${expected})`)
    if (value.length > max)
      throw this.error(path, `${value.length} items`, `at most ${max} items (${expected})`)
    return value
  }

  /** A finite number ≥ 0 (every metric here is a duration, a rate or a count). */
  number(value: unknown, path: string, expected: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw this.error(path, value, `a finite number ≥ 0 (${expected})`)
    return value
  }

  /** A benchmark name or unit: non-empty text, bounded, no control characters (it reaches the report). */
  name(value: unknown, path: string, expected: string): string {
    if (
      typeof value !== 'string' ||
      value.trim() === '' ||
      value.length > RESULT_FILE_LIMITS.name ||
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u001f\u007f]/.test(value)
    )
      throw this.error(
        path,
        typeof value === 'string' ? value : kindOf(value),
        `non-empty text of at most ${RESULT_FILE_LIMITS.name} characters without control characters (${expected})`
      )
    return value.trim()
  }

  /** Counts values against the per-file cap; call before adding `n` more. */
  count(n: number, path: string): void {
    this.values += n
    if (this.values > RESULT_FILE_LIMITS.values)
      throw this.error(
        path,
        `more than ${RESULT_FILE_LIMITS.values} values`,
        `at most ${RESULT_FILE_LIMITS.values} values in one file`
      )
  }

  /** `rows` when one of them is a latency (better: lower); else the error naming what was found and expected. */
  withLatency(rows: SampleRow[], path: string, got: string, expected: string): SampleRow[] {
    if (!rows.some(r => r.better === 'lower')) throw this.error(path, got, expected)
    return rows
  }
}

/** What a JSON value is, for messages (never its contents: it may be large). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return value.length > 40 ? `text of ${value.length} characters` : value
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : typeof value
}

/** Deepest nesting of [ and { outside strings: checked before parsing, so a hostile file is refused early. */
export function nestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return deepest
}
