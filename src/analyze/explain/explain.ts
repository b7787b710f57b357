/**
 * "Why the arms differ": every recorded difference between the baseline arm and the candidate arm
 * (environment variables, stack facts, clocks, throttling, power, utilisation, memory, start-up
 * phases), each with its meaning and a fix, ranked by whether it can explain a difference the check
 * measured, then by how strongly such a difference changes speed.
 */
import type {
  Analysis,
  ArmStack,
  Comparison,
  ContainerRuntime,
  Explanation,
  Finding,
  RunRecord,
  SampleRecord,
  StackRecord,
  TelemetrySummary
} from '../../types/index.js'
import { armStacks } from '../../execute/index.js'
import { appendAll } from '../../util/arrays.js'
import { measuredDifferences } from './measured.js'
import { memoryFindings } from './memory.js'
import { RELEVANT_IMPACT, explainsOf, headline, merge, rank } from './rank.js'
import { imageEnvMap, stackFindings } from './stack.js'
import { startupFindings } from './startup.js'
import { jitCacheFindings } from './jit-cache.js'
import { cotenantFindings } from './cotenants.js'
import { armFailures, failureFindings } from './failures.js'
import type { ArmFailure } from './failure-causes.js'
import { armTelemetry, telemetryFindings, type ArmTelemetry } from './telemetry.js'

export interface ExplainInput {
  baselineEnv: string
  candidateEnv: string
  device: 'gpu' | 'cpu'
  alpha: number
  stacks: readonly ArmStack[]
  /** Declared ENV of each container arm's image (docker image inspect), by arm label. */
  imageEnv: Readonly<Record<string, Readonly<Record<string, string>>>>
  comparisons: readonly Comparison[]
  telemetry: readonly ArmTelemetry[]
  /** Processes that failed, by arm: their likely causes rank first. */
  failures?: readonly ArmFailure[]
  /** The container runtime (its own fix for a failure of the runtime itself); null or absent when not known. */
  runtime?: ContainerRuntime | null
  /** Each process's own stack record and start-up samples: what a container arm's first process paid for JIT. */
  processes?: { stacks: readonly StackRecord[]; samples: readonly SampleRecord[] }
}

export function explain(input: ExplainInput): Explanation {
  const measured = measuredDifferences(input.comparisons, input.alpha, input.device)
  const image = imageEnvMap(input.imageEnv[input.candidateEnv])
  const raw: Finding[] = []
  for (const base of input.stacks.filter(s => s.environment === input.baselineEnv)) {
    const cand = input.stacks.find(s => s.environment === input.candidateEnv && s.workload === base.workload)
    if (cand) appendAll(raw, stackFindings(base, cand, image))
  }
  appendAll(raw, cotenantFindings(input.stacks, input.baselineEnv, input.candidateEnv))
  appendAll(raw, telemetryFindings(input.telemetry, input.baselineEnv, input.candidateEnv))
  appendAll(
    raw,
    startupFindings(input.comparisons, input.stacks, input.baselineEnv, input.candidateEnv, input.alpha)
  )
  appendAll(raw, memoryFindings(input.comparisons, input.alpha))
  if (input.processes) appendAll(raw, jitCacheFindings(input.processes.stacks, input.processes.samples))
  const findings = merge(raw).map(f => {
    const explains = explainsOf(f, measured)
    return {
      ...f,
      explains,
      relevant: f.impact >= RELEVANT_IMPACT && explains.length > 0 && f.kind !== 'memory'
    }
  })
  const failed = failureFindings(
    input.failures ?? [],
    input.imageEnv,
    Object.keys(input.imageEnv),
    input.baselineEnv,
    input.runtime ?? null
  )
  const ranked = rank([...failed, ...findings])
  return {
    baseline_env: input.baselineEnv,
    candidate_env: input.candidateEnv,
    measured,
    findings: ranked,
    headline: headline(ranked, measured)
  }
}

export interface CheckExplainInput {
  analysis: Analysis | null
  device: 'gpu' | 'cpu'
  stacks: readonly StackRecord[]
  telemetry: readonly TelemetrySummary[]
  imageEnv: Readonly<Record<string, Readonly<Record<string, string>>>>
  /** Every process of the check: failed ones are explained. */
  runs?: readonly RunRecord[]
  /** The configured arms' labels, baseline first: used when an arm failed before anything was compared. */
  arms?: readonly string[]
  runtime?: ContainerRuntime | null
  /** The check's samples (their start-up phases per process). */
  samples?: readonly SampleRecord[]
}

/** The explanation of a check's primary pair of arms; null when nothing was compared. */
export function explainCheck(input: CheckExplainInput): Explanation | null {
  const a = input.analysis
  const failures = armFailures(input.runs ?? [])
  const baselineEnv = a?.baseline_env ?? (failures.length ? input.arms?.[0] : undefined)
  const candidateEnv = a?.candidate_env ?? (failures.length ? input.arms?.[1] : undefined)
  if (!baselineEnv || !candidateEnv) return null
  return explain({
    baselineEnv,
    candidateEnv,
    device: input.device,
    alpha: a?.alpha ?? 0.05,
    stacks: armStacks(input.stacks),
    imageEnv: input.imageEnv,
    comparisons: a?.comparisons ?? [],
    telemetry: armTelemetry(input.telemetry),
    failures,
    runtime: input.runtime ?? null,
    processes: { stacks: input.stacks, samples: input.samples ?? [] }
  })
}
