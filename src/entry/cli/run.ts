/** `gpu-overhead run`: the whole check; prints the verdict line and where things are, returns the gate's exit code. */
import { runCheck } from '../../check.js'
import type { Config } from '../../config/index.js'
import { checkGate } from '../../gate/index.js'
import type { Logger } from '../../util/log.js'
import { writeOut } from '../../util/log.js'

export async function runCheckCli(config: Config, logger: Logger): Promise<number> {
  const { summary, markdown } = await runCheck(config, logger)
  writeOut(markdown.split('\n').find(l => l.trim() !== '') ?? '')
  writeOut(`report: ${summary.paths.report}\nresults: ${summary.paths.out}`)
  return checkGate(summary, config.failOnRegression).exitCode
}
