/**
 * Steps of one check that act on its state across stages (check.ts runs them in order): its analysis with
 * the baseline, the sequential controller, telemetry start and attachment, leftover power limits. They
 * belong in analyze/ and execute/, with their inputs passed explicitly.
 */
import { launchersLacking } from './launchers/index.js'
import {
  analyzeRecords,
  capOf,
  compareWithBaseline,
  decideCheck,
  guardNativeModes,
  measuredWork,
  measuredWorkNote,
  multiGpuSummary,
  multiGpuWarnings,
  pooledRows,
  SequentialController,
  storedArmHistory
} from './analyze/index.js'
import type { Config } from './config/index.js'
import {
  attribute,
  leftoverRestoreFiles,
  regionTelemetry,
  restoreFromFile,
  TelemetrySampler,
  withTelemetry,
  workloadsGatedBySamples,
  type ExecuteResult,
  type PresentGpu
} from './execute/index.js'
import type { CheckState } from './gate/index.js'
import type { ResultsWriter } from './results/index.js'
import type { TelemetrySample } from './types/index.js'
import type { Logger } from './util/log.js'
import { setting } from './util/setting-name.js'

/** Analysis of what was measured: the arms, each GPU, the stored baseline, decided as one Holm family. */
export async function analyzeCheck(config: Config, state: CheckState): Promise<void> {
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
  const gateFailed = state.pre.results.some(p => p.status === 'fail')
  // Read before this check may be saved: the accepted checks' native processes, where a slow mode shows (T1).
  const nativeHistory = await storedArmHistory(config.baselinePath, rows, analyzeOpts.baselineEnv)
  state.baseline = exec.samples.length
    ? await compareWithBaseline(rows, {
        path: config.baselinePath,
        // Unless outputs may go anywhere, the file lies in the workspace: written by a walk that follows no link.
        root: config.baselinePath.startsWith(`${config.workspace ?? '\0'}/`) ? config.workspace : null,
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
  // stored-baseline comparisons are adjusted together, and a regression against the baseline counts. After a
  // sequential stop the arms' verdicts are then the sequential rule's (decideCheck says why in that order).
  if (fixed) {
    const decided = decideCheck(fixed, state.baseline?.comparisons ?? [], config, state.sequential)
    state.analysis = decided.analysis
    if (state.baseline) state.baseline = { ...state.baseline, comparisons: decided.baseline }
  } else state.analysis = null
  // A regression of the arms stands only where it also holds against the native level a stored slow mode implies
  // (analyze/native-modes.ts, issue 52 T1); without such a mode in the history nothing changes.
  if (state.analysis && nativeHistory.size > 0)
    state.analysis = guardNativeModes(state.analysis, nativeHistory, config)
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
}

/**
 * Sequential stopping plans up to max-runs and stops each workload once decided; a power-cap sweep keeps
 * a fixed count (one controller per cap would be needed to look per cap).
 */
export function sequentialFor(config: Config): SequentialController | null {
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
export async function startTelemetry(
  config: Config,
  writer: ResultsWriter,
  state: CheckState
): Promise<TelemetrySampler | null> {
  if (!config.telemetry) {
    state.notMeasured.push({ what: 'GPU telemetry', why: setting('telemetry', 'false') })
    return null
  }
  if (config.device !== 'gpu') return null
  // Host-side sampling means nothing for an arm whose GPU this host does not see (its launcher says so).
  const blind = launchersLacking(config.arms, config.containerRuntime, 'telemetry')
  if (blind.length) {
    state.notMeasured.push({
      what: 'GPU telemetry (utilization, clocks, power, throttling)',
      why: `not measured: launcher ${blind.join(', ')} has no host-side telemetry`
    })
    return null
  }
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
export function attachTelemetry(exec: ExecuteResult, telemetry: TelemetrySample[]): void {
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
export async function restoreLeftoverCaps(
  present: PresentGpu[],
  logger: Logger,
  warnings: string[]
): Promise<void> {
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
