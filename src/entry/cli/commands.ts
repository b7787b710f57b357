/**
 * The CLI's commands besides `run`: config/ parses each command's flags through the same parser per mode as
 * the action's inputs where the mode is both (parseAnalyze, parseTrend, parseAggregate), commands/ runs it;
 * here its text is printed and its exit code returned.
 */
import {
  cliSource,
  parseAggregate,
  parseAnalyze,
  parseGate,
  parseIoCheck,
  parseTrend
} from '../../config/index.js'
import { aggregateCommand } from '../../commands/aggregate.js'
import { analyzeCommand } from '../../commands/analyze.js'
import { gateCommand } from '../../commands/gate.js'
import { ioCheckCommand } from '../../commands/io-check.js'
import { trendCommand } from '../../commands/trend.js'
import { writeErr, writeOut } from '../../util/log.js'

/** Prints a command's text (one trailing newline) and hands back its exit code. */
function printed(result: { text: string; exitCode: number }): number {
  writeOut(result.text)
  return result.exitCode
}

export async function analyzeCli(opts: Record<string, unknown>): Promise<number> {
  return printed(await analyzeCommand(parseAnalyze(cliSource(opts))))
}

export async function gateCli(opts: Record<string, unknown>): Promise<number> {
  return printed(await gateCommand(parseGate(cliSource(opts))))
}

export async function ioCheckCli(opts: Record<string, unknown>): Promise<number> {
  return printed(await ioCheckCommand(parseIoCheck(cliSource(opts))))
}

export async function aggregateCli(dirs: string[], opts: Record<string, unknown>): Promise<number> {
  const result = aggregateCommand(parseAggregate(cliSource(opts, dirs)))
  printed(result)
  writeErr(`aggregate: ${result.paths.markdown}, ${result.paths.json}`)
  return Promise.resolve(result.exitCode)
}

export async function trendCli(opts: Record<string, unknown>): Promise<number> {
  const result = await trendCommand(parseTrend(cliSource(opts)))
  writeOut(result.text)
  writeErr(result.reason)
  return result.exitCode
}
