/**
 * The check, one direction: config → preflight → plan → execute (+ telemetry) → analyze (+ baseline)
 * → report → gate. Only this file and the entry points wire stages together. Over 300 lines: the
 * ordering of the stages and the state a fault must keep (what was measured so far) live here together.
 */
import { randomBytes } from 'node:crypto'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  analyzeRecords,
  compareWithBaseline,
  decideFamily,
  multiGpuSummary,
  multiGpuWarnings,
  pooledRows,
  capOf,
  edpOptimal,
  powerCapRows,
  latencyPercentiles,
  runSeries,
  explainCheck,
  measuredWork,
  measuredWorkNote,
  SequentialController
} from './analyze/index.js'
import type { Config } from './config/index.js'
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
  type SweepOutcome,
  executePlan,
  type BlockDone,
  type ExecuteResult,
  TelemetrySampler,
  attribute,
  summarizeTelemetry,
  withTelemetry,
  workloadParams,
  regionTelemetry,
  armStackDigest,
  armStacks
} from './execute/index.js'
import { laneLabel, resolveLanes, type Lane, buildPlan } from './plan/index.js'
import { ResultsWriter } from './results/index.js'
import { preflightStage, type PreflightOutcome } from './preflight/index.js'
import { buildReport } from './report/index.js'
import type {
  Arm,
  CheckSummary,
  Fingerprint,
  MultiGpuSummary,
  PowerCapSummary,
  TelemetrySample
} from './types/index.js'
import { checkVerdict, headline, nothingMeasuredReason } from './gate/index.js'
import type { Logger } from './util/log.js'
import { VERSION } from './util/version.js'
import { processSpec, workloadsDir, workloadsGatedBySamples } from './execute/index.js'
import { fingerprintFor } from './preflight/index.js'
import { appendAll } from './util/arrays.js'
import { killAllTrees } from './util/process-tree.js'

export interface CheckOutcome {
  summary: CheckSummary
  markdown: string
}

