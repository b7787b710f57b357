/**
 * Start-up vs steady state: per workload and arm pair, the start-up phases in the order they happen,
 * with medians, their difference and ratio. Reported, never gated. Pure.
 */
import { jitCacheKey } from '../analyze/index.js'
import type { CheckSummary, Comparison } from '../types/index.js'
import { STARTUP_PHASES, type StartupPhase } from '../types/index.js'
import { armRank, pairKey } from './arms.js'
import { cell, code, fmtDelta, fmtOverheadCi, fmtP, fmtPctCi, fmtRatio, fmtValue, inline } from './format.js'
import { analysisNotes } from './notes.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'
import { gatingComparisons } from './verdict.js'
import { appendAll } from '../util/arrays.js'
import { first } from '../util/must.js'
import { own } from '../util/own.js'

/** Phase names as the runner records them (`launch_s`…), also accepted without `_s`. */
const PHASE_LABELS: Record<StartupPhase, string> = {
  launch: 'Container/process launch',
  interpreter: 'Interpreter start',
  imports: 'Imports',
  device_init: 'CUDA/device init',
  first_kernel: 'First kernel',
  prepare: 'Warm-up, capture, checks'
}
const TOTAL = 'total_startup'
const WALL = 'process_wall'
const TOTAL_LABELS: Record<string, string> = {
  [TOTAL]: '**Start-up total** (spawn → measuring)',
  [WALL]: '**Whole process** (spawn → exit)'
}

const SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1 }

/** `launch_s` → `launch`; names the runner does not know are kept as they are. */
function phaseName(metric: string): string {
  return metric.endsWith('_s') ? metric.slice(0, -2) : metric
}

function isPhase(name: string): name is StartupPhase {
  return (STARTUP_PHASES as readonly string[]).includes(name)
}

/** Phases in the order they happen, unknown start-up metrics next, then the two totals. */
function phaseRank(metric: string): number {
  const name = phaseName(metric)
  if (isPhase(name)) return STARTUP_PHASES.indexOf(name)
  if (name === TOTAL) return STARTUP_PHASES.length + 1
  if (name === WALL) return STARTUP_PHASES.length + 2
  return STARTUP_PHASES.length
}

/** A CPU check initialises no CUDA: its device_init phase is the device's own. */
function label(phase: StartupPhase, summary: CheckSummary): string {
  return phase === 'device_init' && summary.config.device === 'cpu' ? 'Device init' : PHASE_LABELS[phase]
}

function phaseLabel(metric: string, summary: CheckSummary): string {
  const name = phaseName(metric)
  return isPhase(name) ? label(name, summary) : (own(TOTAL_LABELS, name) ?? cell(metric))
}

/** candidate / baseline of the means: the same definition as the comparison's overhead. */
function meanRatio(base: number, cand: number): number | null {
  return base > 0 && Number.isFinite(cand) ? cand / base : null
}

function mean(values: number[]): number | null {
  const v = values.filter(Number.isFinite)
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null
}

/** Mean whole-process wall time of the runner's measured runs of a workload in one arm, seconds. */
function runnerWall(summary: CheckSummary, workload: string, env: string): number | null {
  return mean(
    summary.runs
      .filter(r => !r.warmup && r.status === 'ok' && r.workload === workload && r.environment === env)
      .map(r => (r.end_ms - r.start_ms) / 1000)
  )
}

/** Unadjusted p; none below two runs an arm, where no test is defined. */
function phaseP(c: Comparison): string {
  if (c.n_baseline < 2 || c.n_candidate < 2) return '–'
  return fmtP(c.p_gate ?? c.welch.p)
}

/** The steady-state figure to set start-up against: the worst regression of this pair, else its first metric. */
function steadyOf(summary: CheckSummary, workload: string, key: string): Comparison | undefined {
  const list = gatingComparisons(summary).filter(c => c.workload === workload && pairKey(c) === key)
  const regressions = list
    .filter(c => c.verdict === 'regression')
    .sort((a, b) => b.overhead_pct - a.overhead_pct)
  return regressions[0] ?? list[0]
}

