/**
 * The CLI's commands, each on the source program.ts builds of its flags: config/ parses them through the same
 * parser per mode as the action's inputs where the mode is both (parseAnalyze, parseTrend, parseAggregate),
 * commands/ runs it; here its text is printed and its exit code returned. Every export is a command's handler.
 */
import {
  parseAggregate,
  parseAnalyze,
  parseGate,
  parseIoCheck,
  parseTrend,
  type CliSource
} from '../../config/index.js'
import { aggregateCommand } from '../../commands/aggregate.js'
import { analyzeCommand } from '../../commands/analyze.js'
import { gateCommand } from '../../commands/gate.js'
import { ioCheckCommand } from '../../commands/io-check.js'
import { trendCommand } from '../../commands/trend.js'
import { writeErr, writeMarkdownOut, writeOut } from '../../util/log.js'
import { runCommand } from './run-flags.js'

/**
 * Prints a command's text (one trailing newline) and hands back its exit code. Markdown is published text
 * (users paste it into PR comments): it passes the publishing sanitiser, whose mention and link breaks the
 * log's rules would strip.
 */
function printed(result: { text: string; exitCode: number }, format: string = 'text'): number {
  if (format === 'md') writeMarkdownOut(result.text)
  else writeOut(result.text)
  return result.exitCode
}

export async function analyzeCli(src: CliSource): Promise<number> {
  const opts = parseAnalyze(src)
  return printed(await analyzeCommand(opts), opts.format)
}

export async function gateCli(src: CliSource): Promise<number> {
  return printed(await gateCommand(parseGate(src)))
}

export async function ioCheckCli(src: CliSource): Promise<number> {
  return printed(await ioCheckCommand(parseIoCheck(src)))
}

export async function aggregateCli(src: CliSource): Promise<number> {
  const opts = parseAggregate(src)
  const result = aggregateCommand(opts)
  printed(result, opts.format)
  writeErr(`aggregate: ${result.paths.markdown}, ${result.paths.json}`)
  return Promise.resolve(result.exitCode)
}

export async function trendCli(src: CliSource): Promise<number> {
  const opts = parseTrend(src)
  const result = await trendCommand(opts)
  printed(result, opts.format)
  writeErr(result.reason)
  return result.exitCode
}

/** `run`: its flags are the check's raw inputs (run-flags.ts), read by the check's own parser. */
export async function runCli(src: CliSource): Promise<number> {
  return runCommand(src.opts)
}