function newCheckId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`
}

/** Cancels the check on SIGINT/SIGTERM (Actions sends SIGINT then SIGTERM on cancel). */
function cancelOnSignals(
  logger: Logger,
  forcedCleanup: () => void
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  const handler = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      // A second signal: leave now. The INCOMPLETE report written before the check started stays; every
      // process tree still running is killed, containers removed (bounded), nothing is awaited.
      logger.warn(`received ${sig} again: exiting now; the results folder keeps the INCOMPLETE report`)
      killAllTrees()
      forcedCleanup()
      process.exit(128 + (os.constants.signals[sig] ?? 1))
    }
    logger.warn(
      `received ${sig}: stopping the check, keeping what was measured (send it again to exit at once)`
    )
    controller.abort()
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    }
  }
}

/** What a check knows so far; the summary is assembled from it at the start, on a fault and at the end. */
interface CheckState {
  pre: PreflightOutcome
  exec: ExecuteResult
  analysis: ReturnType<typeof analyzeRecords> | null
  baseline: Awaited<ReturnType<typeof compareWithBaseline>> | null
  warnings: string[]
  notMeasured: { what: string; why: string }[]
  /** GPUs the check pinned its processes to (null: one unpinned process, e.g. CPU). */
  lanes: Lane[] | null
  power: SweepOutcome | null
  multiGpu: MultiGpuSummary | null
  /** Sequential stopping (null: a fixed count, e.g. a power-cap sweep). */
  sequential: SequentialController | null
}

function assembleSummary(
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
  const imageEnv = Object.fromEntries(
    config.arms.flatMap(a => {
      const facts = a.kind === 'container' && a.image ? pre.images.get(a.image) : undefined
      return facts ? [[a.label, facts.env]] : []
    })
  )
  // Nothing measured is never a pass: say why first, so the verdict line names it.
  const sampleGated = workloadsGatedBySamples(config.workloads, config.gateIoThroughput)
  // A check of rule-gated workloads only (io by its mount rule) has no gated samples by design.
  const requireGated = sampleGated.length > 0
  const nothing = exec.complete && requireGated ? nothingMeasuredReason(analysis, sampleGated) : null
  return {
    schema: 'gpu-overhead/summary@1',
    check_id: checkId,
    tool_version: VERSION,
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    wall_s: (finished.getTime() - started.getTime()) / 1000,
    complete: exec.complete,
    incomplete_reason: exec.incompleteReason,
    verdict: checkVerdict(analysis, pre.results, exec.complete, sampleGated, requireGated),
    ...headline(analysis),
    config: {
      image: config.image,
      workloads: config.workloads,
      runs: config.runs,
      device: config.device,
      gpu_access: config.gpuAccess,
      arms: config.arms.map(a => a.label),
      max_overhead_pct: config.maxOverheadPct,
      alpha: config.alpha
    },
    arms: config.arms,
    // The GPU the check ran on (its first, when several): not simply the host's first GPU.
    fingerprints: Object.fromEntries(
      config.arms.map(a => [
        a.label,
        {
          ...fingerprintFor(a, config, pre, state.lanes?.[0] ?? null),
          stack: armStackDigest(exec.runs, a.label)
        }
      ])
    ),
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
      imageEnv
    }),
    ...(state.sequential ? { sequential: state.sequential.summary() } : {}),
    measured_work: measuredWork(exec.runs),
    not_measured: state.notMeasured,
    warnings: nothing === null ? state.warnings : [nothing, ...state.warnings],
    paths: { ...paths }
  }
}

function powerSummary(sweep: SweepOutcome, runs: ExecuteResult['runs']): PowerCapSummary {
  const rows = powerCapRows(runs)
  return { ...sweep, rows, edp_optimal: edpOptimal(rows) }
}

/** report.md and summary.json, each replaced whole or not at all; returns what could not be written. */
function writeReportFiles(writer: ResultsWriter, summary: CheckSummary): string[] {
  return [
    writer.replaceFile(writer.paths.report, buildReport(summary, { maxChars: Infinity })),
    writer.replaceFile(writer.paths.summary, `${JSON.stringify(summary, null, 2)}\n`)
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
  const state: CheckState = {
    pre: { results: [], gpus: null, images: new Map(), runtimeVersion: null, warnings: [] },
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
    power: null,
    multiGpu: null,
    sequential: null
  }
  // Until the check writes its own report, the folder says it is unfinished: a kill -9, a crash or a full
  // disk leaves this INCOMPLETE report and summary behind, never a stale or torn one.
  const unwritable = writeReportFiles(writer, assembleSummary(config, checkId, started, state, writer.paths))
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
    writeReportFiles(writer, assembleSummary(config, checkId, started, state, writer.paths))
    throw error
  } finally {
    cancel.dispose()
  }

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
  if (state.analysis && exec.runs.length)
    state.analysis.notes = [...(state.analysis.notes ?? []), measuredWorkNote(measuredWork(exec.runs))]
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

  let summary = assembleSummary(config, checkId, started, state, writer.paths)
  const failed = writeReportFiles(writer, summary)
  if (failed.length) {
    // The placeholder (INCOMPLETE) stays on disk; what is returned says the same, so no exit code passes.
    exec.complete = false
    exec.incompleteReason = [
      exec.incompleteReason,
      `${failed.join('; ')} (the results folder keeps an INCOMPLETE placeholder)`
    ]
      .filter(Boolean)
      .join('; ')
    summary = assembleSummary(config, checkId, started, state, writer.paths)
    logger.warn(exec.incompleteReason)
  }
  // The file keeps everything; the comment/summary copy is capped at GitHub's 65,000 characters.
  return { summary, markdown: buildReport(summary) }
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
  const hasContainer = config.arms.some(a => a.kind === 'container')
  const io = config.workloads.includes('io')
    ? prepareIoFolders(config.out, config.data, config.checkpoint, config.device === 'cpu' ? 32 : 256)
    : null
  const pre = await logger.group('Preflight: GPU, driver gate, image, mounts', () =>
    preflightStage(config, hasContainer ? io : null, checkId)
  )
  state.pre = pre
  for (const p of pre.results) {
    const line = `${p.name}: ${p.status} — ${p.message}${p.fix ? ` Fix: ${p.fix}` : ''}`
    if (p.status === 'pass' || p.status === 'skip') logger.info(line)
    else logger.warn(line)
  }
  appendAll(warnings, pre.warnings)
  if (!hasContainer)
    notMeasured.push({
      what: 'container overhead',
      why: `no container arm (arms: ${config.arms.map(a => a.label).join(', ')}): this is a calibration of the native side only`
    })
  if (config.device === 'cpu')
    notMeasured.push({
      what: 'GPU work, CUDA init, telemetry, energy',
      why: 'device is cpu: the workloads ran on the CPU'
    })

  state.exec = { samples: [], runs: [], complete: false, incompleteReason: null }
  let telemetry: TelemetrySample[] = []
  if (pre.results.some(p => p.status === 'fail')) {
    state.exec.incompleteReason = 'a preflight gate failed, so no workload was run'
    return
  }
  const lanes = config.device === 'gpu' && pre.gpus ? resolveLanes(config.gpus, pre.gpus.gpus) : null
  state.lanes = lanes
  // Outside the tree, HMAC'd, one per GPU set (docs/security.md): never a file from the checkout.
  const restoreFile = restoreFileFor((lanes ?? []).map(l => l.uuid ?? String(l.index)))
  if (config.device === 'gpu' && pre.gpus)
    await restoreLeftoverCaps(presentOf(pre.gpus.gpus), logger, warnings)
  if (config.powerCaps.length && lanes && pre.gpus) validateCaps(config.powerCaps, lanes, pre.gpus.gpus)
  // Sequential stopping plans up to max-runs and stops each workload once decided; a power-cap sweep keeps
  // a fixed count (one controller per cap would be needed to look per cap).
  const sequential =
    !config.powerCaps.length && (config.maxRuns > config.runs || config.timeBudgetS !== null)
      ? new SequentialController({
          minRuns: config.runs,
          maxRuns: config.maxRuns,
          timeBudgetS: config.timeBudgetS,
          maxOverheadPct: config.maxOverheadPct,
          alpha: config.alpha,
          baselineEnv: config.arms[0]?.label ?? 'native',
          candidateEnvs: config.arms.slice(1).map(a => a.label),
          gatedWorkloads: Math.max(
            1,
            workloadsGatedBySamples(config.workloads, config.gateIoThroughput).length
          )
        })
      : null
  state.sequential = sequential
  const plan = buildPlan({ ...config, runs: sequential ? config.maxRuns : config.runs })
  const multi = lanes && lanes.length > 1 ? lanes : null
  const processes = multi
    ? `${plan.length * multi.length} processes (${plan.length} slots × ${multi.length} GPUs at once: ${multi.map(laneLabel).join(', ')})`
    : `${plan.length} processes`
  const caps = config.powerCaps.length ? `, at each of ${config.powerCaps.join(', ')} W` : ''
  logger.info(
    `plan: ${processes}${caps} (${config.workloads.join(', ')} × ${config.arms.map(a => a.label).join(' / ')} × ${sequential ? `${config.runs} to ${config.maxRuns} runs, stopping when decided${config.timeBudgetS === null ? '' : ` or at ${config.timeBudgetS} s`}` : `${config.runs} runs`} + ${config.warmupRuns} warm-up), ${config.schedule} order, seed ${config.seed}`
  )
  let sampler: TelemetrySampler | null = null
  if (config.telemetry && config.device === 'gpu') {
    const started = await TelemetrySampler.tryStart({
      csvPath: writer.paths.telemetry,
      device: config.device,
      onWarning: m => warnings.push(`telemetry: ${m}`)
    })
    if (started.sampler) sampler = started.sampler
    else
      notMeasured.push({
        what: 'GPU telemetry (utilization, clocks, power, throttling)',
        why: started.reason
      })
  } else if (!config.telemetry) notMeasured.push({ what: 'GPU telemetry', why: 'telemetry: false' })
  const fingerprints = new Map<string, Fingerprint>()
  const fingerprintOf = (arm: Arm, lane: Lane | null): Fingerprint => {
    const key = `${arm.label}\u0000${lane?.index ?? ''}`
    let fp = fingerprints.get(key)
    if (!fp) fingerprints.set(key, (fp = fingerprintFor(arm, config, pre, lane)))
    return fp
  }
  const runPlan = (cap: number | null): Promise<ExecuteResult> =>
    executePlan(plan, {
      checkId,
      lanes: lanes ?? [null],
      specFor: (planned, lane, hold) => processSpec(planned, config, checkId, dir, io, pre, lane, hold),
      prestart: config.prestart,
      fingerprintFor: fingerprintOf,
      // The cap is part of the configuration: each cap is its own series, baseline entry and comparison.
      paramsFor: w =>
        cap === null ? workloadParams(w, config) : { ...workloadParams(w, config), power_cap_w: cap },
      writer,
      logger,
      signal,
      label: cap === null ? undefined : `${cap} W`,
      gateIoThroughput: config.gateIoThroughput,
      ...(sequential ? { afterBlock: (d: BlockDone) => sequential.afterBlock(d) } : {})
    })
  let exec: ExecuteResult
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
  }
  if (telemetry.length) {
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
  state.exec = exec
}

/** GPUs present, with their power-limit ranges (a restore file is checked against them). */
function presentOf(gpus: NonNullable<PreflightOutcome['gpus']>['gpus']): PresentGpu[] {
  const out: PresentGpu[] = []
  for (const g of gpus)
    if (g.uuid && g.power_min_limit_w !== null && g.power_max_limit_w !== null)
      out.push({ uuid: g.uuid, min_w: g.power_min_limit_w, max_w: g.power_max_limit_w })
  return out
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
