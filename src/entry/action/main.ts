/**
 * The action: read the INPUT_* variables once, let config/ parse the mode's inputs, refuse untrusted fork PRs
 * on self-hosted runners, and hand the mode to its adapter (check.ts, analyze.ts, trend.ts, aggregate.ts),
 * which runs the command and publishes (summary, outputs, comment, artifacts); fail the step when asked.
 */
import * as core from '@actions/core'
import {
  actionSource,
  loadConfig,
  modeOf,
  parseAggregate,
  parseAnalyze,
  parseTrend,
  type RawInputs
} from '../../config/index.js'
import { Inputs, Outputs, State } from '../../types/inputs.js'
import { CheckFailedError, getErrorMessage } from '../../util/errors.js'
import {
  killCheckContainers,
  leftoverRestoreFiles,
  restoreFromFile,
  stateDirProblem
} from '../../execute/index.js'
import { checkEventTrust } from './trust.js'
import { actionsLogger, failStep } from '../../util/log.js'
import {
  RunnerFileError,
  checkRunnerFiles,
  restoreRunnerFiles,
  saveState,
  setOutput,
  watchRunnerFiles
} from '../../util/runner-files.js'
import { announceSecretsTo, registerEnvSecrets, registerSecret } from '../../util/secrets.js'
import { useSettingNames } from '../../util/setting-name.js'

function readInputs(): RawInputs {
  const raw: RawInputs = {}
  // The runner sets INPUT_<NAME> for every input (its default when the workflow names none), so a
  // variable that is there but empty is the workflow's own `''`: kept, for inputs where empty means none.
  for (const name of Object.values(Inputs))
    if (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] !== undefined)
      raw[name] = core.getInput(name)
  return raw
}

/**
 * A main step killed with SIGKILL (a cancelled job, the runner's timeout) cannot clean up: its containers stay,
 * one paused by turns among them, holding the GPU. Removed here by the check's label, which the main step
 * recorded in its state before the first container started (GITHUB_STATE is watched: runner-files.ts).
 */
async function removeLeftContainers(): Promise<void> {
  const checkId = core.getState(State.CheckId)
  // One engine per launcher the arms used (docker,podman), each asked in turn.
  const runtimes = core.getState(State.ContainerRuntime).split(',')
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(checkId)) return
  for (const runtime of runtimes) {
    if (runtime !== 'docker' && runtime !== 'podman') continue
    try {
      const left = await killCheckContainers(runtime, checkId)
      if (left.length)
        actionsLogger.warn(`containers of check ${checkId} could not be removed: ${left.join(', ')}`)
    } catch (error) {
      actionsLogger.warn(`could not remove the containers of check ${checkId}: ${getErrorMessage(error)}`)
    }
  }
}

/**
 * The post step (post-if: always()): a main step killed mid-sweep left the GPUs at a cap; put the
 * original limits back from its restore file. Nothing to do when no sweep ran or it restored them itself.
 */
export async function post(): Promise<void> {
  await removeLeftContainers()
  // Only a job that asked for power caps restores anything, and only from the tool's own HMAC'd files
  // outside the tree (execute/restore-file.ts).
  if (core.getState(State.PowerRestoreFile) !== 'true') return
  const unsafe = stateDirProblem()
  if (unsafe) actionsLogger.warn(unsafe)
  for (const file of leftoverRestoreFiles()) {
    try {
      const r = await restoreFromFile(file)
      if (r === null) continue
      for (const l of r.restored) actionsLogger.info(`power limit of GPU ${l.gpu} put back to ${l.limit_w} W`)
      for (const f of r.failures)
        actionsLogger.warn(`could not put a power limit back: ${f} (limits saved in ${file})`)
    } catch (error) {
      actionsLogger.warn(`could not put power limits back from ${file}: ${getErrorMessage(error)}`)
    }
  }
}

/** Fails the step with one redacted line; a broken GITHUB_OUTPUT must not turn it into a stack trace. */
function fail(message: string, verdict: boolean): void {
  if (verdict)
    try {
      setOutput(Outputs.Verdict, 'error')
    } catch {
      // The output file itself is what is broken: the message below says so.
    }
  failStep(message)
}

