/**
 * The check, one direction: config → preflight → plan → execute (+ telemetry) → analyze (+ baseline)
 * → report → gate. Only this file and the entry points wire stages together. What a fault must keep (what
 * was measured so far) is the CheckState (gate/summary-json.ts) that the steps below fill; the summary is
 * assembled from it at the start (an INCOMPLETE placeholder), on a fault and at the end. Over 300 lines:
 * runCheck and measure read as the stage order; below them, steps that act on one check's state across
 * stages (its analysis with the baseline, the sequential controller, telemetry start and attachment,
 * leftover power limits): they belong in analyze/ and execute/, with their inputs passed explicitly.
 */
import * as path from 'node:path'
import {
  analyzeRecords,
  compareWithBaseline,
  decideFamily,
  multiGpuSummary,
  multiGpuWarnings,
  pooledRows,
  capOf,
  measuredWork,
  measuredWorkNote,
  SequentialController
} from './analyze/index.js'
import {
  commandSourceLines,
  definitionOf,
  gateMetricSet,
  type Config,
  type WorkloadDefinition
} from './config/index.js'
import { EnvironmentError } from './util/errors.js'
import {
  killCheckContainers,
  removeCheckContainersNow,
  leftoverRestoreFiles,
  restoreFileFor,
  type PresentGpu,
  prepareIoFolders,
  restoreFromFile,
  validateCaps,
  sweepPowerCaps,
  executeSteps,
  gpuCotenantProbe,
  RunFolders,
  type BlockDone,
  type ExecuteResult,
  TelemetrySampler,
  attribute,
  withTelemetry,
  regionTelemetry
} from './execute/index.js'
import {
  buildPlan,
  describePlan,
  planExecution,
  resolveLanes,
  resolveLayout,
  takesTurns
} from './plan/index.js'
import { ResultsWriter } from './results/index.js'
import { fingerprintCache, logPreflight, powerRanges, preflightStage } from './preflight/index.js'
import { buildReport } from './report/index.js'
import type { CheckSummary, TelemetrySample } from './types/index.js'
import { assembleSummary, initialCheckState, type CheckState } from './gate/index.js'
import type { Logger } from './util/log.js'
import { processSpec, workloadsDir, workloadsGatedBySamples } from './execute/index.js'
import { appendAll } from './util/arrays.js'
import { cancelOnSignals, newCheckId } from './util/cancel.js'
import { redactDeep } from './util/secrets.js'

export interface CheckOutcome {
  summary: CheckSummary
  markdown: string
}

/** report.md and summary.json, each replaced whole or not at all; returns what could not be written. */
function writeReportFiles(writer: ResultsWriter, summary: CheckSummary): string[] {
  return [
    writer.replaceFile(writer.paths.report, buildReport(summary, { maxChars: Infinity })),
    writer.replaceFile(writer.paths.summary, `${JSON.stringify(redactDeep(summary), null, 2)}\n`)
  ].filter((e): e is string => e !== null)
}

export async function runCheck(
  config: Config,
  logger: Logger,
  externalSignal?: AbortSignal
): Promise<CheckOutcome> {
  const started = new Date()
  const checkId = newCheckId()
  const dir = workloadsDir()
  const writer = ResultsWriter.open(config.out, config.workspace ?? path.dirname(config.out))
  const state = initialCheckState()
  const summarize = (): CheckSummary => assembleSummary(config, checkId, started, state, writer.paths)
  // Until the check writes its own report, the folder says it is unfinished: a kill -9, a crash or a full
  // disk leaves this INCOMPLETE report and summary behind, never a stale or torn one.
  const unwritable = writeReportFiles(writer, summarize())
  if (unwritable.length)
    throw new EnvironmentError(
      `cannot write the results folder ${config.out} (input 'out'): ${unwritable[0]}; free space there, or choose another out`
    )
  const cancel = cancelOnSignals(logger, () => {
    if (config.arms.some(a => a.kind === 'container'))
      removeCheckContainersNow(config.containerRuntime, checkId)
  })
  try {
    await measure(config, logger, checkId, dir, writer, state, cancel.signal, externalSignal)
  } catch (error) {
    // Preflight refused (no engine, no image, no GPU) or something broke mid-check: say so in the
    // report files too, keep what was measured, and let the entry point turn the error into its exit code.
    state.exec.complete = false
    state.exec.incompleteReason = `the check stopped: ${error instanceof Error ? error.message : String(error)}`
    writeReportFiles(writer, summarize())
    throw error
  } finally {
    cancel.dispose()
  }

  await analyzeCheck(config, state)

  let summary = summarize()
  const failed = writeReportFiles(writer, summary)
  if (failed.length) {
    const { exec } = state
    // The placeholder (INCOMPLETE) stays on disk; what is returned says the same, so no exit code passes.
    exec.complete = false
    exec.incompleteReason = [
      exec.incompleteReason,
      `${failed.join('; ')} (the results folder keeps an INCOMPLETE placeholder)`
    ]
      .filter(Boolean)
      .join('; ')
    summary = summarize()
    logger.warn(exec.incompleteReason)
  }
  // The file keeps everything; the comment/summary copy is capped at GitHub's 65,000 characters.
  return { summary, markdown: buildReport(summary) }
}

