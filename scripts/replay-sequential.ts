/**
 * Replays the sequential rule on workload processes recorded on a GPU host (no GPU needed): processes alone
 * (baseline) and next to a GPU co-tenant (the slower arm), in the order they ran (A B / B A by pair), through
 * the same SequentialController the check uses. Prints where each workload would stop and its verdict.
 * Run: npx tsx scripts/replay-sequential.ts docs/evidence/2026-11-23-h200-fast/slow
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { SequentialController } from '../src/analyze/sequential-check.js'
import { sampleMetricName, sampleScope } from '../src/execute/metrics.js'
import type { Fingerprint, SampleEvent, SampleRecord } from '../src/types/index.js'
import { localEvidence } from './lib/evidence-raw.js'

// The raw folders are on the evidence-raw branch (scripts/lib/evidence-raw.ts).
const dir = localEvidence(process.argv[2] ?? 'docs/evidence/2026-11-23-h200-fast/slow')
const ARM = { alone: 'native', cotenant: 'co-tenant' } as const

for (const workload of ['matmul', 'llm'] as const) {
  const files = fs.readdirSync(dir).filter(f => f.startsWith(`slow-${workload}-`))
  const pairs = Math.max(0, ...files.map(f => Number(/-(\d+)\.jsonl\.gz$/.exec(f)?.[1] ?? 0)))
  if (pairs === 0) continue
  const controller = new SequentialController({
    minRuns: 3,
    maxRuns: 12,
    timeBudgetS: null,
    maxOverheadPct: 2,
    alpha: 0.05,
    baselineEnv: ARM.alone,
    candidateEnvs: [ARM.cotenant],
    gatedWorkloads: 2
  })
  const samples: SampleRecord[] = []
  let stop: string | null = null
  let p = 0
  for (p = 1; p <= pairs && stop === null; p++) {
    for (const mode of p % 2 === 1 ? (['alone', 'cotenant'] as const) : (['cotenant', 'alone'] as const)) {
      const file = path.join(dir, `slow-${workload}-${mode}-${p}.jsonl.gz`)
      for (const line of zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n')) {
        if (!line.startsWith('{')) continue
        const e = JSON.parse(line) as SampleEvent & { event: string }
        if (e.event !== 'sample') continue
        samples.push({
          check_id: 'replay',
          workload,
          environment: ARM[mode],
          run: p,
          iteration: e.iteration,
          metric: sampleMetricName(e),
          value: e.value,
          unit: e.unit,
          scope: sampleScope(e),
          time: '',
          params: {},
          fingerprint: {} as Fingerprint
        })
      }
    }
    if (p >= 3) stop = controller.afterBlock({ workload, run: p, samples, elapsedMs: 0, blockMs: 0 })
  }
  const [s] = controller.summary()
  console.log(
    `${workload}: ${pairs} recorded pairs; stops after ${s?.runs_per_arm} per arm (${s?.reason ?? 'not reached'})`
  )
  for (const m of s?.metrics ?? []) console.log(`  ${m.key}: ${m.state}`)
}
