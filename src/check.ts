/**
 * The check, one direction: config → preflight → plan → execute (+ telemetry) → analyze (+ baseline)
 * → report → gate. Only this file and the entry points wire stages together.
 */
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
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
  containerSpec,
  killCheckContainers,
  prepareIoFolders,
  type IoFolders,
  POWER_RESTORE_FILE,
  restoreFromFile,
  validateCaps,
  sweepPowerCaps,
  type SweepOutcome,
  nativeSpec,
  executePlan,
  type BlockDone,
  type ExecuteResult,
  TelemetrySampler,
  attribute,
  summarizeTelemetry,
  withTelemetry,
  workloadArgs,
  workloadParams,
  regionTelemetry,
  armStackDigest,
  armStacks
} from './execute/index.js'
import { laneLabel, resolveLanes, type Lane, buildPlan, type PlannedRun } from './plan/index.js'
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
import { containerGpuArgs, nativeGpuEnv } from './tools/gpu-access.js'
import { checkVerdict, headline, nothingMeasuredReason } from './gate/index.js'
import type { Logger } from './util/log.js'
import { VERSION } from './util/version.js'

export interface CheckOutcome {
  summary: CheckSummary
  markdown: string
}

/** The workloads folder: next to dist/ in a checkout or package, or GPU_OVERHEAD_WORKLOADS. */
export function workloadsDir(): string {
  if (process.env.GPU_OVERHEAD_WORKLOADS) return path.resolve(process.env.GPU_OVERHEAD_WORKLOADS)
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (const candidate of [path.join(here, '..', 'workloads'), path.join(here, '..', '..', 'workloads')]) {
    if (fs.existsSync(path.join(candidate, 'matmul.py'))) return candidate
  }
  throw new EnvironmentError(`cannot find the workloads folder next to ${here}; set GPU_OVERHEAD_WORKLOADS`)
}

function newCheckId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(3).toString('hex')}`
}

function fingerprintFor(
  arm: Arm,
  config: Config,
  pre: PreflightOutcome,
  lane: Lane | null = null
): Fingerprint {
  const gpu = (lane && pre.gpus?.gpus.find(g => g.index === lane.index)) ?? pre.gpus?.gpus[0] ?? null
  const image = arm.kind === 'container' && arm.image ? (pre.images.get(arm.image) ?? null) : null
  return {
    host: os.hostname(),
    device: config.device,
    gpu_name: config.device === 'gpu' ? (gpu?.name ?? null) : null,
    gpu_uuid: config.device === 'gpu' ? (gpu?.uuid ?? null) : null,
    driver: config.device === 'gpu' ? (pre.gpus?.driver ?? null) : null,
    cuda: config.device === 'gpu' ? (pre.gpus?.cuda_version ?? null) : null,
    image: arm.kind === 'container' ? arm.image : null,
    image_digest: image?.digest ?? null,
    runtime: arm.kind === 'container' ? config.containerRuntime : null,
    runtime_version: arm.kind === 'container' ? pre.runtimeVersion : null,
    gpu_access: arm.kind === 'container' && config.device === 'gpu' ? config.gpuAccess : null,
    mig_mode: gpu?.mig_mode ?? null,
    persistence_mode: gpu?.persistence_mode ?? null,
    clocks:
      gpu?.clocks_applications_graphics_mhz != null ? `${gpu.clocks_applications_graphics_mhz} MHz app` : null
  }
}

function processSpec(
  planned: PlannedRun,
  config: Config,
  checkId: string,
  dir: string,
  io: IoFolders | null,
  pre: PreflightOutcome,
  lane: Lane | null,
  hold: boolean
): ReturnType<typeof nativeSpec> {
  const timeoutMs = config.runTimeoutS * 1000
  const gpuInput = {
    device: config.device,
    gpuAccess: config.gpuAccess,
    gpus: config.gpus,
    driverMount: config.driverMount
  }
  if (planned.arm.kind === 'native') {
    const ioPaths = io
      ? { data: io.data.hostPath, checkpoint: io.checkpoint.hostPath }
      : { data: '', checkpoint: '' }
    return nativeSpec({
      python: config.python,
      workloadsDir: dir,
      workload: planned.workload,
      args: workloadArgs(planned.workload, config, ioPaths),
      env: nativeGpuEnv(gpuInput, lane),
      timeoutMs,
      hold
    })
  }
  const image = planned.arm.image ?? ''
  const imageId = pre.images.get(image)?.id
  // Run exactly what was inspected: the ID, never a tag that could move during the check.
  if (!imageId)
    throw new EnvironmentError(
      `image ${image || '(none)'} has no inspected image ID; preflight must inspect every image an arm runs (check the container-runtime and the image input)`
    )
  const ioPaths = io
    ? { data: io.data.containerPath, checkpoint: io.checkpoint.containerPath }
    : { data: '', checkpoint: '' }
  const mounts =
    planned.workload === 'io' && io
      ? [io.data, io.checkpoint].map(m => ({
          host: m.hostPath,
          container: m.containerPath,
          readOnly: m.readOnly
        }))
      : []
  return containerSpec({
    runtime: config.containerRuntime,
    imageRef: imageId,
    name: `gpu-overhead-${checkId}-${planned.order}${lane ? `-gpu${lane.index}` : ''}`,
    checkId,
    workloadsDir: dir,
    workload: planned.workload,
    args: workloadArgs(planned.workload, config, ioPaths),
    mounts,
    gpuArgs: containerGpuArgs(gpuInput, lane),
    env: {},
    timeoutMs,
    memory: config.containerMemory,
    hold
  })
}

/** Cancels the check on SIGINT/SIGTERM (Actions sends SIGINT then SIGTERM on cancel). */
function cancelOnSignals(logger: Logger): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  const handler = (sig: NodeJS.Signals): void => {
    logger.warn(`received ${sig}: stopping the check, keeping what was measured`)
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
  const nothing = exec.complete ? nothingMeasuredReason(analysis, config.workloads) : null
  return {
    schema: 'gpu-overhead/summary@1',
    check_id: checkId,
    tool_version: VERSION,
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    wall_s: (finished.getTime() - started.getTime()) / 1000,
    complete: exec.complete,
    incomplete_reason: exec.incompleteReason,
    verdict: checkVerdict(analysis, pre.results, exec.complete, config.workloads),
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
  const writer = ResultsWriter.open(config.out)
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
  const cancel = cancelOnSignals(logger)
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
  warnings.push(...pre.warnings)
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
  const restoreFile = path.join(config.out, POWER_RESTORE_FILE)
  if (config.device === 'gpu') await restoreLeftoverCaps(restoreFile, logger, warnings)
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
            config.workloads.filter(w => w !== 'io' || config.gateIoThroughput).length
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

/** A check killed mid-sweep left its GPUs capped: put the limits back before measuring anything. */
async function restoreLeftoverCaps(file: string, logger: Logger, warnings: string[]): Promise<void> {
  const r = await restoreFromFile(file)
  if (r === null) return
  for (const l of r.restored)
    logger.warn(
      `power limit of GPU ${l.gpu} put back to ${l.limit_w} W (left capped by an earlier check, ${file})`
    )
  for (const f of r.failures)
    warnings.push(`a power limit left by an earlier check could not be put back: ${f}`)
}
