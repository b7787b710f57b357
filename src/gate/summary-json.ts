/**
 * The check's record (summary.json, and what the report renders): assembled from what the check knows so far —
 * at its start (an INCOMPLETE placeholder), on a fault and at the end — with the gate's verdict in it.
 */
import {
  type analyzeRecords,
  type compareWithBaseline,
  edpOptimal,
  explainCheck,
  latencyPercentiles,
  measuredWork,
  powerCapRows,
  runSeries,
  type SequentialController
} from '../analyze/index.js'
import type { ResultSet } from '../results/index.js'
import type { Config } from '../config/index.js'
import { armImage } from '../launchers/index.js'
import {
  armStackDigest,
  armStacks,
  summarizeTelemetry,
  workloadsGatedBySamples,
  type ExecuteResult,
  type SweepOutcome
} from '../execute/index.js'
import type { Layout } from '../plan/index.js'
import type { Lane } from '../types/index.js'
import { emptyPreflightOutcome, fingerprintFor, type PreflightOutcome } from '../preflight/index.js'
import type { ResultsWriter } from '../results/index.js'
import type {
  Analysis,
  CheckSummary,
  Fingerprint,
  MultiGpuSummary,
  OnInconclusive,
  PowerCapSummary
} from '../types/index.js'
import { maxOf } from '../util/arrays.js'
import { VERSION } from '../util/version.js'
import { checkVerdict, headline, nothingMeasuredReason, type NamedGateMetric } from './verdict.js'

/** What a check knows so far; the summary is assembled from it at the start, on a fault and at the end. */
export interface CheckState {
  pre: PreflightOutcome
  exec: ExecuteResult
  analysis: ReturnType<typeof analyzeRecords> | null
  baseline: Awaited<ReturnType<typeof compareWithBaseline>> | null
  warnings: string[]
  notMeasured: { what: string; why: string }[]
  /** GPUs the check pinned its processes to (null: one unpinned process, e.g. CPU). */
  lanes: Lane[] | null
  /** How the arms used the GPUs (plan/steps.ts); null before the plan was made. */
  layout: Layout | null
  power: SweepOutcome | null
  multiGpu: MultiGpuSummary | null
  /** Sequential stopping (null: a fixed count, e.g. a power-cap sweep). */
  sequential: SequentialController | null
}

/** The state before anything ran: what the INCOMPLETE placeholder is made of. */
export function initialCheckState(): CheckState {
  return {
    pre: emptyPreflightOutcome(),
    exec: {
      samples: [],
      runs: [],
      complete: false,
      incompleteReason:
        'the check stopped before it could write its report (killed, crashed, or the results disk filled up); ' +
        'results.jsonl holds every sample measured until then'
    },
    analysis: null,
    baseline: null,
    warnings: [],
    notMeasured: [],
    lanes: null,
    layout: null,
    power: null,
    multiGpu: null,
    sequential: null
  }
}

export function assembleSummary(
  config: Config,
  checkId: string,
  started: Date,
  state: CheckState,
  paths: ResultsWriter['paths']
): CheckSummary {
  const { pre, exec, analysis } = state
  const finished = new Date()
  const telemetry = summarizeTelemetry(exec.runs, {
    // NVML energy covers the measured region only, so EDP uses that region's time too.
    delaySeconds: r =>
      r.energy_source === 'nvml' && r.measured_s ? r.measured_s : (r.end_ms - r.start_ms) / 1000
  })
  const imageEnv = armImageEnv(config, pre)
  // Nothing measured is never a pass: say why first, so the verdict line names it.
  const sampleGated = workloadsGatedBySamples(config.definitions, config.gateIoThroughput)
  // A check of rule-gated workloads only (io by its mount rule) has no gated samples by design.
  const requireGated = sampleGated.length > 0
  const nothing =
    exec.complete && (requireGated || config.gateMetrics.length > 0)
      ? nothingMeasuredReason(analysis, requireGated ? sampleGated : [], config.gateMetrics)
      : null
  return {
    schema: 'gpu-overhead/summary@1',
    check_id: checkId,
    tool_version: VERSION,
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    wall_s: (finished.getTime() - started.getTime()) / 1000,
    complete: exec.complete,
    incomplete_reason: exec.incompleteReason,
    verdict: checkVerdict(
      analysis,
      pre.results,
      exec.complete,
      sampleGated,
      requireGated,
      config.gateMetrics
    ),
    ...headline(analysis),
    config: summaryConfig(config, state),
    arms: config.arms,
    fingerprints: armFingerprints(config, state),
    preflight: pre.results,
    analysis,
    latency: latencyPercentiles(exec.samples),
    telemetry,
    baseline: state.baseline,
    runs: exec.runs,
    series: runSeries(exec.samples.filter(s => s.scope === 'steady')),
    ...(state.multiGpu ? { multi_gpu: state.multiGpu } : {}),
    ...(state.power ? { power: powerSummary(state.power, exec.runs) } : {}),
    stacks: armStacks(exec.stacks ?? []),
    image_env: imageEnv,
    explanation: explainCheck({
      analysis,
      device: config.device,
      stacks: exec.stacks ?? [],
      telemetry,
      imageEnv,
      runs: exec.runs,
      arms: config.arms.map(a => a.label),
      runtime: config.containerRuntime,
      samples: exec.samples
    }),
    ...(state.sequential ? { sequential: state.sequential.summary() } : {}),
    measured_work: measuredWork(exec.runs),
    not_measured: state.notMeasured,
    warnings: nothing === null ? state.warnings : [nothing, ...state.warnings],
    paths: { ...paths }
  }
}

