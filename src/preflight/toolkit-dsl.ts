/**
 * The NVIDIA Container Toolkit's requirement language, ported as the toolkit runs it under `docker --gpus`:
 * the hook hands each requirement to `nvidia-container-cli configure --require=…`, which evaluates it with
 * libnvidia-container's `src/cli/dsl.c` against the rules of `src/cli/configure.c`.
 * Sources (NVIDIA/libnvidia-container at 63d366ee3b4183513c310ac557bf31b05b83328f, 2024-10-17):
 * - `src/cli/dsl.c` `dsl_evaluate`: alternatives split on single spaces, conditions on commas, empty pieces
 *   skipped; evaluation is lazy (the first all-true alternative ends it; an alternative stops at its first false
 *   condition), so a malformed condition is only "invalid expression" when it is reached; an alternative of
 *   commas only ends the loop with the previous result; the refusal names the predicate's first space token,
 *   with the CUDA hint when that token starts with `cuda>=`.
 * - `evaluate_rule`: the property is everything before the first of `<>=!`; the operator is the whole run of
 *   those characters and must be a prefix of `=`, `!=`, `<`, `<=`, `>`, `>=` (tried in that order, so a lone `!`
 *   means `!=`); an empty value or unknown property is invalid; a false condition whose text `NAME OP VALUE`
 *   is 128 characters or more is invalid too.
 * - `dsl_compare_version`: digits and dots only; numbers compared part by part while both sides have parts
 *   (a part with no digits, or one ≥ 2^64−1, is invalid); then leftovers stripped of `.`/`0` decide.
 * - `dsl_compare_string` (brand): case-insensitive; only `=` and `!=`.
 * - `configure.c`: `cuda`, `driver`, `arch`, `brand`; with no visible device `arch`/`brand` hold; requirements
 *   are checked per visible GPU (a MIG device through its parent), at most 32 of them.
 * - `src/driver.c`: the brand words (toolkit-brand.ts); `driver_get_device_arch`/`driver_get_cuda_version`:
 *   `MAJOR.MINOR`.
 * Facts we do not know (a brand, a compute capability) are explored, not guessed: every value the fact could take
 * is tried, and the outcome is decided only when all agree. Pure: no I/O.
 */

import { TOOLKIT_BRANDS } from './toolkit-brand.js'
import { must } from '../util/must.js'

export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>='
/** dsl.c's operator table, in its order (the first one the operator run is a prefix of wins). */
const OPERATORS: readonly Comparator[] = ['=', '!=', '<', '<=', '>', '>=']
const OPERATOR_CHAR = /[<>=!]/
const OPERATOR_RUN = /^[<>=!]+/
/** dsl.c EXPR_MAX: a false condition formatted as `NAME OP VALUE` must fit in it (with its NUL). */
const EXPR_MAX = 128
/** strtoumax saturates at UINTMAX_MAX, which dsl.c treats as an error. */
const UINTMAX_MAX = 2n ** 64n - 1n
/** configure.c `char *reqs[32]`: more is "input error: too many requirements". */
export const MAX_REQUIREMENTS = 32
export const CUDA_HINT = ', please update your driver to a newer version, or use an earlier cuda container'

/**
 * dsl_compare_version: true/false, or null where dsl.c returns -1 (the whole requirement is then an invalid
 * expression). `12` equals `12.0`; `12.4.99999…` against `12.4` never parses the long part.
 */
export function compareVersion(v1: string, cmp: Comparator, v2: string): boolean | null {
  if (!/^[0-9.]*$/.test(v1) || !/^[0-9.]*$/.test(v2)) return null
  let a = v1
  let b = v2
  while (a !== '' && b !== '') {
    const da = /^\d+/.exec(a)?.[0]
    const db = /^\d+/.exec(b)?.[0]
    if (da === undefined || db === undefined) return null
    const n1 = BigInt(da)
    const n2 = BigInt(db)
    if (n1 >= UINTMAX_MAX || n2 >= UINTMAX_MAX) return null
    if (n1 !== n2) {
      if (cmp === '=') return false
      if (cmp === '!=') return true
      return cmp === '<' || cmp === '<=' ? n1 < n2 : n1 > n2
    }
    a = a.slice(da.length).replace(/^\.+/, '')
    b = b.slice(db.length).replace(/^\.+/, '')
  }
  a = a.replace(/^[.0]+/, '')
  b = b.replace(/^[.0]+/, '')
  if (cmp === '!=') return a !== '' || b !== ''
  if (cmp === '=' || cmp === '<=' || cmp === '>=') {
    if (a === '' && b === '') return true
    if (cmp === '=') return false
  }
  if (cmp === '<' || cmp === '<=') return a === '' && b !== ''
  return a !== '' && b === ''
}

