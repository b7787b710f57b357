/**
 * The sequential rule applied to a running check: after each completed block of a workload (every arm has
 * run once more), look at its gated metrics (per-run means, as the analysis uses them) and say whether to
 * stop that workload — decided, max-runs reached, or the time budget would be overrun by another block.
 * Afterwards it keeps the fixed-n analysis honest: a gated verdict stands only where the sequential rule
 * reached the same decision; anything else is inconclusive, so looking after every pair never buys a claim
 * the corrected levels did not allow. The executor receives `afterBlock` as an injected callback.
 */
import { pooledRows } from './multi-gpu.js'
import { must } from '../util/must.js'
import type { Analysis, Comparison, SampleRecord } from '../types/index.js'
import {
  blockRatios,
  commonUnit,
  metricDirection,
  MIN_BLOCKS,
  overallVerdict,
  redecide
} from './compare/index.js'
import { repeatedCi } from './repeated-ci.js'
import { aggregateRows } from '../results/index.js'
import { isTailMetric } from '../config/index.js'
import {
  describeUndecided,
  sequentialLook,
  type LookResult,
  type SequentialOptions,
  type SequentialSeries
} from './sequential.js'

/**
 * `ended`: the runs ended (a failure, a cancel, the end of the recorded data) before any stop rule applied.
 * `verdict-decided`: a gated metric (this workload's or an earlier one's) is a decided regression, so the
 * check fails whatever the rest shows; from the minimum on, more runs cannot change the verdict.
 * `futile`: from half of max-runs on (and two looks past the minimum), every undecided metric would need more than FUTILITY × max-runs runs
 * per arm (or no number of runs decides it): the rest of the budget would buy nothing.
 */
export type StopReason =
  'decided' | 'max-runs' | 'time-budget' | 'nothing-gated' | 'verdict-decided' | 'futile' | 'ended'

/** A workload stops for futility when its undecided metrics need more than this many times max-runs. */
export const FUTILITY = 3

export interface SequentialCheckConfig {
  minRuns: number
  maxRuns: number
  /** Seconds the measuring may take in all (null: no budget). */
  timeBudgetS: number | null
  maxOverheadPct: number
  alpha: number
  baselineEnv: string
  candidateEnvs: readonly string[]
  /** Workloads that have gated metrics: the regression budget is split between them (Bonferroni). */
  gatedWorkloads: number
}

export interface BlockDone {
  workload: string
  /** Runs per arm completed for this workload (1-based block number). */
  run: number
  /** Every non-warm-up sample of the check so far. */
  samples: readonly SampleRecord[]
  /** Since the first process of the check started. */
  elapsedMs: number
  /** Wall time of the block just finished (all arms). */
  blockMs: number
}

export interface WorkloadStop {
  workload: string
  runs_per_arm: number
  reason: StopReason
  /** Last look: one entry per (candidate arm, params, metric). */
  metrics: { candidate: string; key: string; state: string; runs_to_decide: number | null }[]
  undecided: string[]
}

/** How a stop's metrics name a comparison's series (the report finds a comparison's stop by it). */
export const seriesKey = (params: string, metric: string): string =>
  params === '' ? metric : `${metric} (${params})`

/**
 * Runs per arm of a workload with nothing gated by its samples (io's MB/s unless gate-io-throughput; its verdict
 * is the mount rule's): two give its informational comparison a spread, more would only lengthen the check.
 */
export const INFORMATIONAL_RUNS = 2

/** The sequential rule's options as a check runs it (scripts/simulate-sequential.ts simulates these). */
export function sequentialOptions(
  cfg: Pick<SequentialCheckConfig, 'maxOverheadPct' | 'alpha' | 'minRuns' | 'maxRuns' | 'gatedWorkloads'>
): SequentialOptions {
  return {
    maxOverheadPct: cfg.maxOverheadPct,
    // One-sided regression budget, like the fixed-n rule's 95% CI lower end; split between workloads.
    alphaRegression: cfg.alpha / 2 / Math.max(1, cfg.gatedWorkloads),
    alphaEquivalence: cfg.alpha,
    minRuns: cfg.minRuns,
    maxRuns: cfg.maxRuns,
    // Most of it for the last looks, where a regression near the threshold is decided (POWER_RHO, issue 28).
    spendingRegression: 'power',
    spendingEquivalence: 'pocock'
  }
}

export class SequentialController {
  private readonly stops = new Map<string, WorkloadStop>()
  private readonly opts: SequentialOptions

