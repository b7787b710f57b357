/**
 * Coverage and error rates of the check's analysis on recorded GPU samples (issue 38): no generator, the blocks
 * the action measured on 2 and 4 x H100 with an image that differs in nothing from native.
 *
 * Each replayed check draws `n` blocks (a native and a container process that took turns on one GPU) with
 * replacement from one layout's recorded blocks, keeping each block's GPU as its stratum; swaps the two arms'
 * labels inside each block at random (the image differs in nothing, so the arms are exchangeable: the true
 * overhead is 0); multiplies the container's values by 1 + δ (the true overhead is then δ); and runs the
 * analysis the check runs (analyzeRecords: ratio of request means, Fieller, GPU strata). Counts how often the
 * printed interval covers δ, and the verdicts at δ = 0 and at the threshold.
 *
 * The llm's first measured request of each process is left out (--keep-first keeps it): the samples were
 * recorded before 0261b30, whose first round of turns removed the slow first request of the process that was
 * ready last (docs/evidence/2026-11-27-layouts-10.md).
 *
 * Run: npx tsx scripts/replay-layouts.ts [--replays 400] [--keep-first] [--only WORKLOAD] [ROOT ...]
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { parse } from 'csv-parse/sync'
import { analyzeRecords } from '../src/analyze/index.js'
import type { RawRow } from '../src/results/index.js'
import { seededRandom } from '../src/plan/schedule.js'
import { localEvidence } from './lib/evidence-raw.js'

const METRICS = new Set(['matmul/kernel_ms', 'llm/ttft_ms', 'llm/tpot_ms'])
const args = process.argv.slice(2)
const flag = (name: string): boolean => args.includes(name)
const value = (name: string, d: number): number => {
  const i = args.indexOf(name)
  return i >= 0 ? Number(args[i + 1]) : d
}
const REPLAYS = value('--replays', 400)
const KEEP_FIRST = flag('--keep-first')
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined
const roots = args.filter(
  (a, i) => !a.startsWith('--') && !['--replays', '--only'].includes(args[i - 1] ?? '')
)
const ROOTS =
  roots.length > 0 ? roots : ['docs/evidence/2026-11-27-layouts', 'docs/evidence/2026-11-27-layouts-10']

interface Block {
  gpu: number
  native: RawRow[]
  container: RawRow[]
}

/** Every samples.csv.gz of a same-image check under `root`, with its layout (GPUs in the check). */
function checks(root: string): { layout: string; file: string }[] {
  const out: { layout: string; file: string }[] = []
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name === 'samples.csv.gz' && /-same$/.test(path.basename(dir)) && !/noturns/.test(p)) {
        const gpus = /-g(\d+)-same$/.exec(path.basename(dir))?.[1]?.length ?? 0
        out.push({ layout: `${gpus} GPUs`, file: p })
      }
    }
  }
  // The raw folders are on the evidence-raw branch (scripts/lib/evidence-raw.ts).
  walk(localEvidence(root))
  return out
}

/** One recorded check's blocks: run k of each arm. */
function blocksOf(file: string): Block[] {
  const rows = parse(zlib.gunzipSync(fs.readFileSync(file)), { columns: true }) as Record<string, string>[]
  const byBlock = new Map<string, Block>()
  for (const r of rows) {
    if (r['scope'] !== 'steady' || !METRICS.has(`${r['workload']}/${r['metric']}`)) continue
    const iteration = Number(r['iteration'])
    if (r['workload'] === 'llm' && iteration === 1 && !KEEP_FIRST) continue
    const env = r['environment'] as 'native' | 'container'
    const gpu = Number(r['gpu'])
    // The llm takes turns: a block's two processes share one GPU. matmul runs as a duet: a block is run k of
    // each arm, each on its own GPU at the same time.
    const key = `${r['workload']}\u0000${r['run']}${r['interleave'] === 'turns' ? `\u0000${gpu}` : ''}`
    const b = byBlock.get(key) ?? { gpu, native: [], container: [] }
    byBlock.set(key, b)
    b[env].push({
      workload: r['workload']!,
      environment: env,
      run: 0,
      metric: r['metric']!,
      value: Number(r['value']),
      iteration,
      unit: r['unit']!,
      better: r['better']!,
      scope: 'steady',
      params: r['params']!,
      interleave: r['interleave'] ?? '',
      gpu
    })
  }
  return [...byBlock.values()].filter(b => b.native.length > 0 && b.container.length > 0)
}