/** One condition as evaluate_rule splits it. */
export interface Condition {
  text: string
  /** As written (the rule lookup ignores case). */
  name: string
  op: Comparator
  value: string
}

/** evaluate_rule's parse; null where it returns -1 before looking up a rule. */
export function parseCondition(text: string): Condition | null {
  const at = text.search(OPERATOR_CHAR)
  if (at <= 0) return null
  const run = must(OPERATOR_RUN.exec(text.slice(at))?.[0], 'an operator character starts text.slice(at)')
  const op = OPERATORS.find(o => o.startsWith(run))
  const value = text.slice(at + run.length)
  if (op === undefined || value === '') return null
  return { text, name: text.slice(0, at), op, value }
}

/** A fact the toolkit reads: its value, null where the toolkit has none (the rule then holds), or unknown to us. */
export type Fact = { known: true; value: string | null } | { known: false }
export const known = (value: string | null): Fact => ({ known: true, value })
export const UNKNOWN: Fact = { known: false }

/** What one evaluation sees: the driver, and one visible GPU (null: no device visible, evaluated globally). */
export interface DslContext {
  cuda: Fact
  driver: Fact
  device: { arch: Fact; brand: Fact } | null
}

export type DslResult =
  | { result: 'satisfied' }
  | { result: 'unsatisfied'; message: string; failed: string[] }
  | { result: 'invalid'; message: string; at: string }

/** The value chosen for each unknown fact in one exploration. */
type Assignment = Readonly<Record<string, string>>

const RULES = ['cuda', 'driver', 'arch', 'brand'] as const
type Rule = (typeof RULES)[number]

function ruleOf(name: string): Rule | null {
  return RULES.find(r => r === name.toLowerCase()) ?? null
}

function factValue(fact: Fact, key: Rule, assignment: Assignment): string | null {
  return fact.known ? fact.value : (assignment[key] ?? null)
}

/** configure.c's check_* functions: true/false, or null for -1. */
function evaluateRule(c: Condition, rule: Rule, ctx: DslContext, assignment: Assignment): boolean | null {
  if (rule === 'cuda' || rule === 'driver') {
    const have = factValue(rule === 'cuda' ? ctx.cuda : ctx.driver, rule, assignment)
    return have === null ? true : compareVersion(have, c.op, c.value)
  }
  if (ctx.device === null) return true
  if (rule === 'arch') {
    const arch = factValue(ctx.device.arch, 'arch', assignment)
    return arch === null ? true : compareVersion(arch, c.op, c.value)
  }
  const brand = factValue(ctx.device.brand, 'brand', assignment)
  if (brand === null) return true
  if (c.op !== '=' && c.op !== '!=') return null
  const same = brand.toLowerCase() === c.value.toLowerCase()
  return c.op === '=' ? same : !same
}

/** dsl_evaluate for one predicate under one assignment of the unknown facts. */
function evaluateOnce(predicate: string, ctx: DslContext, assignment: Assignment): DslResult {
  let ret = true
  const failed: string[] = []
  for (const alternative of predicate.split(' ')) {
    if (alternative === '') continue
    let completed = true
    for (const text of alternative.split(',')) {
      if (text === '') continue
      const c = parseCondition(text)
      const rule = c === null ? null : ruleOf(c.name)
      const v = c === null || rule === null ? null : evaluateRule(c, rule, ctx, assignment)
      const tooLong = v === false && c !== null && `${c.name} ${c.op} ${c.value}`.length >= EXPR_MAX
      if (v === null || tooLong) return { result: 'invalid', message: 'invalid expression', at: text }
      ret = v
      if (!ret) {
        failed.push(text)
        completed = false
        break
      }
    }
    if (completed) break
  }
  if (ret) return { result: 'satisfied' }
  const first = predicate.split(' ')[0] ?? ''
  return {
    result: 'unsatisfied',
    message: `unsatisfied condition: ${first}${first.startsWith('cuda>=') ? CUDA_HINT : ''}`,
    failed
  }
}

