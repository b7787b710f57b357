/**
 * Error rates and stop points of the sequential rule (src/analyze/sequential.ts), by simulation: a check
 * replayed thousands of times, pair by pair (A B / B A), looking after each pair from min-runs, stopping when
 * decided or at max-runs — exactly the loop the executor runs. Not a timed test.
 *
 * Per-run distributions: normal at CV 0.5%; Student-t (3 df, heavy tails) and a two-mode mixture (30% of
 * processes 10% slower, as the LLM decode modes on some H200s) at the same CV of the main mode; and the
 * per-run values recorded on GPU hosts in docs/evidence/ (each arm centred on its own mean, resampled), for
 * matmul kernel_ms, llm tpot_ms and llm ttft_ms (eager and CUDA-graph prefill apart), including the bimodal H200 run. Effects: A/A (0%), +3% (threshold 2%).
 * And the state-flip model of issue 28 (a shared multi-GPU host): every process runs ~10 s, the host flips between
 * two levels 5–12% apart (drawn per check) in blocks of 30–120 s shared by both arms, CV 0.5% on top.
 * And the state of 2026-11-27 (two levels 11% apart, flipping every few processes), with the processes of a
 * block one after the other and, last, taking turns request by request (execute/turns.ts): that row builds
 * per-request sample rows marked `interleave: 'turns'` and reads them as the check does (aggregateRows, then
 * blockRatios' per-process request means, then the sequential look).
 * The rule as the check runs it analyses adjacent A/B processes as blocks (the trimmed paired test); for
 * contrast, the same alpha spending on two unpaired samples (the analysis before issue 28), and a naive rule
 * that tests every look at the full fixed-n alpha.
 *
 * Run: npx tsx scripts/simulate-sequential.ts [trials=4000] [max-runs=the default, 16] [spending] [rows-filter] > docs/sequential-simulation.md
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import {
  POWER_RHO,
  sequentialLook,
  type SequentialOptions,
  type SequentialSeries,
  type SpendingFunction
} from '../src/analyze/sequential.js'
import { sequentialOptions } from '../src/analyze/sequential-check.js'
import { DEFAULTS } from '../src/config/index.js'
import { Inputs } from '../src/types/inputs.js'
import { blockRatios, MIN_BLOCKS, type BlockRatios } from '../src/analyze/compare/index.js'
import { aggregateRows, type RawRow } from '../src/results/run-values/index.js'
import { seededRandom } from '../src/plan/schedule.js'
import { evidencePath } from './lib/evidence-raw.js'

const TRIALS = Number(process.argv[2] ?? 4000)
const CV = 0.005
const THRESHOLD_PCT = 2
const EFFECTS = [0, 0.02, 0.03]
const BASE = 100

// The options a one-workload check runs with (sequential-check.ts); a spending function may be named instead.
const OPTS: SequentialOptions = {
  ...sequentialOptions({
    maxOverheadPct: THRESHOLD_PCT,
    alpha: 0.05,
    minRuns: 3,
    maxRuns: Number(process.argv[3] ?? DEFAULTS[Inputs.MaxRuns]),
    gatedWorkloads: 1
  }),
  ...(process.argv[4] === undefined ? {} : { spendingRegression: process.argv[4] as SpendingFunction })
}

type Draw = (rand: () => number) => number
/** One check's values: block i (0-based) gives [baseline, candidate] before the effect, in A B / B A order. */
type Blocks = (rand: () => number) => (i: number) => [number, number]

/** Independent per-process draws (no state shared within a block). */
const independent =
  (draw: Draw): Blocks =>
  rand =>
  () => [draw(rand), draw(rand)]

/** Seconds one process takes (an LLM process of the default check), and the host's state blocks. */
const PROCESS_S = 10
const FLIP_MIN_S = 30
const FLIP_MAX_S = 120

/**
 * Issue 28's shared host: two levels `gapLow`–`gapHigh` apart (drawn per check), switching after blocks of
 * 30–120 s that both arms share; each process takes the level at its midpoint, times CV 0.5% noise.
 */
function stateFlips(gapLow: number, gapHigh: number): Blocks {
  return rand => {
    const gap = gapLow + (gapHigh - gapLow) * rand()
    let slow = rand() < 0.5
    let t = 0
    let flip = FLIP_MIN_S + (FLIP_MAX_S - FLIP_MIN_S) * rand()
    const next = (): number => {
      const mid = t + PROCESS_S / 2
      while (mid >= flip) {
        slow = !slow
        flip += FLIP_MIN_S + (FLIP_MAX_S - FLIP_MIN_S) * rand()
      }
      t += PROCESS_S
      return BASE * (slow ? 1 + gap : 1) * (1 + CV * normal(rand))
    }
    return abba(next)
  }
}

