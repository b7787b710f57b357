/**
 * `check` (the action's default mode and `gpu-overhead run`): the whole check (check.ts wires the stages)
 * and the gate both entries apply to it: the exit code, and the failure line when it fails.
 */
import { runCheck, type CheckOutcome } from '../check.js'
import type { Config } from '../config/index.js'
import { checkGate } from '../gate/index.js'
import type { Logger } from '../util/log.js'

export interface CheckCommandResult extends CheckOutcome {
  gate: ReturnType<typeof checkGate>
}

export async function checkCommand(
  config: Config,
  logger: Logger,
  checkId?: string
): Promise<CheckCommandResult> {
  const outcome = await runCheck(config, logger, undefined, checkId)
  // An error verdict fails too: the same gate for the action's step and the CLI's exit code.
  return { ...outcome, gate: checkGate(outcome.summary, config.failOnRegression) }
}