/** Analysis of what was measured: the arms, each GPU, the stored baseline, decided as one Holm family. */
async function analyzeCheck(config: Config, state: CheckState): Promise<void> {
  const { exec } = state
  const analyzeOpts = {
    baselineEnv: config.arms[0]?.label ?? 'native',
    candidateEnvs: config.arms.slice(1).map(a => a.label),
    maxOverheadPct: config.maxOverheadPct,
    alpha: config.alpha,
    seed: config.seed
  }
  const multi = state.lanes !== null && state.lanes.length > 1 ? state.lanes : null
  // Several GPUs: the headline pools every GPU's processes (each its own run); each GPU is analysed too.
  const rows = multi ? pooledRows(exec.samples) : exec.samples
  const fixed = exec.samples.length ? analyzeRecords(rows, analyzeOpts) : null
  state.analysis = fixed && state.sequential ? state.sequential.applyTo(fixed) : fixed
  const work = exec.runs.length ? measuredWorkNote(measuredWork(exec.runs)) : null
  if (state.analysis && work !== null) state.analysis.notes = [...(state.analysis.notes ?? []), work]
  if (multi && exec.samples.length) {
    state.multiGpu = multiGpuSummary(
      exec.samples,
      multi.map(l => ({ index: l.index, uuid: l.uuid, name: l.name })),
      analyzeOpts
    )
    for (const w of multiGpuWarnings(state.multiGpu, state.analysis)) state.warnings.push(w)
  }
  const gateFailed = state.pre.results.some(p => p.status === 'fail')
  state.baseline = exec.samples.length
    ? await compareWithBaseline(rows, {
        path: config.baselinePath,
        save: config.saveBaseline && exec.complete && !gateFailed,
        maxOverheadPct: config.maxOverheadPct,
        alpha: config.alpha,
        seed: config.seed,
        // The trend history records which commit each accepted check ran on.
        commit: process.env.GITHUB_SHA ?? null
      })
    : null
  if (state.baseline && state.baseline.status === 'corrupt') state.warnings.push(state.baseline.message)
  // One Holm family per report (analyze/family.ts), as `analyze --baseline` does: the arms and the
  // stored-baseline comparisons are adjusted together, and a regression against the baseline counts.
  if (state.analysis && state.baseline && state.baseline.comparisons.length > 0) {
    const family = decideFamily(state.analysis.comparisons, state.baseline.comparisons, config)
    state.analysis = { ...state.analysis, comparisons: family.arms, verdict: family.verdict }
    state.baseline = { ...state.baseline, comparisons: family.baseline }
  }
}

