/**
 * Issue 51's "done when", as a library: render a check summary the ways a reader meets it (report.md / job
 * summary, PR comment, Check run text, annotations, the action's `comparisons` output, summary.json) and read the
 * rendered TEXT back, never the internal field:
 *
 *   1. every printed interval of an overhead lies above −100% (an end the data do not bound is in words);
 *   2. each comparison's interval is the same wherever it is printed (the JSON's `ci95`, its reason, and every
 *      markdown line that names its workload and metric), up to the digits printed;
 *   3. no verdict contradicts its rule: REGRESSION has the whole interval above +max, EQUIVALENT inside ±max,
 *      IMPROVEMENT below 0.
 *
 * scripts/check-report-consistency.ts runs it over docs/evidence and generated checks; the calibration lane runs
 * a fast version (test/analyze/report-consistency.test.ts).
 */
import { analyzeRecords, SequentialController } from '../../src/analyze/index.js'
import { checkVerdict } from '../../src/gate/index.js'
import { buildReport } from '../../src/report/index.js'
import { buildComment } from '../../src/report/comment-body.js'
import { annotations } from '../../src/report/check-run.js'
import { comparisonsOutput } from '../../src/report/github.js'
import { toJson } from '../../src/util/json-intervals.js'
import { seededRandom as rng } from '../../src/plan/schedule.js'
import type { Analysis, CheckSummary, Fingerprint, SampleRecord } from '../../src/types/index.js'

export interface Finding {
  check: string
  what: string
}

export interface Tally {
  checks: number
  comparisons: number
  printedIntervals: number
  unboundedEnds: number
  crossChecked: number
  verdicts: Record<string, number>
  findings: Finding[]
}

export const emptyTally = (): Tally => ({
  checks: 0,
  comparisons: 0,
  printedIntervals: 0,
  unboundedEnds: 0,
  crossChecked: 0,
  verdicts: {},
  findings: []
})

const MINUS = /\u2212/g
const NOT_BELOW = 'not bounded below'
const NOT_ABOVE = 'not bounded above'

/** One printed end: a number (percent), or ±Infinity for the words; null for anything else (a `?`). */
function readEnd(text: string, factor: boolean): number | null {
  const t = text.trim().replace(MINUS, '-').replace(/\\/g, '')
  if (t === NOT_BELOW) return -Infinity
  if (t === NOT_ABOVE) return Infinity
  const m = /^([+-]?[0-9][0-9,]*(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)(×)?$/.exec(t)
  if (m === null) return null
  const v = Number(m[1]!.replace(/,/g, ''))
  return factor || m[2] !== undefined ? (v - 1) * 100 : v
}

/** Decimals printed in an end (for the rounding tolerance). */
const decimalsOf = (text: string): number => /\.([0-9]+)/.exec(text)?.[1]?.length ?? 0

export interface PrintedInterval {
  low: number
  high: number
  /** Half a unit of the last printed digit of each end (in percent). */
  tol: { low: number; high: number }
  raw: string
}

/** Every `X% [a, b]` or `N× [a×, b×]` in a text, read back. */
export function printedIntervals(text: string): { found: PrintedInterval[]; bad: string[] } {
  const found: PrintedInterval[] = []
  const bad: string[] = []
  const re = /([+\-\u2212]?[0-9][0-9,.]*)(%|×)\s*\\?\[([^\]\n]{1,80})\\?\]/g
  for (const m of text.matchAll(re)) {
    const factor = m[2] === '×'
    // The ends are separated by a comma and a space; a thousands separator has none (`1,040×`).
    const parts = (m[3] ?? '').split(/,\s+/)
    if (parts.length !== 2) {
      bad.push(m[0])
      continue
    }
    const [a, b] = parts as [string, string]
    const low = readEnd(a, factor)
    const high = readEnd(b, factor)
    if (low === null || high === null) {
      bad.push(m[0])
      continue
    }
    const tolOf = (s: string, v: number): number => {
      if (!Number.isFinite(v)) return 0
      const half = 0.5 * 10 ** -decimalsOf(s)
      // A factor's 3 significant digits: half a unit of the last, in percent of the ratio.
      return factor ? Math.max(half, Math.abs(1 + v / 100) * 0.005) * 100 : half
    }
    found.push({ low, high, tol: { low: tolOf(a, low), high: tolOf(b, high) }, raw: m[0] })
  }
  return { found, bad }
}