/**
 * One replayed check of `n` blocks. Turn-taking blocks (both processes on one GPU): the arms' labels swapped at
 * random. Duet blocks (each arm on its own GPU): oriented as the schedule runs them, the GPU pairs in turn and
 * the arms' GPUs swapped every round (0>1, 2>3, 1>0, 3>2 on 4 GPUs), so each stratum gets its share as in a check.
 */
function replay(pool: readonly Block[], n: number, delta: number, rand: () => number): RawRow[] {
  const rows: RawRow[] = []
  const gpuOf = (b: Block, arm: 'native' | 'container'): number => b[arm][0]!.gpu ?? -1
  const pairs = [
    ...new Set(pool.filter(b => gpuOf(b, 'native') !== gpuOf(b, 'container')).map(pairOf))
  ].sort()
  // A 2-GPU check runs on one pair: each replayed check draws its pair.
  const checkPairs =
    pairs.length > 0 && pool === twoGpuPool ? [pairs[Math.floor(rand() * pairs.length)]!] : pairs
  for (let k = 1; k <= n; k++) {
    let b: Block
    let swap: boolean
    if (checkPairs.length === 0) {
      b = pool[Math.floor(rand() * pool.length)]!
      swap = rand() < 0.5
    } else {
      const pair = checkPairs[(k - 1) % checkPairs.length]!
      const round = Math.floor((k - 1) / checkPairs.length)
      const native = Number(pair.split(',')[round % 2])
      const same = pool.filter(x => pairOf(x) === pair)
      b = same[Math.floor(rand() * same.length)]!
      swap = gpuOf(b, 'native') !== native
    }
    for (const [from, to] of [
      ['native', swap ? 'container' : 'native'],
      ['container', swap ? 'native' : 'container']
    ] as const)
      for (const r of b[from])
        rows.push({
          ...r,
          environment: to,
          run: k,
          value: to === 'container' ? r.value * (1 + delta) : r.value
        })
  }
  return rows
}

/** The block's two GPUs, lower first. */
function pairOf(b: Block): string {
  const g = [b.native[0]!.gpu ?? -1, b.container[0]!.gpu ?? -1].sort((x, y) => x - y)
  return g.join(',')
}
let twoGpuPool: readonly Block[] = []

const byLayout = new Map<string, Map<string, Block[]>>()
for (const root of ROOTS)
  for (const c of checks(root)) {
    const pools = byLayout.get(c.layout) ?? new Map<string, Block[]>()
    byLayout.set(c.layout, pools)
    for (const b of blocksOf(c.file)) {
      const w = b.native[0]!.workload
      pools.set(w, [...(pools.get(w) ?? []), b])
    }
  }

console.log(
  `Replayed checks per row: ${REPLAYS}; threshold 2%, alpha 0.05; llm first requests ${KEEP_FIRST ? 'kept' : 'left out'}.\n`
)
console.log(
  '| layout | workload | recorded blocks | blocks per check | true overhead | metric | covers | equivalent | regression |'
)
console.log('| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |')
for (const [layout, pools] of [...byLayout].sort())
  for (const [workload, pool] of [...pools].sort().filter(([w]) => ONLY === undefined || w === ONLY))
    for (const n of [3, 6, 12])
      for (const delta of [0, 0.02]) {
        const rand = seededRandom(n * 1000 + Math.round(delta * 1e4))
        twoGpuPool = layout === '2 GPUs' ? pool : []
        const tally = new Map<string, { covers: number; eq: number; reg: number; all: number }>()
        for (let i = 0; i < REPLAYS; i++) {
          const analysis = analyzeRecords(replay(pool, n, delta, rand), {
            baselineEnv: 'native',
            candidateEnvs: ['container'],
            maxOverheadPct: 2,
            alpha: 0.05,
            seed: i
          })
          for (const c of analysis.comparisons) {
            if (c.scope !== 'steady' || c.overhead_pct === null || !c.ci95) continue
            const t = tally.get(c.metric) ?? { covers: 0, eq: 0, reg: 0, all: 0 }
            tally.set(c.metric, t)
            const truth = delta * 100
            t.all++
            if (c.ci95.low <= truth && truth <= c.ci95.high) t.covers++
            if (c.verdict === 'equivalent') t.eq++
            if (c.verdict === 'regression') t.reg++
          }
        }
        const pct = (x: number, all: number): string => `${((100 * x) / Math.max(1, all)).toFixed(1)}%`
        for (const [metric, t] of [...tally].sort())
          console.log(
            `| ${layout} | ${workload} | ${pool.length} | ${n} | +${(delta * 100).toFixed(0)}% | ${metric} | ${pct(t.covers, t.all)} | ${pct(t.eq, t.all)} | ${pct(t.reg, t.all)} |`
          )
      }
