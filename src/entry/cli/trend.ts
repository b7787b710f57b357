/**
 * `gpu-overhead trend --baseline FILE [--metric NAME ...] [--format md|json]`: change points over the
 * accepted checks kept in the baseline file's history. Exit 0 without an open change point, 1 with one,
 * 2 when the file is missing, corrupt or lacks the metric asked for.
 */
import { JsonFileBaselineStore } from '../../analyze/index.js'
import { analyzeTrend, UnknownMetricError, type TrendReport } from '../../analyze/index.js'
import { trendVerdict } from '../../gate/index.js'
import { trendMarkdown } from '../../report/index.js'
import { EnvironmentError, InputError } from '../../util/errors.js'
import { describeRule, parseNumber, type NumberRule } from '../../util/number.js'
import { writeErr, writeOut } from '../../util/log.js'

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
        ? `no baseline file at ${opts.baseline}: save accepted checks first (save-baseline: true, or run --save-baseline), or point to the file`
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

function numberFlag(flag: string, raw: unknown, rule: NumberRule): number | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string') throw new InputError(flag, raw, describeRule(rule))
  const parsed = parseNumber(raw, rule)
  if (!parsed.ok) throw new InputError(flag, raw, parsed.expected)
  return parsed.value
}

/** `--metric a,b --metric c` → [a, b, c]. */
export function metricList(raw: unknown): string[] | undefined {
  const given: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]
  const items = given
    .filter((v): v is string => typeof v === 'string')
    .flatMap(v => v.split(','))
    .map(s => s.trim())
    .filter(s => s !== '')
  return items.length > 0 ? items : undefined
}

export async function trendCli(opts: Record<string, unknown>): Promise<number> {
  const minChange = typeof opts.minChange === 'string' ? opts.minChange.replace(/%\s*$/, '') : opts.minChange
  const result = await trendCommand({
    baseline: String(opts.baseline),
    metrics: metricList(opts.metric),
    format: opts.format === 'json' ? 'json' : 'md',
    window: numberFlag('window', opts.window, { kind: 'integer', min: 2 }),
    maxP: numberFlag('max-p', opts.maxP, { kind: 'real', min: 0, minExclusive: true, max: 1 }),
    minChangePct: numberFlag('min-change', minChange, { kind: 'real', min: 0, max: 100 })
  })
  writeOut(result.text)
  writeErr(result.reason)
  return result.exitCode
}