const endsAgree = (printed: number, json: number, tol: number): boolean =>
  printed === json || Math.abs(printed - json) <= tol + 1e-9 * Math.max(1, Math.abs(json))

function agrees(p: PrintedInterval, ci: { low: number; high: number }): boolean {
  return endsAgree(p.low, ci.low, p.tol.low) && endsAgree(p.high, ci.high, p.tol.high)
}

interface JsonComparison {
  workload: string
  metric: string
  candidate_env: string
  scope: string
  verdict: string
  reason: string
  ci95: { low: number | string; high: number | string }
}

const jsonEnd = (v: number | string, side: 'low' | 'high'): number =>
  v === 'unbounded' ? (side === 'low' ? -Infinity : Infinity) : Number(v)

/** The rendered texts of a summary, as a reader meets them. */
export function renderAll(summary: CheckSummary): Record<string, string> {
  const links = { summaryUrl: 'https://example.invalid/summary', runUrl: null, artifactUrl: null }
  let comment = ''
  try {
    comment = buildComment(summary, links as never)
  } catch {
    comment = buildComment(summary, { summaryUrl: null, runUrl: null, artifactUrl: null } as never)
  }
  return {
    report: buildReport(summary, { maxChars: Infinity }),
    comment,
    annotations: annotations(summary, '.github/workflows/x.yml')
      .map(a => `${a.title}: ${a.message}`)
      .join('\n'),
    output: comparisonsOutput(summary),
    json: toJson(summary)
  }
}

