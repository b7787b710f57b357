/** Read and check the result folders given to `gpu-overhead aggregate`: one per runner. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { InputError } from '../util/errors.js'
import { intervalReviver } from '../util/json-intervals.js'
import { READ_LIMITS, UnsafePathError, parseJsonQuiet, readUntrusted } from '../util/safe-fs.js'
import { armStackDigest } from '../execute/index.js'
import { readResults, resultPaths } from '../results/index.js'
import type { CheckSummary, SampleRecord } from '../types/index.js'
import { ARM_KEY_FIELDS, HOST_KEY_FIELDS } from './group-key.js'
import type { ResultSource } from './types.js'

const INPUT = 'DIR'
const ALLOWED = 'a results folder written by `gpu-overhead run` (results.jsonl + summary.json)'

function bad(dir: string, why: string): InputError {
  return new InputError(INPUT, dir, `${ALLOWED}; ${why}`)
}

function readSummary(dir: string, file: string): CheckSummary {
  let text: string
  try {
    // The folder's own file: never a link, nor a hard link, to one outside it.
    text = readUntrusted(file, { maxBytes: READ_LIMITS.baseline, noFollow: true, within: dir, oneLink: true })
  } catch (error) {
    throw bad(
      dir,
      `summary.json cannot be read (${error instanceof UnsafePathError ? error.reason : 'unreadable'})`
    )
  }
  // Never quote the file: the parser's message holds a slice of it.
  // Intervals with an end the data did not bound are written as "unbounded": read back as ±Infinity.
  const json = parseJsonQuiet(text, intervalReviver)
  if (!json.ok) throw bad(dir, 'summary.json is not valid JSON')
  const parsed = json.value
  const s = parsed as Partial<CheckSummary> | null
  if (s === null || typeof s !== 'object' || s.schema !== 'gpu-overhead/summary@1')
    throw bad(dir, 'summary.json does not have schema gpu-overhead/summary@1')
  if (!Array.isArray(s.arms) || s.arms.length === 0 || typeof s.fingerprints !== 'object' || !s.fingerprints)
    throw bad(dir, 'summary.json lists no arms or fingerprints')
  for (const arm of s.arms)
    if (!s.fingerprints[arm.label]) throw bad(dir, `summary.json has no fingerprint for arm ${arm.label}`)
  return s as CheckSummary
}

/** Pooling facts a record carries as the summary's fingerprint does; `stack` is per workload (below). */
const RECORD_FIELDS = [...HOST_KEY_FIELDS, ...ARM_KEY_FIELDS].filter(f => f !== 'stack')

/**
 * Every record must belong to an arm of the summary and carry the same pooling facts as the summary's
 * fingerprint of that arm: a folder whose two files disagree (half-edited, or files of two checks
 * copied together) would put samples in the wrong group. A record's stack is its workload's (io imports
 * no NumPy, matmul does); the summary's is the arm's digest over its workloads, so the records' stacks
 * are folded the same way (armStackDigest) before they are compared.
 */
function checkRecords(dir: string, summary: CheckSummary, records: readonly SampleRecord[]): void {
  const disagree = (field: string, arm: string, record: unknown, summarised: unknown): InputError =>
    bad(
      dir,
      `results.jsonl and summary.json disagree on ${field} of arm ${arm} (${String(record)} vs ${String(summarised)})`
    )
  for (const r of records) {
    const fp = summary.fingerprints[r.environment]
    if (!fp)
      throw bad(
        dir,
        `results.jsonl has arm ${JSON.stringify(r.environment)}, which summary.json does not list (${summary.arms.map(a => a.label).join(', ')})`
      )
    for (const field of RECORD_FIELDS) {
      const a = fp[field] ?? null
      const b = r.fingerprint?.[field] ?? null
      if (a !== b) throw disagree(field, r.environment, b, a)
    }
  }
  const runs = records.map(r => ({
    environment: r.environment,
    workload: r.workload,
    warmup: false,
    stack: r.fingerprint?.stack ?? null
  }))
  for (const arm of summary.arms) {
    if (!records.some(r => r.environment === arm.label)) continue
    const a = summary.fingerprints[arm.label]?.stack ?? null
    const b = armStackDigest(runs, arm.label)
    if (a !== b) throw disagree('stack', arm.label, b, a)
  }
}

/** Read one folder; a bad folder is an InputError naming it. */
export function readSource(dir: string, label = path.basename(path.resolve(dir))): ResultSource {
  let stat: fs.Stats
  try {
    stat = fs.statSync(dir)
  } catch {
    throw bad(dir, 'it does not exist')
  }
  if (!stat.isDirectory()) throw bad(dir, 'it is not a folder')
  const paths = resultPaths(dir)
  for (const f of [paths.results, paths.summary])
    if (!fs.existsSync(f)) throw bad(dir, `${path.basename(f)} is missing`)
  const summary = readSummary(dir, paths.summary)
  const records = readResults(paths.results, { within: dir })
  checkRecords(dir, summary, records)
  return { dir, label, summary, records }
}

/**
 * Short unique labels: each folder's name, lengthened by parent folders where names collide
 * (`h100/results`, `h200/results`); the path as given when even the full paths collide.
 */
export function sourceLabels(dirs: readonly string[]): string[] {
  // Each folder's path parts and how many of its last parts its label shows.
  const entries = dirs.map(d => ({ parts: path.resolve(d).split(path.sep).filter(Boolean), depth: 1 }))
  const label = (e: { parts: string[]; depth: number }): string => e.parts.slice(-e.depth).join('/')
  for (;;) {
    const seen = new Map<string, number>()
    for (const e of entries) seen.set(label(e), (seen.get(label(e)) ?? 0) + 1)
    const growable = entries.filter(e => (seen.get(label(e)) ?? 0) > 1 && e.depth < e.parts.length)
    if (growable.length === 0) break
    for (const e of growable) e.depth++
  }
  return entries.map(label)
}

/** Read all folders; the same folder or the same check twice would count its runs twice, so it is refused. */
export function readSources(dirs: readonly string[]): ResultSource[] {
  if (dirs.length === 0) throw new InputError(INPUT, '', `${ALLOWED}; give at least one folder`)
  const seenDir = new Map<string, string>()
  for (const d of dirs) {
    const abs = path.resolve(d)
    const earlier = seenDir.get(abs)
    if (earlier !== undefined) throw bad(d, `the same folder as ${earlier}, given twice`)
    seenDir.set(abs, d)
  }
  const labels = sourceLabels(dirs)
  const sources = dirs.map((d, i) => readSource(d, labels[i]))
  const seenCheck = new Map<string, string>()
  for (const s of sources) {
    const earlier = seenCheck.get(s.summary.check_id)
    if (earlier !== undefined)
      throw bad(s.dir, `it holds check ${s.summary.check_id}, as ${earlier} does (a copy would count twice)`)
    seenCheck.set(s.summary.check_id, s.dir)
  }
  return sources
}
