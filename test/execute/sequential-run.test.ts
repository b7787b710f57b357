/**
 * Sequential stopping end to end in the executor: real processes (a stand-in workload printing one sample),
 * the real controller deciding after each block, and the ETA coming from per-workload durations.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { SequentialController } from '../../src/analyze/sequential-check.js'
import { executePlan } from '../../src/execute/runner.js'
import { PlanEta } from '../../src/execute/progress.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { ResultsWriter } from '../../src/results/store.js'
import type { Arm, Fingerprint } from '../../src/types/index.js'
import type { Logger } from '../../src/util/log.js'
import { silentLogger } from '../../src/util/log.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'seq-run-'))
const script = path.join(tmp, 'stand-in.py')
// kernel_ms = BASE × (1 + SPREAD × a fixed pseudo-random draw per process) — a quiet or noisy arm.
fs.writeFileSync(
  script,
  [
    'import json, os, random',
    'r = random.Random(int(os.environ["RUN_SEED"]))',
    'v = float(os.environ["BASE"]) * (1 + float(os.environ["SPREAD"]) * (r.random() - 0.5))',
    'print(json.dumps({"event": "sample", "metric": "kernel_ms", "value": v, "unit": "ms", "iteration": 1, "better": "lower"}), flush=True)',
    'print(json.dumps({"event": "summary", "measured_s": 0.01}), flush=True)'
  ].join('\n')
)
const arms: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'container', kind: 'native', image: null }
]

interface Case {
  base: Record<string, number>
  spread: number
}

async function run(cases: Record<string, Case>, maxRuns: number, timeBudgetS: number | null = null) {
  const workloads = Object.keys(cases) as ('matmul' | 'llm')[]
  const controller = new SequentialController({
    minRuns: 3,
    maxRuns,
    timeBudgetS,
    maxOverheadPct: 2,
    alpha: 0.05,
    baselineEnv: 'native',
    candidateEnvs: ['container'],
    gatedWorkloads: workloads.length
  })
  const lines: string[] = []
  const logger: Logger = { ...silentLogger, info: (m: string) => void lines.push(m) }
  let seed = 0
  const plan = buildPlan({ arms, workloads, runs: maxRuns, warmupRuns: 0, schedule: 'abba', seed: 1 })
  const r = await executePlan(plan, {
    checkId: 'c',
    specFor: p => ({
      command: 'python3',
      args: [script],
      env: {
        ...process.env,
        RUN_SEED: String(++seed),
        BASE: String(cases[p.workload]!.base[p.arm.label]),
        SPREAD: String(cases[p.workload]!.spread)
      },
      timeoutMs: 20000
    }),
    fingerprintFor: () => ({}) as Fingerprint,
    paramsFor: () => ({}),
    writer: ResultsWriter.open(path.join(tmp, `out-${seed}-${Date.now()}`)),
    logger,
    afterBlock: d => controller.afterBlock(d)
  })
  return { r, controller, lines }
}

describe('sequential stopping in the executor', () => {
  it('stops a quiet equivalent workload once it may claim equivalence (10 runs) and a clear regression early; ETA is an upper bound', async () => {
    const { r, controller, lines } = await run(
      {
        matmul: { base: { native: 10, container: 10 }, spread: 0.001 },
        llm: { base: { native: 10, container: 11 }, spread: 0.001 }
      },
      12
    )
    const count = (w: string): number => r.runs.filter(x => x.workload === w).length
    // Equivalence waits for 10 processes per arm (mode-exclusion.ts); a regression needs no such wait.
    expect(count('matmul')).toBe(20)
    expect(count('llm')).toBeLessThan(24)
    expect(controller.summary().map(s => [s.workload, s.reason, s.metrics[0]!.state])).toEqual([
      ['matmul', 'decided', 'equivalent'],
      ['llm', 'decided', 'regression']
    ])
    expect(lines.some(l => /matmul: stopping after 10 run\(s\) per arm \(decided\)/.test(l))).toBe(true)
    // Minutes too: on a loaded machine the first process's time puts the bound over a minute.
    expect(lines[0]).toMatch(/^\[1\/48\] matmul native run 1: ok .* — ETA ≤(\d+m)?\d+s$/)
    expect(r.complete).toBe(true)
  }, 180000)

  it('runs a noisy workload to max-runs and says what it would need', async () => {
    const { r, controller } = await run({ matmul: { base: { native: 10, container: 9.9 }, spread: 0.08 } }, 5)
    expect(r.runs.length).toBe(10)
    const [stop] = controller.summary()
    expect(stop!.reason).toBe('max-runs')
    expect(stop!.runs_per_arm).toBe(5)
    expect(stop!.undecided[0]).toMatch(/^kernel_ms: undecided \(~\d+ runs per arm would decide it\)$/)
  }, 60000)

  it('once a regression is decided, a later undecided workload stops at the minimum: the verdict is set', async () => {
    const { r, controller, lines } = await run(
      {
        matmul: { base: { native: 10, container: 11 }, spread: 0.001 },
        llm: { base: { native: 10, container: 10.1 }, spread: 0.3 }
      },
      8
    )
    expect(r.runs.filter(x => x.workload === 'llm').length).toBe(6)
    expect(controller.summary().map(s => [s.workload, s.reason])).toEqual([
      ['matmul', 'decided'],
      ['llm', 'verdict-decided']
    ])
    expect(controller.summary()[0]!.metrics[0]!.state).toBe('regression')
    expect(lines.some(l => /llm: stopping after 3 run\(s\) per arm \(verdict-decided\)/.test(l))).toBe(true)
  }, 60000)

  it('stops at the minimum when another pair would overrun the time budget', async () => {
    const { r, controller } = await run(
      { matmul: { base: { native: 10, container: 10.1 }, spread: 0.08 } },
      12,
      0.001
    )
    expect(r.runs.length).toBe(6)
    expect(controller.summary()[0]!.reason).toBe('time-budget')
  }, 60000)
})

describe('PlanEta', () => {
  it('prices each remaining process by its own workload, not a global mean', () => {
    const eta = new PlanEta()
    eta.record({ workload: 'matmul', warmup: false }, 2000)
    eta.record({ workload: 'llm', warmup: false }, 8000)
    eta.record({ workload: 'llm', warmup: true }, 10000)
    const left = [
      { workload: 'llm' as const, warmup: false },
      { workload: 'llm' as const, warmup: false },
      { workload: 'matmul' as const, warmup: false }
    ]
    expect(eta.remainingMs(left)).toBe(8000 + 8000 + 2000)
    // A workload not seen yet borrows the mean of all processes so far.
    expect(eta.remainingMs([{ workload: 'io', warmup: false }])).toBeCloseTo(20000 / 3)
    // A measured run after only a warm-up of its workload: priced like that warm-up.
    const fresh = new PlanEta()
    fresh.record({ workload: 'llm', warmup: true }, 9000)
    expect(fresh.remainingMs([{ workload: 'llm', warmup: false }])).toBe(9000)
  })
})
