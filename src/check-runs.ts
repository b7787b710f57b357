/**
 * The runs of one check (check.ts prepares them): telemetry around them, every process spec, the plan's
 * steps at the current power limit or swept over the caps; what ran goes into the check's state.
 */
import { appendAll } from './util/arrays.js'
import {
  definitionOf,
  gateMetricSet,
  takesTurns,
  type Config,
  type WorkloadDefinition
} from './config/index.js'
import {
  executeSteps,
  gpuCotenantProbe,
  killCheckContainers,
  processSpec,
  RunFolders,
  sweepPowerCaps,
  workRoot,
  type BlockDone,
  type ExecuteResult
} from './execute/index.js'
import type { SequentialController } from './analyze/index.js'
import type { CheckState } from './gate/index.js'
import { planExecution, type Layout, type PlannedRun } from './plan/index.js'
import type { Lane } from './types/index.js'
import { fingerprintCache, type PreflightOutcome } from './preflight/index.js'
import type { ResultsWriter } from './results/index.js'
import type { TelemetrySample } from './types/index.js'
import { RUN_LABEL } from './tools/docker.js'
import { imageRuntimes, launchersLacking } from './launchers/index.js'
import type { Logger } from './util/log.js'
import { attachTelemetry, startTelemetry } from './check-steps.js'

/** One check in progress: what every step reads. */
export interface CheckRun {
  config: Config
  logger: Logger
  checkId: string
  /** The workloads' folder (execute/ workloadsDir). */
  dir: string
  writer: ResultsWriter
  state: CheckState
  signal: AbortSignal
}

/** What preflight and the plan decided, for the runs. */
export interface PreparedRuns {
  pre: PreflightOutcome
  io: IoFolders
  lanes: Lane[] | null
  restoreFile: string
  sequential: SequentialController | null
  plan: PlannedRun[]
  layout: Layout
}

/** The io workload's folders (execute/ prepareIoFolders), or null. */
type IoFolders = Parameters<typeof processSpec>[0]['io']
type RunPlan = (cap: number | null) => Promise<ExecuteResult>

/** Every power cap in turn (limits always restored), or the plan once at the current limit. */
async function runOrSweep(run: CheckRun, prepared: PreparedRuns, runPlan: RunPlan): Promise<ExecuteResult> {
  const { config, logger, signal, state } = run
  const { lanes, restoreFile } = prepared
  if (!config.powerCaps.length) return runPlan(null)
  const noCaps = launchersLacking(config.arms, config.containerRuntime, 'powerCaps')
  if (noCaps.length) {
    state.notMeasured.push({
      what: `power caps ${config.powerCaps.join(', ')} W`,
      why: `not measured: launcher ${noCaps.join(', ')} cannot set power limits from this host`
    })
    return runPlan(null)
  }
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
    state.notMeasured.push({
      what: `power caps ${config.powerCaps.join(', ')} W`,
      why: sweep.power.reason ?? ''
    })
  if (!sweep.power.restored)
    state.warnings.push(
      `power limits NOT put back: ${sweep.power.original_limits_w.map(o => `GPU ${o.gpu} ${o.limit_w} W`).join(', ')}; ` +
        `set them with nvidia-smi -i <gpu> -pl <watts> (saved in ${restoreFile})`
    )
  return sweep.exec
}

/** Telemetry, the runs, then the check's containers and folders cleaned up whatever happened. */
export async function measureRuns(run: CheckRun, prepared: PreparedRuns): Promise<void> {
  const { config, logger, checkId, dir, writer, state, signal } = run
  const { pre, io, lanes, sequential } = prepared
  const sampler = await startTelemetry(config, writer, state)
  // A launcher that cannot list its GPU's other processes from this host: the probe is not run, and said so.
  const noCotenantProbe = launchersLacking(config.arms, config.containerRuntime, 'cotenantProbe')
  if (noCotenantProbe.length && config.device === 'gpu')
    state.notMeasured.push({
      what: 'other processes on the GPU (co-tenant probe)',
      why: `not measured: launcher ${noCotenantProbe.join(', ')} has no host-side view of its GPU`
    })
  const fingerprintOf = fingerprintCache(config, pre)
  // Every process's own folders (event channel, io checkpoints), under one private folder of this check, in
  // the work folder a remote engine shares (RUNNER_TEMP, else the results folder).
  const folders = RunFolders.open(checkId, workRoot(config.out))
  // Each workload's definition (how it starts, its args and params, how its results are read), by name.
  const definition = (name: string): WorkloadDefinition => definitionOf(config.definitions, name)
  // Turns on every GPU, in every layout (plan/steps.ts): the decode state is the same in each.
  const steps = planExecution(prepared.plan, lanes ?? [null], prepared.layout, w => takesTurns(config, w))
  const runPlan: RunPlan = cap =>
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
      device: config.device,
      fingerprintFor: fingerprintOf,
      paramsFor: w => definition(w).params(config),
      ...(cap === null ? {} : { powerCapW: cap }),
      writer,
      logger,
      signal,
      scoring: { gateIoThroughput: config.gateIoThroughput, gateMetrics: gateMetricSet(config.gateMetrics) },
      gpuCotenants: gpuCotenantProbe(noCotenantProbe.length ? 'cpu' : config.device),
      ...(sequential ? { afterBlock: (d: BlockDone) => sequential.afterBlock(d) } : {})
    })
  let exec: ExecuteResult
  let telemetry: TelemetrySample[] = []
  try {
    exec = await logger.group('Runs', () => runOrSweep(run, prepared, runPlan))
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
    // Every engine an arm ran on (arms may use different launchers: docker:A,podman:B).
    for (const runtime of imageRuntimes(config.arms, config.containerRuntime)) {
      const left = await killCheckContainers(runtime, checkId)
      const ids = left.slice(0, 10).join(' ')
      if (left.length > 0)
        logger.warn(
          `${left.length} container(s) of this check were still there after ${runtime} rm -f ` +
            `(the engine did not finish removing them in time): ${ids}. ` +
            `They carry the label ${RUN_LABEL}=${checkId}; remove them with: ${runtime} rm -f ${ids}`
        )
    }
    folders.close()
    reportPrivileged(folders.privileged, logger)
  }
  if (telemetry.length) attachTelemetry(exec, telemetry)
  appendAll(state.warnings, exec.warnings ?? [])
  state.exec = exec
}

/** What a process left for later steps to gain privileges with (run-folders.ts removed it): said in a warning. */
function reportPrivileged(found: readonly string[], logger: Logger): void {
  if (found.length === 0) return
  logger.warn(
    `a process left ${found.length} setuid/setgid file(s) or device, FIFO or socket node(s) in the folders it ` +
      `could write (later steps could use them to gain privileges): ${found.slice(0, 10).join('; ')}`
  )
}
