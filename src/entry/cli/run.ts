/** `gpu-overhead run`: the check command; prints the verdict line and where things are, returns the gate's exit code. */
import { checkCommand } from '../../commands/check.js'
import type { Config } from '../../config/index.js'
import type { Logger } from '../../util/log.js'
import { writeMarkdownOut, writeOut } from '../../util/log.js'

export async function runCheckCli(config: Config, logger: Logger): Promise<number> {
  const { summary, markdown, gate } = await checkCommand(config, logger)
  // The report's verdict line is markdown: published text, with its mention and link breaks kept.
  writeMarkdownOut(markdown.split('\n').find(l => l.trim() !== '') ?? '')
  writeOut(`report: ${summary.paths.report}\nresults: ${summary.paths.out}`)
  return gate.exitCode
}
