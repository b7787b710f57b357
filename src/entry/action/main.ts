/**
 * The action: read inputs once into a validated Config, refuse untrusted fork PRs on self-hosted
 * runners, run the check, publish (summary, outputs, comment, artifacts) and fail the step when asked.
 */
import * as core from '@actions/core'
import {
  loadAggregateConfig,
  loadAnalyzeConfig,
  loadConfig,
  loadTrendConfig,
  modeOf,
  type RawInputs
} from '../../config/index.js'
import { Inputs, Outputs, State } from '../../types/inputs.js'
import { CheckFailedError, getErrorMessage } from '../../util/errors.js'
import { leftoverRestoreFiles, restoreFromFile, stateDirProblem } from '../../execute/index.js'
import { checkEventTrust } from './trust.js'
import { actionsLogger, failStep } from '../../util/log.js'
import { RunnerFileError, checkRunnerFiles, saveState, setOutput } from '../../util/runner-files.js'
import { registerEnvSecrets, registerSecret } from '../../util/secrets.js'

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
 * The post step (post-if: always()): a main step killed mid-sweep left the GPUs at a cap; put the
 * original limits back from its restore file. Nothing to do when no sweep ran or it restored them itself.
 */
export async function post(): Promise<void> {
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

export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') return post()
  try {
    const inputs = readInputs()
    // Masked whole and line by line, before anything can print it (util/secrets.ts).
    registerSecret(inputs[Inputs.GithubToken], part => core.setSecret(part))
    // So are the values of secret-named variables a workflow put in `env:` (NVIDIA_NGC_PAT, …).
    registerEnvSecrets(process.env, part => core.setSecret(part))
    checkRunnerFiles()
    saveState(State.IsPost, 'true')
    const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd()
    if (modeOf(inputs) === 'aggregate') {
      // Reads only uploaded result files and runs no workload: no GPU, fork or token concerns.
      const { runAggregateAction } = await import('./aggregate.js')
      await runAggregateAction(loadAggregateConfig({ inputs, workspace }))
      return
    }
    if (modeOf(inputs) === 'analyze') {
      // Runs no workload, but publishes like a check (comment, Check run, token): the check's trust rules.
      const cfg = loadAnalyzeConfig({ inputs, workspace })
      const trust = checkEventTrust(process.env, cfg.allowForkPrs)
      for (const w of trust.warnings) actionsLogger.warn(w)
      if (trust.refuse) return fail(trust.refuse, true)
      const { runAnalyzeAction } = await import('./analyze.js')
      await runAnalyzeAction(cfg, workspace)
      return
    }
    if (modeOf(inputs) === 'trend') {
      // Reads the baseline file's history and runs no workload; the fork rule still applies (it may open issues).
      const cfg = loadTrendConfig({ inputs, workspace })
      const trust = checkEventTrust(process.env, false)
      if (trust.refuse) {
        core.setOutput(Outputs.Verdict, 'error')
        failStep(trust.refuse)
        return
      }
      const { runTrendAction } = await import('./trend.js')
      await runTrendAction(cfg, workspace)
      return
    }
    const config = loadConfig({ inputs, workspace })
    if (config.powerCaps.length) saveState(State.PowerRestoreFile, 'true')
    // A fork's config-file commands run only where its code may run at all (allow-fork-prs).
    const trust = checkEventTrust(
      process.env,
      config.allowForkPrs,
      config.commands.filter(c => c.source === 'config-file').map(c => c.name)
    )
    for (const w of trust.warnings) actionsLogger.warn(w)
    if (trust.refuse) return fail(trust.refuse, true)
    const { runCheckAction } = await import('./check.js')
    await runCheckAction(config, actionsLogger, workspace)
  } catch (error) {
    // A failed check already set its verdict (regression, gate failure); anything else is an error.
    fail(getErrorMessage(error), !(error instanceof CheckFailedError) && !(error instanceof RunnerFileError))
  }
}