interface TrustAsk {
  allowForkPrs: boolean
  /** The config file's commands, named in the refusal (a fork's own programs). */
  configCommands?: readonly string[]
  /** Trend reads a file and runs nothing: its refusal is logged without the event's warnings. */
  quiet?: boolean
}

/** The fork refusal (trust.ts judges the event): logs its warnings, fails the step when refused; true then. */
function refusedByTrust(ask: TrustAsk): boolean {
  const trust = checkEventTrust(process.env, ask.allowForkPrs, ask.configCommands)
  if (!ask.quiet) for (const w of trust.warnings) actionsLogger.warn(w)
  if (trust.refuse) fail(trust.refuse, true)
  return trust.refuse !== null
}

/** Reads the mode's inputs once (config/), applies the trust rules, and hands them to the mode's adapter. */
async function runMode(inputs: RawInputs, workspace: string): Promise<void> {
  const mode = modeOf(inputs)
  // The mode's parser is the CLI command's too (config/mode-*.ts); the action's source reads its inputs.
  const source = actionSource({ inputs, workspace })
  if (mode === 'aggregate') {
    // Reads only uploaded result files and runs no workload: no GPU, fork or token concerns.
    const { runAggregateAction } = await import('./aggregate.js')
    return runAggregateAction(parseAggregate(source))
  }
  if (mode === 'analyze') {
    // Runs no workload, but publishes like a check (comment, Check run, token): the check's trust rules.
    const cfg = parseAnalyze(source)
    if (refusedByTrust({ allowForkPrs: cfg.allowForkPrs })) return
    const { runAnalyzeAction } = await import('./analyze.js')
    return runAnalyzeAction(cfg, workspace)
  }
  if (mode === 'trend') {
    // Reads the baseline file's history and runs no workload; the fork rule still applies (it may open issues).
    const cfg = parseTrend(source)
    if (refusedByTrust({ allowForkPrs: false, quiet: true })) return
    const { runTrendAction } = await import('./trend.js')
    return runTrendAction(cfg, workspace)
  }
  const config = loadConfig({ inputs, workspace })
  if (config.powerCaps.length) saveState(State.PowerRestoreFile, 'true')
  // A fork's config-file commands run only where its code may run at all (allow-fork-prs).
  const configCommands = config.commands.filter(c => c.source === 'config-file').map(c => c.name)
  if (refusedByTrust({ allowForkPrs: config.allowForkPrs, configCommands })) return
  const { runCheckAction } = await import('./check.js')
  return runCheckAction(config, actionsLogger, workspace)
}

export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') return post()
  // Every message that names a setting names the input the workflow sets (`device: cpu`), not a CLI flag.
  useSettingNames('action')
  try {
    const inputs = readInputs()
    // Every secret found from here on (a command's --api-key value, …) reaches the runner's masking too.
    announceSecretsTo(part => core.setSecret(part))
    // Masked whole and line by line, before anything can print it (util/secrets.ts).
    registerSecret(inputs[Inputs.GithubToken], part => core.setSecret(part))
    // So are the values of secret-named variables a workflow put in `env:` (NVIDIA_NGC_PAT, …).
    registerEnvSecrets(process.env, part => core.setSecret(part))
    checkRunnerFiles()
    saveState(State.IsPost, 'true')
    // From here on, what the step's file commands hold is the action's own writes only (util/runner-files.ts).
    watchRunnerFiles()
    await runMode(inputs, process.env.GITHUB_WORKSPACE ?? process.cwd())
  } catch (error) {
    // A failed check already set its verdict (regression, gate failure); anything else is an error.
    fail(getErrorMessage(error), !(error instanceof CheckFailedError) && !(error instanceof RunnerFileError))
  } finally {
    // A command's write to GITHUB_ENV (NODE_OPTIONS for the later steps) or a forged output: undone, and a failure.
    const changed = restoreRunnerFiles()
    for (const c of changed) fail(c, true)
  }
}