/**
 * The state as measured with one neighbour on 2026-11-27's 4 x H100 host: each process is in one of two levels
 * 11% apart, and the next process keeps its predecessor's level with probability `stay` (36 of 54 adjacent
 * processes did, 2/3); both arms alike, CV 0.5% on top. Flips every few processes, not every 30–120 s.
 */
function processFlips(gap: number, stay: number): Blocks {
  return rand => {
    let slow = rand() < 0.5
    const next = (): number => {
      if (rand() >= stay) slow = !slow
      return BASE * (slow ? 1 + gap : 1) * (1 + CV * normal(rand))
    }
    return abba(next)
  }
}

/** Requests each process of a turns block measures (a default llm process: 6). */
const TURN_REQUESTS = 6

/**
 * One check's values where a block's two processes take turns: block i gives [baseline, candidate], each its
 * per-request values in iteration order, before the effect.
 */
type TurnBlocks = (rand: () => number) => (i: number) => [number[], number[]]

/**
 * processFlips' host with the block's processes taking turns request by request (A B B A A B …, the first
 * process of block i the baseline when i is even, as abba): the level is a chain over request steps, one
 * process slot of processFlips taking 2 × TURN_REQUESTS of them, so it changes with probability
 * 1 − stay^(1/12) per step and as often in time as there; CV 0.5% on every request.
 */
function requestFlips(gap: number, stay: number): TurnBlocks {
  const stayStep = stay ** (1 / (2 * TURN_REQUESTS))
  return rand => {
    let slow = rand() < 0.5
    const next = (): number => {
      if (rand() >= stayStep) slow = !slow
      return BASE * (slow ? 1 + gap : 1) * (1 + CV * normal(rand))
    }
    return i => {
      const first: number[] = []
      const second: number[] = []
      for (let round = 0; round < TURN_REQUESTS; round++) {
        const [x, y] = round % 2 === 0 ? [first, second] : [second, first]
        x.push(next())
        y.push(next())
      }
      return i % 2 === 0 ? [first, second] : [second, first]
    }
  }
}

/** A turns block's sample rows, one per request, as the runner records them. */
function turnRows(environment: string, run: number, values: readonly number[]): RawRow[] {
  return values.map((value, k) => ({
    workload: 'llm',
    environment,
    run,
    iteration: k + 1,
    metric: 'tpot_ms',
    value,
    unit: 'ms',
    better: 'lower',
    scope: 'steady',
    interleave: 'turns'
  }))
}

/** Block i from two processes in time order: the baseline first when i is even, the candidate first when odd. */
function abba(next: () => number): (i: number) => [number, number] {
  return i => {
    const first = next()
    const second = next()
    return i % 2 === 0 ? [first, second] : [second, first]
  }
}

function normal(rand: () => number): number {
  // Box–Muller on the seeded generator.
  const u = Math.max(rand(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand())
}

function studentT3(rand: () => number): number {
  // t_3 = Z / sqrt(χ²_3 / 3); its sd is sqrt(3).
  const chi = normal(rand) ** 2 + normal(rand) ** 2 + normal(rand) ** 2
  return normal(rand) / Math.sqrt(chi / 3)
}

const synthetic: Record<string, Draw> = {
  'normal, CV 0.5%': r => BASE * (1 + CV * normal(r)),
  'Student-t 3 df, sd 0.5%': r => BASE * (1 + (CV / Math.sqrt(3)) * studentT3(r)),
  'bimodal: 30% of runs +10%, CV 0.5%': r => BASE * (1 + CV * normal(r)) * (r() < 0.3 ? 1.1 : 1)
}

/** Per-run medians per (folder, workload, metric, environment, gpu), each arm centred on its mean (ratios). */
function recordedResiduals(
  metric: string,
  workload: string,
  keep: (file: string) => boolean = () => true
): { name: string; residuals: number[] }[] {
  const out: { name: string; residuals: number[] }[] = []
  // The raw folders are on the evidence-raw branch (scripts/lib/evidence-raw.ts).
  const root = evidencePath('docs/evidence')
  const files: string[] = []
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name === 'samples.csv.gz') files.push(p)
    }
  }
  walk(root)
  for (const file of files.sort().filter(keep)) {
    const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8')
    const [header, ...lines] = text.trim().split('\n')
    const cols = (header ?? '').split(',')
    const at = (n: string): number => cols.indexOf(n)
    const groups = new Map<string, Map<string, number[]>>()
    for (const l of lines) {
      const f = l.split(',')
      if (f[at('workload')] !== workload || f[at('metric')] !== metric) continue
      const key = `${f[at('environment')]} gpu${at('gpu') >= 0 ? (f[at('gpu')] ?? '') : ''}`
      const runs = groups.get(key) ?? new Map<string, number[]>()
      const run = f[at('run')] ?? ''
      runs.set(run, [...(runs.get(run) ?? []), Number(f[at('value')])])
      groups.set(key, runs)
    }
    for (const [key, runs] of groups) {
      const meds = [...runs.values()].map(v => {
        const s = [...v].sort((a, b) => a - b)
        const m = Math.floor(s.length / 2)
        return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
      })
      if (meds.length < 3) continue
      const mu = meds.reduce((a, b) => a + b, 0) / meds.length
      out.push({
        name: `${path.dirname(file).replace(`${root}/`, '')} ${key}`,
        residuals: meds.map(v => v / mu)
      })
    }
  }
  return out
}

