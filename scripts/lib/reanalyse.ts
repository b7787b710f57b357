/**
 * A recorded check's samples analysed again with the current code (issue 51): what a recorded summary.json says
 * of its verdict and intervals is what the code of that day said, and a fix since (an interval a ratio cannot
 * have, a verdict against its rule) shows only in a re-analysis. Used by check-report-consistency.ts and
 * report-examples.ts.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { decideFamily, measureSeries } from '../../src/analyze/index.js'
import { readResultsCsv } from '../../src/results/index.js'
import type { Analysis, CheckSummary } from '../../src/types/index.js'
import { intervalReviver } from '../../src/util/json-intervals.js'
import { withAnalysis } from './report-consistency.js'

/** Whether `dir` holds a check: summary.json and samples.csv (or samples.csv.gz). */
export function holdsCheck(dir: string): boolean {
  const samples = ['samples.csv', 'samples.csv.gz'].some(f => fs.existsSync(path.join(dir, f)))
  return fs.existsSync(path.join(dir, 'summary.json')) && samples
}

/** Folders holding a check, found below `root` (itself included). */
export function checkDirs(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string, depth: number): void => {
    if (holdsCheck(dir)) out.push(dir)
    if (depth > 5) return
    for (const e of fs.readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) walk(path.join(dir, e.name), depth + 1)
  }
  walk(root, 0)
  return out
}

/** The check's samples.csv as a plain file (recorded gzipped: unpacked to a temporary folder). */
export function samplesFile(dir: string): string {
  const plain = path.join(dir, 'samples.csv')
  if (fs.existsSync(plain)) return plain
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reanalyse-'))
  const file = path.join(tmp, 'samples.csv')
  fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(dir, 'samples.csv.gz'))))
  return file
}

export function readSummary(dir: string): CheckSummary {
  return JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'), intervalReviver) as CheckSummary
}

/** The check's samples analysed again with the current code: every arm against the first, one Holm family. */
export async function reanalysed(dir: string, s: CheckSummary): Promise<Analysis> {
  const csv = await readResultsCsv(samplesFile(dir))
  const arms = s.arms.map(a => a.label).filter(a => csv.environments.includes(a))
  const settings = { maxOverheadPct: s.config.max_overhead_pct, alpha: s.config.alpha }
  const comparisons = arms.slice(1).flatMap(
    candidateEnv =>
      measureSeries(csv.series, {
        ...settings,
        baselineEnv: arms[0]!,
        candidateEnv,
        fingerprints: csv.fingerprints
      }).comparisons
  )
  const family = decideFamily(comparisons, [], settings)
  return {
    comparisons: family.arms,
    verdict: family.verdict,
    ...settings,
    max_overhead_pct: settings.maxOverheadPct,
    baseline_env: arms[0]
  }
}

/** The recorded summary with its verdict, intervals and verdict words of today's analysis of its samples. */
export async function reanalysedSummary(dir: string): Promise<CheckSummary> {
  const s = readSummary(dir)
  const summary = { ...withAnalysis(s, await reanalysed(dir, s)), preflight: s.preflight ?? [] }
  // The recorded "why" explained the recorded verdict: under another verdict it would explain the wrong thing.
  if (summary.verdict !== s.verdict) delete summary.explanation
  return summary
}