/** Checks one summary's renderings; adds to the tally. */
export function checkSummary(name: string, summary: CheckSummary, tally: Tally): void {
  const texts = renderAll(summary)
  const max = summary.analysis?.max_overhead_pct ?? summary.config.max_overhead_pct
  tally.checks++
  const find = (what: string): void => void tally.findings.push({ check: name, what })
  // 1. Every printed interval above −100%, none unreadable.
  for (const [where, text] of Object.entries(texts)) {
    if (where === 'json' || where === 'output') continue
    const { found, bad } = printedIntervals(text)
    for (const b of bad) find(`${where}: an interval that is no pair of numbers or words: ${b}`)
    for (const p of found) {
      tally.printedIntervals++
      if (p.low === -Infinity) tally.unboundedEnds++
      if (p.high === Infinity) tally.unboundedEnds++
      if (!(p.low > -100)) {
        if (p.low !== -Infinity) find(`${where}: an end at or below −100%: ${p.raw}`)
      }
    }
    if (/\[\?|\?\]|Infinity|NaN%/.test(text)) find(`${where}: '?', 'Infinity' or 'NaN' printed`)
  }
  // JSON: parse the text; unbounded ends must be words, never null.
  const parsed = JSON.parse(texts.json!) as { analysis?: { comparisons: JsonComparison[] } | null }
  const output = JSON.parse(texts.output!) as {
    workload: string
    metric: string
    candidate: string
    ci95: JsonComparison['ci95']
  }[]
  const comparisons = parsed.analysis?.comparisons ?? []
  const md = `${texts.report}\n${texts.comment}\n${texts.annotations}`.split('\n')
  for (const c of comparisons) {
    tally.comparisons++
    tally.verdicts[c.verdict] = (tally.verdicts[c.verdict] ?? 0) + 1
    const label = `${c.workload}/${c.metric} (${c.candidate_env})`
    if (c.ci95.low === null || c.ci95.high === null) {
      find(`json: ${label} ci95 has null`)
      continue
    }
    const ci = { low: jsonEnd(c.ci95.low, 'low'), high: jsonEnd(c.ci95.high, 'high') }
    if (Number.isNaN(ci.low) || Number.isNaN(ci.high)) continue
    if (!(ci.low > -100) && ci.low !== -Infinity) find(`json: ${label} ci95.low ${ci.low} at or below −100%`)
    // 3. The verdict's rule, on the interval printed.
    if (c.verdict === 'regression' && !(ci.low > max)) find(`${label}: REGRESSION with ${ci.low} ≤ +${max}%`)
    if (c.verdict === 'equivalent' && !(ci.low >= -max && ci.high <= max))
      find(`${label}: EQUIVALENT with [${ci.low}, ${ci.high}] reaching past ±${max}%`)
    if (c.verdict === 'improvement' && !(ci.high < 0)) find(`${label}: IMPROVEMENT with ${ci.high} ≥ 0`)
    // 2. The same interval everywhere: the reason, the action output, every markdown line naming it.
    const same = comparisons.filter(o => o.workload === c.workload && o.metric === c.metric)
    const anyOf = (p: PrintedInterval): boolean =>
      same.some(o => agrees(p, { low: jsonEnd(o.ci95.low, 'low'), high: jsonEnd(o.ci95.high, 'high') }))
    const inReason = printedIntervals(c.reason).found
    if (inReason.length > 0) {
      tally.crossChecked++
      if (!agrees(inReason[0]!, ci))
        find(`${label}: reason ${inReason[0]!.raw} vs JSON [${ci.low}, ${ci.high}]`)
    }
    const out = output.find(
      o => o.workload === c.workload && o.metric === c.metric && o.candidate === c.candidate_env
    )
    if (out !== undefined && c.scope !== undefined) {
      const oc = { low: jsonEnd(out.ci95.low, 'low'), high: jsonEnd(out.ci95.high, 'high') }
      tally.crossChecked++
      if (!same.some(o => jsonEnd(o.ci95.low, 'low') === oc.low && jsonEnd(o.ci95.high, 'high') === oc.high))
        find(`${label}: action output [${oc.low}, ${oc.high}] is no interval of the summary`)
    }
    const wordRe = (s: string): RegExp =>
      new RegExp(`(^|[^A-Za-z0-9_])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_])`)
    const w = wordRe(c.workload)
    const m = wordRe(c.metric)
    for (const line of md) {
      if (!w.test(line) || !m.test(line)) continue
      // A line naming several metrics (a notes line) is checked only where it names this one alone.
      const others = comparisons.filter(o => o.metric !== c.metric && wordRe(o.metric).test(line))
      if (others.length > 0) continue
      for (const p of printedIntervals(line).found) {
        tally.crossChecked++
        if (!anyOf(p))
          find(`${label}: printed ${p.raw} vs JSON [${ci.low}, ${ci.high}] in: ${line.slice(0, 160)}`)
      }
    }
  }
}

// ---- Generated checks ----