/**
 * The values an unknown version fact is tried with: each value the predicate compares it with, and values just
 * above and below each, so every interval between the thresholds is visited.
 */
function versionCandidates(predicate: string, rule: Rule): string[] {
  const out = new Set<string>(['0', '99999'])
  for (const text of predicate.split(/[ ,]/)) {
    const c = parseCondition(text)
    if (c === null || ruleOf(c.name) !== rule || !/^\d+(\.\d+)*$/.test(c.value)) continue
    const parts = c.value.split('.').map(p => BigInt(p))
    out.add(c.value)
    out.add(`${c.value}.1`)
    const last = parts.findLastIndex(p => p > 0n)
    if (last >= 0) {
      const below = parts.slice(0, last + 1)
      below[last] = must(below[last], 'last indexes parts') - 1n
      out.add(`${below.join('.')}.99999`)
    }
  }
  return [...out]
}

/**
 * Explorations beyond this many (several unknown facts compared many ways), or this many characters read in all
 * (a huge predicate from the image), leave the outcome undecided rather than hold the check.
 */
const MAX_EXPLORATIONS = 20_000
const MAX_EXPLORED_CHARS = 50_000_000

export interface DslOutcome {
  /** The toolkit's decision, or `unknown` when it depends on a fact we do not know. */
  result: 'satisfied' | 'unsatisfied' | 'invalid' | 'unknown'
  message: string | null
  /** The conditions found false (unsatisfied), or the invalid one. */
  failed: string[]
  /** The unknown facts the decision depends on (`brand`, `arch`, `cuda`, `driver`). */
  undecided: string[]
}

/** dsl_evaluate of one predicate for one device, exploring the facts we do not know. */
export function evaluatePredicate(predicate: string, ctx: DslContext): DslOutcome {
  // Only facts the predicate asks about can change its outcome.
  const asked = new Set(
    predicate
      .split(/[ ,]/)
      .map(t => parseCondition(t))
      .map(c => (c === null ? null : ruleOf(c.name)))
  )
  const unknownFacts: [Rule, string[]][] = []
  if (!ctx.cuda.known && asked.has('cuda')) unknownFacts.push(['cuda', versionCandidates(predicate, 'cuda')])
  if (!ctx.driver.known && asked.has('driver'))
    unknownFacts.push(['driver', versionCandidates(predicate, 'driver')])
  if (ctx.device !== null && !ctx.device.arch.known && asked.has('arch'))
    unknownFacts.push(['arch', versionCandidates(predicate, 'arch')])
  if (ctx.device !== null && !ctx.device.brand.known && asked.has('brand'))
    unknownFacts.push(['brand', [...TOOLKIT_BRANDS]])
  const total = unknownFacts.reduce((n, [, values]) => n * values.length, 1)
  if (total > MAX_EXPLORATIONS || (total > 1 && total * predicate.length > MAX_EXPLORED_CHARS))
    return { result: 'unknown', message: null, failed: [], undecided: unknownFacts.map(([k]) => k) }

  const results: DslResult[] = []
  const seen = new Set<string>()
  const explore = (i: number, assignment: Record<string, string>): void => {
    if (i === unknownFacts.length) {
      const r = evaluateOnce(predicate, ctx, assignment)
      const key = r.result === 'satisfied' ? 'satisfied' : `${r.result}:${r.message}`
      if (!seen.has(key)) {
        seen.add(key)
        results.push(r)
      }
      return
    }
    const [name, values] = must(unknownFacts[i], 'i < unknownFacts.length')
    for (const v of values) explore(i + 1, { ...assignment, [name]: v })
  }
  explore(0, {})
  if (results.length > 1)
    return { result: 'unknown', message: null, failed: [], undecided: unknownFacts.map(([name]) => name) }
  const r = must(results[0], 'explore evaluates at least one assignment')
  if (r.result === 'satisfied') return { result: 'satisfied', message: null, failed: [], undecided: [] }
  if (r.result === 'invalid') return { result: 'invalid', message: r.message, failed: [r.at], undecided: [] }
  return { result: 'unsatisfied', message: r.message, failed: r.failed, undecided: [] }
}
