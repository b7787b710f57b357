/**
 * The check, one direction: config → preflight → plan → execute (+ telemetry) → analyze (+ baseline)
 * → report → gate. Only this file (with check-runs.ts and check-steps.ts) wires stages together; the check
 * command (commands/check.ts) runs it. What a fault must keep (what was measured so far) is the CheckState
 * (gate/summary-json.ts) that the steps fill; the summary is assembled from it at the start (an INCOMPLETE
 * placeholder), on a fault and at the end. runCheck and measure read as the stage order; the runs are in
 * check-runs.ts, the steps across stages (analysis with the baseline, telemetry, leftover caps) in check-steps.ts.
 */
import { toJson } from './util/json-intervals.js'
import * as path from 'node:path'
import { commandSourceLines, type Config } from './config/index.js'
import { EnvironmentError } from './util/errors.js'
import {
  prepareIoFolders,
  removeCheckContainersNow,
  restoreFileFor,
  validateCaps,
  workloadsDir
} from './execute/index.js'
import { buildPlan, describePlan, resolveLayout } from './plan/index.js'
import { ResultsWriter } from './results/index.js'
import { logPreflight, powerRanges, preflightStage } from './preflight/index.js'
import { buildReport } from './report/index.js'
import type { CheckSummary } from './types/index.js'
import { assembleSummary, initialCheckState } from './gate/index.js'
import type { Logger } from './util/log.js'
import { appendAll } from './util/arrays.js'
import { cancelOnSignals, newCheckId } from './util/cancel.js'
import { redactDeep } from './util/secrets.js'
import { imageRuntimes } from './launchers/index.js'
import { measureRuns, type CheckRun } from './check-runs.js'
import { analyzeCheck, restoreLeftoverCaps, sequentialFor } from './check-steps.js'

export interface CheckOutcome {
  summary: CheckSummary
  markdown: string
}

/** report.md and summary.json, each replaced whole or not at all; returns what could not be written. */
function writeReportFiles(writer: ResultsWriter, summary: CheckSummary): string[] {
  return [
    writer.replaceFile(writer.paths.report, buildReport(summary, { maxChars: Infinity })),
    writer.replaceFile(writer.paths.summary, toJson(redactDeep(summary)))
  ].filter((e): e is string => e !== null)
}

export async function runCheck(
  config: Config,
  logger: Logger,
  externalSignal?: AbortSignal,
  /** The label of its containers; the action records it before they start, for its post step. */
  checkId: string = newCheckId()
): Promise<CheckOutcome> {
  const started = new Date()
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
    for (const runtime of imageRuntimes(config.arms, config.containerRuntime))
      removeCheckContainersNow(runtime, checkId)
  })
  const signal = externalSignal ? AbortSignal.any([externalSignal, cancel.signal]) : cancel.signal
  try {
    await measure({ config, logger, checkId, dir, writer, state, signal })
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

/** Preflight, plan, runs and telemetry; fills `state` as it goes so a fault keeps what was measured. */
async function measure(run: CheckRun): Promise<void> {
  const { config, logger, checkId, state } = run
  const { warnings, notMeasured } = state
  for (const line of commandSourceLines(config)) logger.info(line)
  const hasContainer = config.arms.some(a => a.kind === 'container')
  const io = config.definitions.some(d => d.usesIoFolders)
    ? prepareIoFolders(config.out, config.data, config.checkpoint, config.device === 'cpu' ? 32 : 256)
    : null
  const pre = await logger.group(
    config.device === 'cpu' ? 'Preflight: image, mounts' : 'Preflight: GPU, driver gate, image, mounts',
    () => preflightStage(config, hasContainer ? io : null, checkId)
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
  const lanes = pre.lanes
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
  await measureRuns(run, { pre, io, lanes, restoreFile, sequential, plan, layout })
}