function normal(r: () => number): number {
  const u = Math.max(r(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r())
}

export type Kind = 'fixed' | 'sequential' | 'noisy-cpu' | 'unbounded'
export const KINDS: readonly Kind[] = ['fixed', 'sequential', 'noisy-cpu', 'unbounded']

interface GenSpec {
  runs: number
  /** Per-process log-sd of each arm, and a per-block state both arms share. */
  sd: number
  candSd: number
  shared: number
  overheadPct: number
  iterations: number
}

function specFor(kind: Kind, r: () => number): GenSpec {
  const overheadPct = [0, 0, 1, 2, 3, 5, 10, 50][Math.floor(r() * 8)]!
  switch (kind) {
    case 'fixed':
      return {
        runs: 3 + Math.floor(r() * 10),
        sd: 0.002 + r() * 0.03,
        candSd: 0,
        shared: r() * 0.02,
        overheadPct,
        iterations: 5
      }
    case 'sequential':
      return { runs: 12, sd: 0.002 + r() * 0.02, candSd: 0, shared: r() * 0.01, overheadPct, iterations: 5 }
    case 'noisy-cpu':
      return {
        runs: 3 + Math.floor(r() * 4),
        sd: 0.2 + r() * 0.4,
        candSd: 0,
        shared: r() * 0.3,
        overheadPct,
        iterations: 3
      }
    case 'unbounded':
      // A candidate arm whose per-process means spread over orders of magnitude: Fieller's set reaches zero.
      return {
        runs: 3 + Math.floor(r() * 4),
        sd: 0.05,
        candSd: 1.5 + r() * 1.5,
        shared: 0,
        overheadPct,
        iterations: 1
      }
  }
}

const FP = { gpu_name: 'cpu', driver: 'none' } as unknown as Fingerprint

function samplesFor(spec: GenSpec, r: () => number, metric = 'kernel_ms'): SampleRecord[] {
  const out: SampleRecord[] = []
  for (let run = 1; run <= spec.runs; run++) {
    const state = spec.shared * normal(r)
    for (const env of ['native', 'container']) {
      const procSd = env === 'container' && spec.candSd > 0 ? spec.candSd : spec.sd
      const proc = procSd * normal(r)
      const level = 10 * (env === 'container' ? 1 + spec.overheadPct / 100 : 1) * Math.exp(state + proc)
      for (let it = 1; it <= spec.iterations; it++)
        out.push({
          check_id: 'generated',
          workload: 'matmul',
          environment: env,
          run,
          iteration: it,
          metric,
          value: level * Math.exp(0.002 * normal(r)),
          unit: 'ms',
          better: 'lower',
          scope: 'steady',
          time: new Date(Date.UTC(2026, 11, 6, 0, 0, run * 2 + (env === 'container' ? 1 : 0))).toISOString(),
          params: { device: 'cpu' },
          fingerprint: FP
        })
    }
  }
  return out
}

export const SETTINGS = { maxOverheadPct: 2, alpha: 0.05, minRuns: 3, maxRuns: 12 }

/** One generated check's analysis: fixed-count, or through the sequential rule look by look. */
export function generatedAnalysis(kind: Kind, seed: number): Analysis {
  const r = rng(seed * 7919 + KINDS.indexOf(kind))
  const spec = specFor(kind, r)
  const samples = samplesFor(spec, r)
  const opts = {
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    maxOverheadPct: SETTINGS.maxOverheadPct,
    alpha: SETTINGS.alpha,
    seed
  }
  if (kind !== 'sequential') return analyzeRecords(samples, opts)
  const controller = new SequentialController({
    ...SETTINGS,
    timeBudgetS: null,
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    gatedWorkloads: 1
  })
  let last = spec.runs
  for (let run = 1; run <= spec.runs; run++) {
    const upTo = samples.filter(s => s.run <= run)
    const stop = controller.afterBlock({
      workload: 'matmul',
      run,
      samples: upTo,
      elapsedMs: run * 1000,
      blockMs: 1000
    })
    if (stop !== null) {
      last = run
      break
    }
  }
  return controller.applyTo(
    analyzeRecords(
      samples.filter(s => s.run <= last),
      opts
    )
  )
}

/** A summary to render: the template's facts with this analysis and the verdict it gives. */
export function withAnalysis(template: CheckSummary, analysis: Analysis): CheckSummary {
  const verdict = checkVerdict(analysis, template.preflight, true)
  // The per-GPU analyses are the recorded ones (not re-analysed here): left out, so every interval rendered is
  // of this analysis.
  const { multi_gpu: _multiGpu, ...rest } = template
  return {
    ...rest,
    analysis,
    baseline: null,
    verdict,
    complete: true,
    overhead_pct: null,
    p_value: null
  } as CheckSummary
}
