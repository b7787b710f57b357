/**
 * The action: read inputs once into a validated Config, refuse untrusted fork PRs on self-hosted
 * runners, run the check, publish (summary, outputs, comment, artifacts) and fail the step when asked.
 */
import * as core from '@actions/core'
import * as path from 'node:path'
import {
  loadAggregateConfig,
  loadConfig,
  loadTrendConfig,
  modeOf,
  type RawInputs
} from '../../config/index.js'
import { Inputs, Outputs, State } from '../../types/inputs.js'
import { CheckFailedError, getErrorMessage } from '../../util/errors.js'
import { POWER_RESTORE_FILE, restoreFromFile } from '../../execute/index.js'
import { checkEventTrust } from './trust.js'
import { actionsLogger } from '../../util/log.js'

function readInputs(): RawInputs {
  const raw: RawInputs = {}
  for (const name of Object.values(Inputs)) {
    const v = core.getInput(name)
    if (v !== '') raw[name] = v
  }
  return raw
}

/**
 * The post step (post-if: always()): a main step killed mid-sweep left the GPUs at a cap; put the
 * original limits back from its restore file. Nothing to do when no sweep ran or it restored them itself.
 */
export async function post(): Promise<void> {
  const file = core.getState(State.PowerRestoreFile)
  if (!file) return
  try {
    const r = await restoreFromFile(file)
    if (r === null) return
    for (const l of r.restored) core.info(`power limit of GPU ${l.gpu} put back to ${l.limit_w} W`)
    for (const f of r.failures)
      core.warning(`could not put a power limit back: ${f} (limits saved in ${file})`)
  } catch (error) {
    core.warning(`could not put power limits back from ${file}: ${getErrorMessage(error)}`)
  }
}

export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') return post()
  try {
    core.saveState(State.IsPost, 'true')
    const inputs = readInputs()
    if (inputs[Inputs.GithubToken]) core.setSecret(inputs[Inputs.GithubToken])
    const workspace = process.env.GITHUB_WORKSPACE ?? process.cwd()
    if (modeOf(inputs) === 'aggregate') {
      // Reads only uploaded result files and runs no workload: no GPU, fork or token concerns.
      const { runAggregateAction } = await import('./aggregate.js')
      await runAggregateAction(loadAggregateConfig({ inputs, workspace }))
      return
    }
    if (modeOf(inputs) === 'trend') {
      // Reads the baseline file's history and runs no workload; the fork rule still applies (it may open issues).
      const cfg = loadTrendConfig({ inputs, workspace })
      const trust = checkEventTrust(process.env, false)
      if (trust.refuse) {
        core.setOutput(Outputs.Verdict, 'error')
        core.setFailed(trust.refuse)
        return
      }
      const { runTrendAction } = await import('./trend.js')
      await runTrendAction(cfg, workspace)
      return
    }
    const config = loadConfig({ inputs, workspace })
    if (config.powerCaps.length)
      core.saveState(State.PowerRestoreFile, path.join(config.out, POWER_RESTORE_FILE))
    const trust = checkEventTrust(process.env, config.allowForkPrs)
    for (const w of trust.warnings) core.warning(w)
    if (trust.refuse) {
      core.setOutput(Outputs.Verdict, 'error')
      core.setFailed(trust.refuse)
      return
    }
    const { runCheckAction } = await import('./check.js')
    await runCheckAction(config, actionsLogger, workspace)
  } catch (error) {
    // A failed check already set its verdict (regression, gate failure); anything else is an error.
    if (!(error instanceof CheckFailedError)) core.setOutput(Outputs.Verdict, 'error')
    core.setFailed(getErrorMessage(error))
  }
}
