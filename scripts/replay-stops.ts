/**
 * Where each recorded GPU check would have stopped, and how long it would have taken, had its llm processes not
 * measured the slow first request that 0261b30 removed (issue 38): no GPU needed.
 *
 * Each check folder's samples go through the check's own SequentialController, look by look, in the steps the
 * check ran (processes that started together, from runs.jsonl), with the llm's first measured request of every
 * process left out (--keep-first keeps it, which must reproduce the check's own stops). A workload's steps after
 * its replayed stop are wall time the check would not have spent: the replayed wall is the check's recorded wall
 * (exits.txt) less those steps. The verdict at the stop is the check's analysis of the samples up to it.
 *
 * Run: npx tsx scripts/replay-stops.ts [--keep-first] [ROOT ...]   (default: docs/evidence/2026-11-27-layouts-10)
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { parse } from 'csv-parse/sync'
import { SequentialController } from '../src/analyze/sequential-check.js'
import type { Fingerprint, SampleRecord } from '../src/types/index.js'
import { localEvidence } from './lib/evidence-raw.js'

const args = process.argv.slice(2)
const KEEP_FIRST = args.includes('--keep-first')
const roots = args.filter(a => !a.startsWith('--'))
const ROOTS = roots.length > 0 ? roots : ['docs/evidence/2026-11-27-layouts-10']
// The settings the recorded checks ran with (the action's defaults then; max-runs is 16 since): runs 3, max-runs 12,
// max-overhead 2%, alpha 0.05; matmul and llm gated. --keep-first must reproduce their stops, so these stay.
const DEFAULTS = { minRuns: 3, maxRuns: 12, maxOverheadPct: 2, alpha: 0.05, gatedWorkloads: 2 }

interface Proc {
  workload: string
  environment: string
  run: number
  start_ms: number
  end_ms: number
}

/** Check folders (…-same, …-cotenant) with the wall and verdicts their exits.txt line records. */
function checks(root: string): { dir: string; wallS: number; line: string }[] {
  const out: { dir: string; wallS: number; line: string }[] = []
  const walk = (dir: string): void => {
    const entries = fs.readdirSync(dir, { withFileTypes: true })
    const exits = path.join(dir, 'exits.txt')
    const lines = fs.existsSync(exits) ? fs.readFileSync(exits, 'utf8').split('\n') : []
    for (const e of entries) {
      const p = path.join(dir, e.name)
      if (!e.isDirectory()) continue
      const line = lines.find(l => l.startsWith(`${e.name}:`))
      const wall = /wall_s=([\d.]+)/.exec(line ?? '')?.[1]
      if (fs.existsSync(path.join(p, 'samples.csv.gz')) && wall !== undefined && !/noturns/.test(p))
        out.push({ dir: p, wallS: Number(wall), line: line ?? '' })
      else walk(p)
    }
  }
  // The raw folders are on the evidence-raw branch (scripts/lib/evidence-raw.ts).
  walk(localEvidence(root))
  return out.sort((a, b) => a.dir.localeCompare(b.dir))
}

function samplesOf(dir: string): SampleRecord[] {
  const rows = parse(zlib.gunzipSync(fs.readFileSync(path.join(dir, 'samples.csv.gz'))), {
    columns: true
  }) as Record<string, string>[]
  return rows
    .filter(
      r => KEEP_FIRST || !(r['workload'] === 'llm' && r['scope'] === 'steady' && r['iteration'] === '1')
    )
    .map(r => ({
      check_id: 'replay',
      workload: r['workload']!,
      environment: r['environment']!,
      run: Number(r['run']),
      iteration: Number(r['iteration']),
      metric: r['metric']!,
      value: Number(r['value']),
      unit: r['unit']!,
      better: r['better'] === 'higher' ? 'higher' : 'lower',
      scope: r['scope'] as SampleRecord['scope'],
      time: r['time']!,
      params: JSON.parse(r['params'] ?? '{}') as Record<string, unknown>,
      fingerprint: {} as Fingerprint,
      ...(r['gpu'] ? { gpu: Number(r['gpu']) } : {}),
      ...(r['interleave'] === 'turns' ? { interleave: 'turns' as const } : {})
    }))
}