/** Preflight, plan, runs and telemetry; fills `state` as it goes so a fault keeps what was measured. */
async function measure(
  config: Config,
  logger: Logger,
  checkId: string,
  dir: string,
  writer: ResultsWriter,
  state: CheckState,
  cancelSignal: AbortSignal,
  externalSignal: AbortSignal | undefined
): Promise<void> {
  const signal = externalSignal ? AbortSignal.any([externalSignal, cancelSignal]) : cancelSignal
  const { warnings, notMeasured } = state
  for (const line of commandSourceLines(config)) logger.info(line)
  const hasContainer = config.arms.some(a => a.kind === 'container')
  const io = config.definitions.some(d => d.usesIoFolders)
    ? prepareIoFolders(config.out, config.data, config.checkpoint, config.device === 'cpu' ? 32 : 256)
    : null
  const pre = await logger.group('Preflight: GPU, driver gate, image, mounts', () =>
    preflightStage(config, hasContainer ? io : null, checkId)
  )
  state.pre = pre
  logPreflight(pre.results, logger)
  appendAll(warnings, pre.warnings)
  appendAll(notMeasured, pre.notMeasured)

  state.exec = { samples: [], runs: [], complete: false, incompleteReason: null }
  if (pre.results.some(p => p.status === 'fail')) {
    state.exec.incompleteReason = 'a preflight gate failed, so no workload was run'
    return
  }
  const lanes = config.device === 'gpu' && pre.gpus ? resolveLanes(config.gpus, pre.gpus.gpus) : null
  state.lanes = lanes
  // Outside the tree, HMAC'd, one per GPU set (docs/security.md): never a file from the checkout.
  const restoreFile = restoreFileFor((lanes ?? []).map(l => l.uuid ?? String(l.index)))
  if (config.device === 'gpu' && pre.gpus)
    await restoreLeftoverCaps(powerRanges(pre.gpus.gpus), logger, warnings)
  if (config.powerCaps.length && lanes && pre.gpus) validateCaps(config.powerCaps, lanes, pre.gpus.gpus)
  const sequential = sequentialFor(config)
  state.sequential = sequential
  const plan = buildPlan({ ...config, runs: sequential ? config.maxRuns : config.runs })
  const layout = resolveLayout(config.gpuLayout, config.arms.length, lanes ?? [null])
  state.layout = layout
  logger.info(describePlan(config, plan.length, lanes, sequential !== null, layout))
  const sampler = await startTelemetry(config, writer, state)
  const fingerprintOf = fingerprintCache(config, pre)
  // Every process's own folders (event channel, io checkpoints), under one private folder of this check.
  const folders = RunFolders.open(checkId)
  // Each workload's definition (how it starts, its args and params, how its results are read), by name.
  const definition = (name: string): WorkloadDefinition => definitionOf(config.definitions, name)
  // Turns on every GPU, in every layout (plan/steps.ts): the decode state is the same in each.
  const steps = planExecution(plan, lanes ?? [null], layout, w => takesTurns(config, w))
  const runPlan = (cap: number | null): Promise<ExecuteResult> =>
    executeSteps(steps, {
      checkId,
      specFor: (planned, lane, hold, turns) =>
        processSpec({
          planned,
          config,
          checkId,
          workloadsDir: dir,
          io,
          pre,
          lane,
          hold,
          folders,
          definition: definition(planned.workload),
          turns
        }),
      prestart: config.prestart,
      fingerprintFor: fingerprintOf,
      paramsFor: w => definition(w).params(config),
      ...(cap === null ? {} : { powerCapW: cap }),
      writer,
      logger,
      signal,
      scoring: { gateIoThroughput: config.gateIoThroughput, gateMetrics: gateMetricSet(config.gateMetrics) },
      gpuCotenants: gpuCotenantProbe(config.device),
      ...(sequential ? { afterBlock: (d: BlockDone) => sequential.afterBlock(d) } : {})
    })
  let exec: ExecuteResult
  let telemetry: TelemetrySample[] = []
  try {
    exec = await logger.group('Runs', async () => {
      if (!config.powerCaps.length) return runPlan(null)
      const sweep = await sweepPowerCaps({
        caps: config.powerCaps,
        lanes: lanes ?? [],
        restoreFile,
        logger,
        signal,
        runPlan
      })
      state.power = sweep.power
      if (sweep.power.status === 'skipped')
        notMeasured.push({
          what: `power caps ${config.powerCaps.join(', ')} W`,
          why: sweep.power.reason ?? ''
        })
      if (!sweep.power.restored)
        warnings.push(
          `power limits NOT put back: ${sweep.power.original_limits_w.map(o => `GPU ${o.gpu} ${o.limit_w} W`).join(', ')}; ` +
            `set them with nvidia-smi -i <gpu> -pl <watts> (saved in ${restoreFile})`
        )
      return sweep.exec
    })
  } catch (error) {
    // Nothing in executePlan is expected to throw; if it does, everything before it is on disk already.
    exec = {
      samples: [],
      runs: [],
      complete: false,
      incompleteReason: `the check stopped: ${error instanceof Error ? error.message : String(error)}`
    }
  } finally {
    if (sampler) telemetry = await sampler.stop()
    if (config.arms.some(a => a.kind === 'container'))
      await killCheckContainers(config.containerRuntime, checkId)
    folders.close()
  }
  if (telemetry.length) attachTelemetry(exec, telemetry)
  state.exec = exec
}