interface Group {
  workload: string
  baseline: string
  candidate: string
  rows: Comparison[]
}

/** One group per (workload, arm pair), workloads in order of appearance, arms in declared order. */
function groups(summary: CheckSummary, startup: Comparison[]): Group[] {
  const workloads = [...new Set(startup.map(c => c.workload))]
  const rank = armRank(summary)
  const out: Group[] = []
  for (const workload of workloads) {
    const keys = new Map<string, Comparison[]>()
    for (const c of startup.filter(x => x.workload === workload))
      keys.set(pairKey(c), [...(keys.get(pairKey(c)) ?? []), c])
    const list = [...keys.values()].map(rows => ({
      workload,
      baseline: first(rows).baseline_env,
      candidate: first(rows).candidate_env,
      rows: [...rows].sort((a, b) => phaseRank(a.metric) - phaseRank(b.metric))
    }))
    list.sort((a, b) => rank(a.candidate) - rank(b.candidate) || rank(a.baseline) - rank(b.baseline))
    appendAll(out, list)
  }
  return out
}

function lead(summary: CheckSummary, g: Group, wall: { base: number; cand: number } | null): string {
  const parts: string[] = []
  if (wall)
    parts.push(
      `whole process ${fmtValue(wall.base, 's')} → ${fmtValue(wall.cand, 's')} (${fmtDelta(wall.cand - wall.base, 's')})`
    )
  // Only the phases themselves: the totals overlap them and each other.
  const phases = g.rows.filter(c => isPhase(phaseName(c.metric)))
  if (phases.length) {
    let added = 0
    for (const c of phases) added += (c.mean_candidate - c.mean_baseline) * (own(SECONDS, c.unit) ?? NaN)
    const seen = new Set(phases.map(c => phaseName(c.metric)))
    // `prepare` is newer than the other phases: results recorded before it lack it without anything missing.
    const missing = STARTUP_PHASES.filter(p => p !== 'prepare' && !seen.has(p)).map(p =>
      label(p, summary).toLowerCase()
    )
    const gap = missing.length ? ` (${missing.join(', ')} not compared)` : ''
    parts.push(`start-up phases ${fmtDelta(added, 's')}${gap}`)
  }
  const steady = steadyOf(summary, g.workload, pairKey(first(g.rows)))
  if (steady)
    parts.push(`steady state (${inline(steady.metric)}) ${fmtPctCi(steady.overhead_pct, steady.ci95)}`)
  const who = `**${inline(g.workload)}**, ${code(g.candidate)} vs ${code(g.baseline)}`
  return parts.length ? `${who}: ${parts.join('; ')}.` : `${who}:`
}

/** Long arm labels (`container:registry/image:tag`) would squeeze the table; the lead above names them. */
function armHead(label: string, generic: string): string {
  return label.length <= 20 ? cell(label) : generic
}

function groupBlock(summary: CheckSummary, g: Group): string {
  const rows: Table = [
    [
      'Phase',
      armHead(g.baseline, 'Baseline'),
      armHead(g.candidate, 'Candidate'),
      'Difference',
      'Relative',
      'p'
    ]
  ]
  for (const c of g.rows)
    rows.push([
      phaseLabel(c.metric, summary),
      fmtValue(c.mean_baseline, c.unit),
      fmtValue(c.mean_candidate, c.unit),
      fmtDelta(c.mean_candidate - c.mean_baseline, c.unit),
      fmtOverheadCi(c),
      phaseP(c)
    ])
  const measured = g.rows.find(c => phaseName(c.metric) === WALL)
  let wall: { base: number; cand: number } | null = null
  if (measured) {
    const scale = SECONDS[measured.unit] ?? 1
    wall = { base: measured.mean_baseline * scale, cand: measured.mean_candidate * scale }
  } else {
    // No per-process wall metric (older inputs): the runner's own timing of each process.
    const base = runnerWall(summary, g.workload, g.baseline)
    const cand = runnerWall(summary, g.workload, g.candidate)
    if (base !== null && cand !== null) {
      wall = { base, cand }
      rows.push([
        '**Whole process** (runner wall)',
        fmtValue(base, 's'),
        fmtValue(cand, 's'),
        fmtDelta(cand - base, 's'),
        fmtRatio(meanRatio(base, cand)),
        '–'
      ])
    }
  }
  return `${lead(summary, g, wall)}\n\n${table(rows, ['l', 'r', 'r', 'r', 'r', 'r'])}`
}

