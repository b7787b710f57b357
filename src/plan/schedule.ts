/**
 * The schedule. Every repetition is a fresh process; arms are interleaved (A B B A …, or seeded random
 * order inside each block) so slow drift — heat, clocks, page cache, other tenants — hits every arm alike.
 * Warm-up processes run first for each arm and are not analysed.
 */
import type { Arm, Schedule, Workload } from '../types/index.js'

export interface PlannedRun {
  /** Position in the whole schedule, 0-based. */
  order: number
  workload: Workload
  arm: Arm
  /** 1-based repetition within (workload, arm); warm-ups count separately from 1. */
  run: number
  warmup: boolean
}

/** How logs and warnings name a planned run: "warm-up", or "run N" (N: its process's run label, default its own). */
export function runText(p: Pick<PlannedRun, 'warmup' | 'run'>, run = p.run): string {
  return p.warmup ? 'warm-up' : `run ${run}`
}

/** How logs and warnings name one process of a planned run: "matmul container run 3" (`run`: its run label). */
export function runLabel(p: PlannedRun, run = p.run): string {
  return `${p.workload} ${p.arm.label} ${runText(p, run)}`
}

export interface PlanInput {
  arms: Arm[]
  workloads: Workload[]
  runs: number
  warmupRuns: number
  schedule: Schedule
  seed: number
}

/** mulberry32: a tiny, well-known seeded PRNG, so a schedule can be reproduced from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffled<T>(items: T[], rand: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[out[i], out[j]] = [out[j] as T, out[i] as T]
  }
  return out
}

export function buildPlan(input: PlanInput): PlannedRun[] {
  const rand = seededRandom(input.seed)
  const plan: PlannedRun[] = []
  const push = (workload: Workload, arm: Arm, run: number, warmup: boolean): void => {
    plan.push({ order: plan.length, workload, arm, run, warmup })
  }
  for (const workload of input.workloads) {
    for (let w = 1; w <= input.warmupRuns; w++) for (const arm of input.arms) push(workload, arm, w, true)
    for (let r = 1; r <= input.runs; r++) {
      // abba: forward on odd blocks, reversed on even ones (A B | B A | A B …); random: seeded per block.
      const order =
        input.schedule === 'random'
          ? shuffled(input.arms, rand)
          : r % 2 === 1
            ? input.arms
            : [...input.arms].reverse()
      for (const arm of order) push(workload, arm, r, false)
    }
  }
  return plan
}
