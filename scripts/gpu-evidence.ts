/**
 * Figures for docs/evidence/2026-11-22-h200.md from the recorded GPU-host results (no GPU needed):
 * A/A false-alarm rate by resampling, telemetry sampler overhead, the start-up split, sensitivity re-analysis.
 * Run: npx tsx scripts/gpu-evidence.ts docs/evidence/2026-11-22-h200
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { analyzeRecords } from '../src/analyze/compare/index.js'
import type { RawRow } from '../src/results/run-values/index.js'
import { seededRandom } from '../src/plan/schedule.js'
import { localEvidence } from './lib/evidence-raw.js'

// The raw folders are on the evidence-raw branch (scripts/lib/evidence-raw.ts).
const dir = localEvidence(process.argv[2] ?? 'docs/evidence/2026-11-22-h200')
type Row = {
  check: string
  workload: string
  environment: string
  run: number
  metric: string
  value: number
  scope: string
}

function load(check: string): Row[] {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(dir, check, 'samples.csv.gz'))).toString('utf8')
  const [header, ...lines] = text.trim().split('\n')
  const cols = (header ?? '').split(',')
  const at = (name: string): number => cols.indexOf(name)
  return lines.map(l => {
    const f = l.split(',')
    return {
      check,
      workload: f[at('workload')] ?? '',
      environment: f[at('environment')] ?? '',
      run: Number(f[at('run')]),
      metric: f[at('metric')] ?? '',
      value: Number(f[at('value')]),
      scope: f[at('scope')] ?? ''
    }
  })
}

const checks = [
  'default-check-1',
  'default-check-2',
  'aa-calibration',
  'sensitivity-cotenant-20ms',
  'sensitivity-cotenant-sweep'
]
const all = checks.flatMap(load)
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

// ---- 1. A/A by resampling: pooled per-run medians of one environment kind, random 5 vs 5 splits ----
function pooledRuns(kind: 'native' | 'container', workload: string, metric: string): number[] {
  const byRun = new Map<string, number[]>()
  for (const r of all) {
    if (r.workload !== workload || r.metric !== metric || r.scope !== 'steady') continue
    const k = r.environment.replace(/#\d+$/, '')
    if (k !== kind) continue
    const key = `${r.check}/${r.environment}/${r.run}`
    byRun.set(key, [...(byRun.get(key) ?? []), r.value])
  }
  return [...byRun.values()].map(median)
}

function aaResample(
  kind: 'native' | 'container',
  workload: string,
  metrics: string[],
  splits: number,
  n: number
) {
  const pools = metrics.map(m => pooledRuns(kind, workload, m))
  const size = Math.min(...pools.map(p => p.length))
  const rand = seededRandom(42)
  let regression = 0
  let significant = 0
  let notEquivalent = 0
  for (let s = 0; s < splits; s++) {
    const idx = [...Array(size).keys()]
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[idx[i], idx[j]] = [idx[j] as number, idx[i] as number]
    }
    const rows: RawRow[] = []
    metrics.forEach((metric, mi) => {
      const pool = pools[mi] as number[]
      idx.slice(0, 2 * n).forEach((k, i) =>
        rows.push({
          workload,
          environment: i < n ? 'A' : 'B',
          run: i,
          metric,
          value: pool[k] as number,
          scope: 'steady'
        })
      )
    })
    const a = analyzeRecords(rows, {
      baselineEnv: 'A',
      candidateEnvs: ['B'],
      maxOverheadPct: 2,
      alpha: 0.05,
      seed: s,
      bootstrap: { resamples: 2000 }
    })
    if (a.verdict === 'regression') regression++
    if (a.comparisons.some(c => c.p_adjusted < 0.05)) significant++
    if (a.comparisons.some(c => c.verdict !== 'equivalent')) notEquivalent++
  }
  return {
    kind,
    workload,
    pooled_runs: size,
    splits,
    n_per_arm: n,
    regression,
    significant,
    not_equivalent: notEquivalent
  }
}

// ---- 2. Telemetry sampler overhead: native matmul kernel_ms with the sampler on vs off, same machine ----
function samplerOverhead(onCheck: string, offCheck: string) {
  const rows: RawRow[] = all
    .filter(
      r =>
        (r.check === onCheck || r.check === offCheck) &&
        r.workload === 'matmul' &&
        r.environment === 'native' &&
        r.metric === 'kernel_ms'
    )
    .map(r => ({ ...r, environment: r.check === onCheck ? 'sampler-on' : 'sampler-off' }))
  const a = analyzeRecords(rows, {
    baselineEnv: 'sampler-off',
    candidateEnvs: ['sampler-on'],
    maxOverheadPct: 0.5,
    alpha: 0.05,
    seed: 1
  })
  const c = a.comparisons[0]
  return {
    on: onCheck,
    off: offCheck,
    n_on: c?.n_candidate,
    n_off: c?.n_baseline,
    overhead_pct: c?.overhead_pct,
    ci95: c?.ci95,
    verdict: c?.verdict
  }
}

// ---- 3. Start-up split: medians per phase and arm over both default checks ----
function startupSplit() {
  const phases = [
    'launch_s',
    'interpreter_s',
    'imports_s',
    'device_init_s',
    'first_kernel_s',
    'total_startup_s',
    'process_wall_s'
  ]
  const out: Record<string, Record<string, Record<string, number>>> = {}
  for (const w of ['matmul', 'llm']) {
    out[w] = {}
    for (const env of ['native', 'container']) {
      const row: Record<string, number> = {}
      for (const p of phases) {
        const v = all
          .filter(
            r =>
              r.check.startsWith('default-check') &&
              r.workload === w &&
              r.environment === env &&
              r.metric === p
          )
          .map(r => r.value)
        if (v.length) row[p] = Number(median(v).toFixed(4))
      }
      ;(out[w] as Record<string, Record<string, number>>)[env] = row
    }
  }
  return out
}

const result = {
  aa: [
    aaResample('native', 'matmul', ['kernel_ms', 'tflops'], 1000, 5),
    aaResample('container', 'matmul', ['kernel_ms', 'tflops'], 1000, 5),
    aaResample('native', 'llm', ['ttft_ms', 'tpot_ms', 'e2e_ms', 'tokens_per_s', 'itl_ms'], 1000, 5),
    aaResample('container', 'llm', ['ttft_ms', 'tpot_ms', 'e2e_ms', 'tokens_per_s', 'itl_ms'], 1000, 5)
  ],
  sampler: [
    samplerOverhead('sensitivity-cotenant-20ms', 'aa-calibration'),
    samplerOverhead('default-check-2', 'sensitivity-cotenant-sweep')
  ],
  startup: startupSplit()
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