/**
 * What a fresh container pays that the check did not repeat: each container arm's first process compiled its
 * kernels into the CUDA JIT cache the check keeps for the arm (analyze/explain/jit-cache.ts), so the table above
 * holds one such start and the rest warm. Said here in full, with the fix.
 */
function jitCacheLines(summary: CheckSummary, workload: string): string {
  const found = (summary.explanation?.findings ?? []).filter(f => f.key === jitCacheKey(workload))
  return found.map(f => `- **${inline(f.label)}**: ${inline(f.meaning)}. Fix: ${inline(f.fix)}.`).join('\n')
}

export function startupSection(summary: CheckSummary): Section | null {
  const startup = summary.analysis?.comparisons.filter(c => c.scope === 'startup') ?? []
  if (!startup.length) return null
  const notes = analysisNotes(summary, 'startup')
  const body = [
    '## Start-up vs steady state',
    (summary.config.device === 'cpu'
      ? 'Start-up is paid once per process (container launch, interpreter, imports, device init, first kernel, ' +
        'then warm-up before the first measurement) and is reported, never gated: timing a whole process around ' +
        'a short computation measures start-up, not the work. '
      : 'Start-up is paid once per process (container launch, interpreter, imports, CUDA init, first kernel, then ' +
        'warm-up, graph capture and checks before the first measurement) and is ' +
        'reported, never gated: timing a whole process around a short kernel measures start-up, not GPU work. ') +
      'Means per arm. **Relative**: candidate mean / baseline mean − 1 with its 95% CI, the same overhead ' +
      '`gpu-overhead analyze` reports (a factor from 10× on; “–” without a positive baseline). ' +
      '**p**: Welch’s t-test, unadjusted. The start-up total runs from spawn to the first measurement, launch included.',
    // Each workload's JIT line right under its first table.
    ...groups(summary, startup).map((g, i, all) =>
      [
        groupBlock(summary, g),
        all.findIndex(x => x.workload === g.workload) === i ? jitCacheLines(summary, g.workload) : ''
      ]
        .filter(Boolean)
        .join('\n\n')
    ),
    notes.join('\n')
  ]
    .filter(Boolean)
    .join('\n\n')
  return { id: 'startup', kind: 'core', title: 'Start-up vs steady state', body }
}

/**
 * The one start-up line of the compact PR comment: the pair whose start-up total (else whole process) grew most,
 * as medians. Null when no start-up was compared.
 */
export function worstStartupLine(summary: CheckSummary): string | null {
  const startup = summary.analysis?.comparisons.filter(c => c.scope === 'startup') ?? []
  const pick = (metric: string): Comparison[] => startup.filter(c => phaseName(c.metric) === metric)
  const [rows, span] = pick(TOTAL).length ? [pick(TOTAL), 'spawn → measuring'] : [pick(WALL), 'whole process']
  const delta = (c: Comparison): number =>
    (c.median_candidate - c.median_baseline) * (own(SECONDS, c.unit) ?? NaN)
  const worst = rows.filter(c => Number.isFinite(delta(c))).sort((a, b) => delta(b) - delta(a))[0]
  if (!worst) return null
  const scale = SECONDS[worst.unit] ?? 1
  const medians = `${fmtValue(worst.median_baseline * scale, 's')} → ${fmtValue(worst.median_candidate * scale, 's')}`
  return (
    `Start-up (reported, not gated): worst ${code(worst.workload)} ${code(worst.candidate_env)} vs ` +
    `${code(worst.baseline_env)} ${fmtDelta(delta(worst), 's')} (${medians} median, ${span}).`
  )
}
