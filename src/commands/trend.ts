/**
 * `trend` (the action's mode and `gpu-overhead trend`): change points over the accepted checks kept in the
 * baseline file's history. Exit 0 without an open change point, 1 with one, 2 when the file is missing,
 * corrupt or lacks the metric asked for.
 */
import * as path from 'node:path'
import { JsonFileBaselineStore } from '../analyze/index.js'
import { analyzeTrend, UnknownMetricError, type TrendReport } from '../analyze/index.js'
import { trendVerdict } from '../gate/index.js'
import { trendMarkdown } from '../report/index.js'
import { EnvironmentError, InputError } from '../util/errors.js'
import { safeReplace } from '../util/safe-fs.js'
import { setting } from '../util/setting-name.js'

export interface TrendCommandOptions {
  baseline: string
  metrics?: readonly string[]
  format: 'md' | 'json'
  window?: number
  maxP?: number
  /** Smallest change reported, percent (default 2). */
  minChangePct?: number
}

export interface TrendCommandResult {
  report: TrendReport
  text: string
  exitCode: number
  reason: string
}

export async function trendCommand(opts: TrendCommandOptions): Promise<TrendCommandResult> {
  const loaded = await new JsonFileBaselineStore(opts.baseline).load()
  if (loaded.status !== 'ok' || loaded.data === undefined)
    throw new EnvironmentError(
      loaded.status === 'missing'
        ? `no baseline file at ${opts.baseline}: save accepted checks first (${setting('save-baseline', 'true')}), or point to the file`
        : loaded.message
    )
  let report: TrendReport
  try {
    report = analyzeTrend(loaded.data.history ?? {}, {
      metrics: opts.metrics,
      window: opts.window,
      maxP: opts.maxP,
      minMagnitude: opts.minChangePct === undefined ? undefined : opts.minChangePct / 100
    })
  } catch (error) {
    if (error instanceof UnknownMetricError)
      throw new InputError(
        'metric',
        error.missing.join(','),
        `a metric in the history: ${error.available.join(', ')}`
      )
    throw error
  }
  const verdict = trendVerdict(report)
  const text =
    opts.format === 'json'
      ? JSON.stringify({ verdict: verdict.verdict, reason: verdict.reason, ...report }, null, 2)
      : trendMarkdown(report)
  return { report, text, exitCode: verdict.exitCode, reason: verdict.reason }
}

/** OUT/trend.md and OUT/trend.json; `root` is the trusted root (no link is followed on the way, or at, the files). */
export function writeTrendFiles({
  out,
  result,
  root
}: {
  out: string
  result: TrendCommandResult
  root: string
}): string {
  const reportPath = path.join(out, 'trend.md')
  safeReplace(reportPath, result.text, { root })
  safeReplace(path.join(out, 'trend.json'), JSON.stringify(result.report, null, 2) + '\n', { root })
  return reportPath
}