  constructor(private readonly cfg: SequentialCheckConfig) {
    this.opts = sequentialOptions(cfg)
  }

  /** The looks of one workload now: one LookResult per candidate arm. */
  look(workload: string, samples: readonly SampleRecord[]): { candidate: string; look: LookResult }[] {
    // Each GPU a block (multi-gpu.ts), as the final analysis pools them: in a duet the two processes of a
    // block ran on two GPUs, so the GPUs' own offsets must go before the blocks' ratios are read.
    const series = aggregateRows(
      pooledRows(samples.filter(s => s.workload === workload && s.scope === 'steady'))
    ).series()
    const out: { candidate: string; look: LookResult }[] = []
    for (const candidate of this.cfg.candidateEnvs) {
      const pairs: SequentialSeries[] = []
      for (const b of series) {
        if (b.environment !== this.cfg.baselineEnv) continue
        const c = series.find(
          s => s.environment === candidate && s.metric === b.metric && s.params === b.params
        )
        if (c === undefined) continue
        const direction = metricDirection({ ...b, unit: commonUnit(b, c) }, c).direction
        const blocks = blockRatios(b, c, direction)
        pairs.push({
          metric: seriesKey(b.params, b.metric),
          direction,
          baseline: b.values,
          candidate: c.values,
          ...(isTailMetric(b.workload, b.metric) ? { tail: true } : {}),
          // Blocks decide where the arms ran interleaved (as every check's schedule does).
          ...(blocks.d.length >= MIN_BLOCKS ? { blocks } : {})
        })
      }
      if (pairs.length > 0) out.push({ candidate, look: sequentialLook(pairs, this.opts) })
    }
    return out
  }

  /** Called by the executor after each block; a reason stops the workload, null goes on. */
  afterBlock(done: BlockDone): StopReason | null {
    const looks = this.look(done.workload, done.samples)
    let reason: StopReason | null = null
    if (looks.length === 0)
      reason = done.run >= Math.min(this.cfg.minRuns, INFORMATIONAL_RUNS) ? 'nothing-gated' : null
    else if (looks.every(l => l.look.decided)) reason = 'decided'
    else if (done.run >= this.cfg.maxRuns) reason = 'max-runs'
    else if (done.run >= this.cfg.minRuns && this.regressionDecided(done.workload, looks))
      reason = 'verdict-decided'
    else if (this.futile(done.run, looks)) reason = 'futile'
    else if (
      this.cfg.timeBudgetS !== null &&
      done.run >= this.cfg.minRuns &&
      done.elapsedMs + done.blockMs > this.cfg.timeBudgetS * 1000
    )
      reason = 'time-budget'
    this.record(done.workload, done.run, reason ?? 'ended', looks)
    return reason
  }

  /**
   * Futility: looked at from half the budget on, and never before two looks past the minimum (early spreads
   * are too rough to give up on), every undecided metric needs far more runs than max-runs allows. Stopping
   * looks less often, so it adds no false claim.
   */
  private futile(run: number, looks: { look: LookResult }[]): boolean {
    if (run < Math.max(this.cfg.minRuns + 2, Math.ceil(this.cfg.maxRuns / 2))) return false
    const open = looks.flatMap(l => l.look.metrics.filter(m => m.state === 'undecided'))
    return (
      open.length > 0 &&
      open.every(m => m.runsToDecide === null || m.runsToDecide > FUTILITY * this.cfg.maxRuns)
    )
  }

  /** A decided regression in any gated metric so far: this workload's last look or an earlier workload's stop. */
  private regressionDecided(workload: string, looks: { look: LookResult }[]): boolean {
    if (looks.some(l => l.look.metrics.some(m => m.state === 'regression'))) return true
    return [...this.stops.values()].some(
      s => s.workload !== workload && s.metrics.some(m => m.state === 'regression')
    )
  }

  private record(
    workload: string,
    run: number,
    reason: StopReason,
    looks: { candidate: string; look: LookResult }[]
  ): void {
    this.stops.set(workload, {
      workload,
      runs_per_arm: run,
      reason,
      metrics: looks.flatMap(({ candidate, look }) =>
        look.metrics.map(m => ({ candidate, key: m.metric, state: m.state, runs_to_decide: m.runsToDecide }))
      ),
      undecided: looks.flatMap(({ candidate, look }) =>
        describeUndecided(look).map(line => (looks.length > 1 ? `${candidate}: ${line}` : line))
      )
    })
  }