function pooledDraw(sets: { residuals: number[] }[]): Draw {
  const all = sets.flatMap(s => s.residuals)
  return r => BASE * all[Math.floor(r() * all.length)]!
}

interface Outcome {
  regression: number
  equivalent: number
  undecided: number
  stopSum: number
}

type Rule = 'blocks' | 'two samples' | 'naive'

function simulate(blocks: Model, effect: number, opts: SequentialOptions, rule: Rule, seed: number): Outcome {
  const rand = seededRandom(seed)
  const naive = rule === 'naive'
  const o: Outcome = { regression: 0, equivalent: 0, undecided: 0, stopSum: 0 }
  const look = (b: number[], c: number[], n: number, given?: BlockRatios): string => {
    // As the check does (compare/pairs.ts): the blocks' request means from 3 blocks on.
    const all = given ?? { w: c, b, strata: b.map(() => '') }
    const blocks = rule !== 'two samples' && all.w.length >= MIN_BLOCKS ? all : undefined
    const series: SequentialSeries[] = [
      { metric: 'm', direction: 'lower', baseline: b, candidate: c, ...(blocks ? { blocks } : {}) }
    ]
    if (!naive) {
      const r = sequentialLook(series, opts)
      return r.decided ? r.metrics[0]!.state : 'undecided'
    }
    // Naive: every look at the full fixed-n levels (what looking without a correction does).
    const flat = sequentialLook(series, { ...opts, minRuns: n, maxRuns: n })
    // Both spending functions give α at t = 1: a one-look plan spends everything at this look.
    return flat.decided ? flat.metrics[0]!.state : 'undecided'
  }
  /** One check of per-process values: its last state and runs per arm. */
  const runsCheck = (block: (i: number) => [number, number]): [string, number] => {
    const b: number[] = []
    const c: number[] = []
    let state = 'undecided'
    let n = 0
    while (n < opts.maxRuns) {
      const [vb, vc] = block(n)
      b.push(vb)
      c.push(vc * (1 + effect))
      n++
      if (n >= opts.minRuns) {
        state = look(b, c, n)
        if (state !== 'undecided') break
      }
    }
    return [state, n]
  }
  /**
   * One check whose blocks took turns: per-request rows, read at each look as the check reads them
   * (SequentialController.look on one GPU: aggregateRows, blockRatios, sequentialLook).
   */
  const turnsCheck = (block: (i: number) => [number[], number[]]): [string, number] => {
    const rows: RawRow[] = []
    let state = 'undecided'
    let n = 0
    while (n < opts.maxRuns) {
      const [vb, vc] = block(n)
      n++
      const vcEffect = vc.map(v => v * (1 + effect))
      rows.push(...turnRows('baseline', n, vb), ...turnRows('candidate', n, vcEffect))
      if (n >= opts.minRuns) {
        const series = aggregateRows(rows).series()
        const b = series.find(x => x.environment === 'baseline')!
        const c = series.find(x => x.environment === 'candidate')!
        state = look(b.values, c.values, n, blockRatios(b, c, 'lower'))
        if (state !== 'undecided') break
      }
    }
    return [state, n]
  }
  for (let t = 0; t < TRIALS; t++) {
    const [state, n] = 'turns' in blocks ? turnsCheck(blocks.turns(rand)) : runsCheck(blocks(rand))
    o.stopSum += n
    if (state === 'regression') o.regression++
    else if (state === 'equivalent') o.equivalent++
    else o.undecided++
  }
  return o
}

function pct(k: number): string {
  return `${((100 * k) / TRIALS).toFixed(1)}%`
}

/** A row's model: per-process values (Blocks), or per-request values of blocks that took turns. */
type Model = Blocks | { turns: TurnBlocks }

