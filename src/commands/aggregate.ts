/**
 * `gpu-overhead aggregate DIR...`: merge the result folders of several runners into one report,
 * pooling only checks with identical fingerprints. Writes OUT/aggregate.md and OUT/aggregate.json and
 * returns the text to print and the exit code; never exits the process.
 */
import { toJson } from '../util/json-intervals.js'
import * as fs from 'node:fs'
import { safeReplace } from '../util/safe-fs.js'
import * as path from 'node:path'
import { exitCodeFor, type ExitCodeValue } from '../gate/index.js'
import { InputError, getErrorMessage } from '../util/errors.js'
import { aggregate, readSources, renderAggregateMarkdown, type AggregateReport } from '../fleet/index.js'
import type { OnInconclusive } from '../types/index.js'

export interface AggregateCommandOptions {
  dirs: string[]
  out: string
  format: 'md' | 'json'
  maxOverheadPct: number
  alpha: number
  seed?: number | string
  /** What an undecided group does to the exit code (default neutral: 0). */
  onInconclusive?: OnInconclusive
}

export interface AggregateCommandResult {
  report: AggregateReport
  markdown: string
  text: string
  exitCode: number
  paths: { markdown: string; json: string }
}

/**
 * 0 pass, incomparable or undecided (unless on-inconclusive is fail), 1 regression (unless fail-on-regression
 * is off), a failed preflight gate on some runner or an undecided fleet under on-inconclusive fail, 2 nothing to vouch for: gate/'s mapping, with the fleet's own failed-gate fact.
 */
export function aggregateExitCode(
  r: AggregateReport,
  failOnRegression = true,
  onInconclusive: OnInconclusive = 'neutral'
): ExitCodeValue {
  return exitCodeFor(r.verdict, {
    failOnRegression,
    onInconclusive,
    failedGate: r.groups.some(g => g.failed_preflight.length > 0)
  })
}

export function aggregateCommand(opts: AggregateCommandOptions): AggregateCommandResult {
  const sources = readSources(opts.dirs)
  const report = aggregate(sources, {
    maxOverheadPct: opts.maxOverheadPct,
    alpha: opts.alpha,
    seed: opts.seed
  })
  const markdown = renderAggregateMarkdown(report)
  const json = toJson(report)
  const out = path.resolve(opts.out)
  try {
    fs.mkdirSync(out, { recursive: true })
  } catch (error) {
    throw new InputError(
      '--out',
      opts.out,
      `a folder that can be created (${error instanceof Error ? error.message : String(error)})`
    )
  }
  const paths = { markdown: path.join(out, 'aggregate.md'), json: path.join(out, 'aggregate.json') }
  // Into a folder that may have come with the tree: never through a link.
  try {
    safeReplace(paths.markdown, markdown, { root: out })
    safeReplace(paths.json, json, { root: out })
  } catch (error) {
    throw new InputError(
      '--out',
      opts.out,
      `a folder the aggregate files can be written to (${getErrorMessage(error)})`
    )
  }
  return {
    report,
    markdown,
    text: opts.format === 'json' ? json : markdown,
    exitCode: aggregateExitCode(report, true, opts.onInconclusive),
    paths
  }
}
