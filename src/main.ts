/**
 * The action: read inputs once into a validated Config, refuse untrusted fork PRs on self-hosted
 * runners, run the check, publish (summary, outputs, comment, artifacts) and fail the step when asked.
 */
import * as core from '@actions/core'
import { loadConfig, type RawInputs } from './config.js'
import { Inputs, Outputs } from './constants.js'
import { CheckFailedError, getErrorMessage } from './errors.js'
import { checkEventTrust } from './trust.js'
import { actionsLogger } from './util/log.js'

function readInputs(): RawInputs {
  const raw: RawInputs = {}
  for (const name of Object.values(Inputs)) {
    const v = core.getInput(name)
    if (v !== '') raw[name] = v
  }
  return raw
}

export async function run(): Promise<void> {
  try {
    const inputs = readInputs()
    if (inputs[Inputs.GithubToken]) core.setSecret(inputs[Inputs.GithubToken])
    const config = loadConfig({ inputs, workspace: process.env.GITHUB_WORKSPACE ?? process.cwd() })
    const trust = checkEventTrust(process.env, config.allowForkPrs)
    for (const w of trust.warnings) core.warning(w)
    if (trust.refuse) {
      core.setOutput(Outputs.Verdict, 'error')
      core.setFailed(trust.refuse)
      return
    }
    const { runCheckAction } = await import('./action-check.js')
    await runCheckAction(config, actionsLogger)
  } catch (error) {
    // A failed check already set its verdict (regression, gate failure); anything else is an error.
    if (!(error instanceof CheckFailedError)) core.setOutput(Outputs.Verdict, 'error')
    core.setFailed(getErrorMessage(error))
  }
}