const cases: { name: string; blocks: Model }[] = Object.entries(synthetic).map(([name, draw]) => ({
  name,
  blocks: independent(draw)
}))
cases.push(
  {
    name: 'state flips: 2 levels 5–12% apart, blocks of 30–120 s shared by both arms, 10 s per process, CV 0.5%',
    blocks: stateFlips(0.05, 0.12)
  },
  {
    name: 'state flips: 2 levels 11% apart (as measured in issue 28), same timing',
    blocks: stateFlips(0.11, 0.11)
  }
)
// TTFT changed with the CUDA-graph prefill (docs/evidence/2026-11-23-ttft-variance.md): its recordings are
// replayed apart, the graph prefill's (evidence folders named *graph-prefill*) and the eager prefill's before.
const graphPrefill = (file: string): boolean => file.includes('graph-prefill')
for (const [workload, metric, label, keep] of [
  ['matmul', 'kernel_ms', '', undefined],
  ['llm', 'tpot_ms', '', undefined],
  ['llm', 'ttft_ms', ', eager prefill', (f: string) => !graphPrefill(f)],
  ['llm', 'ttft_ms', ', CUDA-graph prefill', graphPrefill]
] as const) {
  const sets = recordedResiduals(metric, workload, keep)
  if (sets.length === 0) continue
  cases.push({
    name: `recorded ${workload} ${metric}${label} (${sets.length} arms pooled)`,
    blocks: independent(pooledDraw(sets))
  })
  const bimodal = sets.filter(s => Math.max(...s.residuals) / Math.min(...s.residuals) > 1.05)
  if (bimodal.length > 0)
    cases.push({
      name: `recorded ${workload} ${metric}, bimodal arms only (${bimodal.map(s => s.name).join('; ')})`,
      blocks: independent(pooledDraw(bimodal))
    })
}

// Last, so the rows above keep their seeds.
cases.push({
  name: 'state flips every few processes: 2 levels 11% apart, the next process keeps the level with p = 2/3 (2026-11-27)',
  blocks: processFlips(0.11, 2 / 3)
})
cases.push({
  name: 'state flips every few processes, turns (request by request): the same host and flip rate in time, 6 requests per process, CV 0.5% per request',
  blocks: { turns: requestFlips(0.11, 2 / 3) }
})

const lines: string[] = []
lines.push(`# Sequential rule: simulated error rates and stop points`)
lines.push('')
lines.push(
  `${TRIALS} simulated checks per row; threshold ±${THRESHOLD_PCT}%; looks after every pair from ${OPTS.minRuns} to ${OPTS.maxRuns} runs per arm; ` +
    `alpha spending: ${OPTS.spendingRegression === 'power' ? `power α·t^${POWER_RHO}` : OPTS.spendingRegression} (regression), ${OPTS.spendingEquivalence} (equivalence), α(regression) ${OPTS.alphaRegression} one-sided, α(equivalence) ${OPTS.alphaEquivalence}. ` +
    `"flagged" = regression verdict. Generated by \`npx tsx scripts/simulate-sequential.ts ${TRIALS} ${OPTS.maxRuns}\`.`
)
lines.push('')
lines.push(
  '| per-run distribution | rule | A/A false regression | A/A equivalent | A/A mean stop (runs/arm) | at +2% (threshold): false regression | at +2%: false equivalent | +3%: flagged | +3%: false equivalent | +3% mean stop |'
)
lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
const RULE_WORDS: Record<Rule, string> = {
  blocks: 'sequential, blocks (as the check runs)',
  'two samples': 'sequential, two samples (before issue 28)',
  naive: 'naive (full α every look), blocks'
}
const filter = process.argv[5] === undefined ? null : new RegExp(process.argv[5])
let seed = 1
for (const c of cases) {
  for (const rule of ['blocks', 'two samples', 'naive'] as const) {
    const seeds = EFFECTS.map(() => seed++)
    if (filter !== null && !filter.test(c.name)) continue
    const [aa, edge, plus] = EFFECTS.map((e, i) => simulate(c.blocks, e, OPTS, rule, seeds[i]!)) as [
      Outcome,
      Outcome,
      Outcome
    ]
    lines.push(
      `| ${c.name} | ${RULE_WORDS[rule]} | ${pct(aa.regression)} | ${pct(aa.equivalent)} | ${(aa.stopSum / TRIALS).toFixed(2)} | ${pct(edge.regression)} | ${pct(edge.equivalent)} | ${pct(plus.regression)} | ${pct(plus.equivalent)} | ${(plus.stopSum / TRIALS).toFixed(2)} |`
    )
    process.stderr.write(`${c.name} / ${rule} done\n`)
  }
}
process.stdout.write(lines.join('\n') + '\n')