  /** Where each workload stopped and why, in the order they ran. */
  summary(): WorkloadStop[] {
    return [...this.stops.values()]
  }

  /**
   * The comparison with the interval that holds after the stop (repeated-ci.ts), its verdict and reason decided
   * again on it, so the verdict rests on the interval printed beside it and the reason quotes that one (a
   * REGRESSION read +145% [−1, +327] with a reason of [+58.68, +246.54], issue 51). The fixed-n interval is kept
   * in the JSON for reference only, under a name that says so. Unchanged where no repeated interval exists (no
   * spread, a look outside the plan).
   */
  private afterStop(c: Comparison): Comparison {
    const stop = must(
      this.stops.get(c.workload),
      `afterStop runs only for a workload that stopped (${c.workload})`
    )
    const n = c.paired?.blocks ?? Math.min(c.n_baseline, c.n_candidate, stop.runs_per_arm)
    const r = repeatedCi(c, n, this.cfg.alpha, this.opts)
    if (r === null) return c
    const decided = redecide(
      { ...c, ci95: r.ci },
      { alpha: this.cfg.alpha, maxOverheadPct: this.cfg.maxOverheadPct }
    )
    return { ...decided, ci95_fixed_n_for_reference: c.ci95 }
  }

  /**
   * The analysis with every gated verdict that the sequential rule did not reach turned inconclusive, and one
   * note per workload saying where it stopped and what stays undecided.
   */
  applyTo(analysis: Analysis): Analysis {
    const state = new Map<string, string>()
    for (const s of this.stops.values())
      for (const m of s.metrics) state.set(`${s.workload}\u0000${m.candidate}\u0000${m.key}`, m.state)
    const comparisons = analysis.comparisons.map((measured): Comparison => {
      if (measured.scope !== 'steady' || !this.stops.has(measured.workload)) return measured
      const c = this.afterStop(measured)
      if (!SEQUENTIAL_VERDICTS.has(c.verdict)) return c
      const key = seriesKey(c.params ?? '', c.metric)
      const seq = state.get(`${c.workload}\u0000${c.candidate_env}\u0000${key}`)
      if (seq === c.verdict) return c
      return {
        ...c,
        verdict: 'inconclusive',
        reason: `${c.reason} Not decided by the sequential rule at its last look (alpha spent over the looks), so: inconclusive.`
      }
    })
    const notes = [...(analysis.notes ?? [])]
    for (const s of this.stops.values()) notes.push(stopNote(s))
    return { ...analysis, comparisons, verdict: overallVerdict(comparisons), notes }
  }
}

/**
 * The fixed-n verdicts that the sequential rule also reaches (its states but undecided): after a stop each stands
 * only where the rule's last look agrees. An improvement too: left to the fixed-n test after 12 looks, a CPU A/A
 * check read PASS at −66.2% beside a repeated interval of [−94.6, +20.7].
 */
const SEQUENTIAL_VERDICTS = new Set<Comparison['verdict']>(['equivalent', 'regression', 'improvement'])

const WHY: Record<StopReason, string> = {
  decided: 'every gated metric decided',
  'max-runs': 'max-runs reached',
  'time-budget': 'another pair would overrun time-budget',
  // io by default (its MB/s inform; its verdict is the mount rule's): `runs` is the first look of gated metrics, so
  // such a workload stops at INFORMATIONAL_RUNS whatever `runs` asks, and the report says so (issue 55).
  'nothing-gated': `no gated metric: ${INFORMATIONAL_RUNS} runs per arm inform, whatever runs asks; gate-io-throughput: true gates io's MB/s`,
  'verdict-decided':
    'a gated metric is already a decided regression, so more runs could not change the verdict',
  futile: `futility: the runs needed far exceed max-runs (over ${FUTILITY}×), so the rest of the budget could not decide it`,
  ended: 'the runs ended before a stop rule applied'
}

export function stopNote(s: WorkloadStop): string {
  const tail = s.undecided.length > 0 ? `; still undecided: ${s.undecided.join('; ')}` : ''
  return (
    `Sequential stop: ${s.workload} stopped after ${s.runs_per_arm} run(s) per arm (${WHY[s.reason]})${tail}. ` +
    'Its gated intervals are repeated 95% intervals, which hold after a stop chosen by looking (the fixed-n ' +
    'interval there is nominal: ci95_fixed_n_for_reference in the JSON).'
  )
}