/** The check's settings as summary.json records them. */
function summaryConfig(config: Config, state: CheckState): CheckSummary['config'] {
  return {
    image: config.image,
    workloads: config.workloads,
    runs: config.runs,
    max_runs: config.maxRuns,
    device: config.device,
    gpu_access: config.gpuAccess,
    arms: config.arms.map(a => a.label),
    max_overhead_pct: config.maxOverheadPct,
    alpha: config.alpha,
    on_inconclusive: config.onInconclusive,
    ...(state.layout && state.lanes && state.lanes.length > 1 ? { gpu_layout: state.layout } : {}),
    ...(config.commands.length
      ? { commands: config.commands.map(c => ({ name: c.name, source: c.source, format: c.format })) }
      : {})
  }
}

// The GPU the check ran on (its first, when several): not simply the host's first GPU.
function armFingerprints(config: Config, state: CheckState): CheckSummary['fingerprints'] {
  const { pre, exec } = state
  return Object.fromEntries(
    config.arms.map(a => [
      a.label,
      {
        ...fingerprintFor(a, config, pre, state.lanes?.[0] ?? null),
        stack: armStackDigest(exec.runs, a.label)
      }
    ])
  )
}

/** Each container arm's image ENV, from preflight's inspection. */
function armImageEnv(config: Config, pre: CheckState['pre']): Record<string, Record<string, string>> {
  return Object.fromEntries(
    config.arms.flatMap(a => {
      const facts = armImage(pre.images, a, config.containerRuntime)
      return facts ? [[a.label, facts.env]] : []
    })
  )
}

function powerSummary(sweep: SweepOutcome, runs: ExecuteResult['runs']): PowerCapSummary {
  const rows = powerCapRows(runs)
  return { ...sweep, rows, edp_optimal: edpOptimal(rows) }
}

/** What `mode: analyze` knows: result files earlier steps wrote, read and analysed (entry/cli/analyze.ts). */
export interface ResultFilesCheck {
  checkId: string
  started: Date
  analysis: Analysis
  results: ResultSet
  /** The input format (hyperfine, pytest-benchmark, csv, …) and how many files held the runs. */
  format: string
  files: number
  onInconclusive: OnInconclusive
  paths: ResultsWriter['paths']
  /** The metrics gate-metrics names: each must have data in both arms. */
  gateMetrics?: readonly NamedGateMetric[]
}

/**
 * The check's record for samples that earlier steps measured: the same record (and so the same report, comment,
 * Check run and gate) as a check that ran here, with what this step did not see left empty — no runs, preflight,
 * telemetry or stacks — and `source` saying where the samples came from.
 */
export function assembleResultFilesSummary(input: ResultFilesCheck): CheckSummary {
  const { analysis, results } = input
  const finished = new Date()
  const steady = results.series.filter(s => s.scope === 'steady')
  const runs = steady.map(s => s.values.length)
  const nothing = nothingMeasuredReason(analysis, [], input.gateMetrics ?? [])
  // A CSV may carry fingerprint columns; a tool's file carries none (the environment section then says so).
  const fingerprints = Object.fromEntries(
    Object.entries(results.fingerprints)
      .filter(([, f]) => Object.values(f).some(v => v !== undefined && v !== null))
      .map(([env, f]) => [env, { ...f } as Fingerprint])
  )
  return {
    schema: 'gpu-overhead/summary@1',
    check_id: input.checkId,
    source: { kind: 'result-files', format: input.format, files: input.files },
    tool_version: VERSION,
    started_at: input.started.toISOString(),
    finished_at: finished.toISOString(),
    wall_s: (finished.getTime() - input.started.getTime()) / 1000,
    complete: true,
    incomplete_reason: null,
    verdict: checkVerdict(analysis, [], true, [], true, input.gateMetrics ?? []),
    ...headline(analysis),
    config: {
      image: null,
      workloads: [...new Set(steady.map(s => s.workload))],
      runs: runs.length ? maxOf(runs) : 0,
      device: Object.values(fingerprints).some(f => f.device === 'gpu') ? 'gpu' : 'cpu',
      gpu_access: 'gpus',
      arms: [analysis.baseline_env, analysis.candidate_env].filter((e): e is string => e !== undefined),
      max_overhead_pct: analysis.max_overhead_pct,
      alpha: analysis.alpha,
      on_inconclusive: input.onInconclusive
    },
    arms: [],
    fingerprints,
    preflight: [],
    analysis,
    latency: [],
    telemetry: [],
    baseline: null,
    runs: [],
    series: steady.map(s => ({
      workload: s.workload,
      metric: s.metric,
      unit: s.unit,
      environment: s.environment,
      values: s.values
    })),
    not_measured: [],
    warnings: [...(nothing === null ? [] : [nothing])],
    paths: { ...input.paths }
  }
}