/**
 * Sequential stopping plans up to max-runs and stops each workload once decided; a power-cap sweep keeps
 * a fixed count (one controller per cap would be needed to look per cap).
 */
function sequentialFor(config: Config): SequentialController | null {
  if (config.powerCaps.length || (config.maxRuns <= config.runs && config.timeBudgetS === null)) return null
  return new SequentialController({
    minRuns: config.runs,
    maxRuns: config.maxRuns,
    timeBudgetS: config.timeBudgetS,
    maxOverheadPct: config.maxOverheadPct,
    alpha: config.alpha,
    baselineEnv: config.arms[0]?.label ?? 'native',
    candidateEnvs: config.arms.slice(1).map(a => a.label),
    gatedWorkloads: Math.max(1, workloadsGatedBySamples(config.definitions, config.gateIoThroughput).length)
  })
}

/** The nvidia-smi sampler for a GPU check with telemetry on; what is not sampled goes into not-measured. */
async function startTelemetry(
  config: Config,
  writer: ResultsWriter,
  state: CheckState
): Promise<TelemetrySampler | null> {
  if (!config.telemetry) {
    state.notMeasured.push({ what: 'GPU telemetry', why: 'telemetry: false' })
    return null
  }
  if (config.device !== 'gpu') return null
  const started = await TelemetrySampler.tryStart({
    csvPath: writer.paths.telemetry,
    device: config.device,
    onWarning: m => state.warnings.push(`telemetry: ${m}`)
  })
  if (!started.sampler)
    state.notMeasured.push({
      what: 'GPU telemetry (utilization, clocks, power, throttling)',
      why: started.reason
    })
  return started.sampler ?? null
}

/** Telemetry onto the runs: each run's window (its own GPU's samples when pinned), its measured region, throttling. */
function attachTelemetry(exec: ExecuteResult, telemetry: TelemetrySample[]): void {
  // Pinned processes get their own GPU's samples; an unpinned one gets every GPU's.
  const windows = attribute(
    telemetry,
    exec.runs.map(r => ({ start_ms: r.start_ms, end_ms: r.end_ms, gpu_index: r.gpu }))
  )
  exec.runs = exec.runs.map((r, i) => (windows[i] ? withTelemetry(r, windows[i]) : r))
  // And over the measured region the workload marked: start-up must not dilute it.
  exec.runs = exec.runs.map(r =>
    r.regions?.length ? { ...r, region: regionTelemetry(telemetry, r.regions, r.gpu) } : r
  )
  const runKey = (r: {
    workload: string
    environment: string
    run: number
    params: Record<string, unknown>
  }): string => `${r.workload}\u0000${r.environment}\u0000${r.run}\u0000${capOf(r.params) ?? ''}`
  const throttled = new Set(exec.runs.filter(r => !r.warmup && r.throttled_samples > 0).map(runKey))
  for (const s of exec.samples) if (throttled.has(runKey(s))) s.throttled = true
}

/** A check killed mid-sweep left its GPUs capped: put the limits back before measuring anything. */
async function restoreLeftoverCaps(present: PresentGpu[], logger: Logger, warnings: string[]): Promise<void> {
  for (const file of leftoverRestoreFiles()) {
    const r = await restoreFromFile(file, 'nvidia-smi', present)
    if (r === null) continue
    for (const l of r.restored)
      logger.warn(
        `power limit of GPU ${l.gpu} put back to ${l.limit_w} W (left capped by an earlier check, ${file})`
      )
    for (const f of r.failures)
      warnings.push(`a power limit left by an earlier check could not be put back: ${f}`)
  }
}