/** The steps a workload ran: its processes grouped by start (a step's processes start together). */
function stepsOf(procs: readonly Proc[], workload: string): Proc[][] {
  const mine = procs.filter(p => p.workload === workload).sort((a, b) => a.start_ms - b.start_ms)
  const steps: Proc[][] = []
  for (const p of mine) {
    const last = steps[steps.length - 1]
    // Prestart and turns start a step's processes within a few ms of each other; steps are seconds apart.
    if (last !== undefined && p.start_ms - last[0]!.start_ms < 500) last.push(p)
    else steps.push([p])
  }
  return steps
}

const rows: string[] = []
for (const root of ROOTS)
  for (const c of checks(root)) {
    const samples = samplesOf(c.dir)
    const procs = fs
      .readFileSync(path.join(c.dir, 'runs.jsonl'), 'utf8')
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(l => JSON.parse(l) as Proc & { warmup?: boolean })
      .filter(p => p.warmup !== true)
    const controller = new SequentialController({
      ...DEFAULTS,
      timeBudgetS: null,
      baselineEnv: 'native',
      candidateEnvs: ['container']
    })
    const t0 = Math.min(...procs.map(p => p.start_ms))
    let savedMs = 0
    const stops: string[] = []
    const recorded: string[] = []
    for (const workload of ['matmul', 'llm']) {
      const steps = stepsOf(procs, workload)
      if (steps.length === 0) continue
      recorded.push(`${workload} ${Math.max(...steps.flat().map(p => p.run))}`)
      let stopAt = steps.length
      let reason = 'ran out of recorded steps'
      for (let s = 0; s < steps.length; s++) {
        const run = Math.max(
          ...steps
            .slice(0, s + 1)
            .flat()
            .map(p => p.run)
        )
        const upTo = samples.filter(x => x.workload !== workload || x.run <= run)
        const end = Math.max(...steps[s]!.map(p => p.end_ms))
        const r = controller.afterBlock({
          workload,
          run,
          samples: upTo.filter(x => x.workload === workload || x.workload === 'matmul'),
          elapsedMs: end - t0,
          blockMs: end - Math.min(...steps[s]!.map(p => p.start_ms))
        })
        if (r !== null) {
          stopAt = s + 1
          reason = r
          break
        }
      }
      // What the steps after the stop took, each from the end of the one before it.
      for (let s = stopAt; s < steps.length; s++)
        savedMs += Math.max(...steps[s]!.map(p => p.end_ms)) - Math.max(...steps[s - 1]!.map(p => p.end_ms))
      const stop = controller.summary().find(x => x.workload === workload)
      const tpot = stop?.metrics.find(m => /tpot/.test(m.key))
      stops.push(
        `${workload} ${Math.max(
          ...steps
            .slice(0, stopAt)
            .flat()
            .map(p => p.run)
        )} (${reason}${tpot ? `; TPOT ${tpot.state}` : ''})`
      )
    }
    const name = path.relative(process.cwd(), c.dir)
    const verdict = /exit=\d+ wall_s=[\d.]+ (\w+)/.exec(c.line)?.[1] ?? '?'
    rows.push(
      `| ${name} | ${verdict} | ${recorded.join(', ')} | ${c.wallS.toFixed(1)} | ${stops.join(', ')} | ${(c.wallS - savedMs / 1000).toFixed(1)} |`
    )
  }
process.stdout.write(
  [
    `Replayed stops (${KEEP_FIRST ? 'first requests kept: the check as recorded' : "the llm's first requests left out"}), the recorded checks' settings: runs 3, max-runs 12, max-overhead 2%:`,
    '',
    '| check | verdict recorded | runs per arm recorded | wall s recorded | replayed stop (runs per arm) | wall s replayed |',
    '| :-- | :-- | :-- | --: | :-- | --: |',
    ...rows,
    ''
  ].join('\n')
)
