/** `trend`: the baseline file whose history is read, and the change-point settings, from inputs or flags. */
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { describeRule, parseNumber, type NumberRule } from '../util/number.js'
import { bool, branchName, given, list, maxOverhead } from './parse.js'
import { workspacePath } from './paths.js'
import { failOnRegressionOf } from './modes.js'
import { outputFormat, type ActionSource, type CliSource, type ModeSource } from './reader.js'

export interface TrendConfig {
  /** Baseline file whose history is analysed. */
  baselinePath: string
  /** Metrics to analyse (empty: every steady-state metric). */
  metrics: string[]
  /** Smallest change reported, percent: the max-overhead limit. */
  minChangePct: number
  /** Open and close GitHub issues for change points (needs a token with issues: write). */
  issues: boolean
  token: string | null
  failOnRegression: boolean
  /** Where the file is fetched from when the workspace has none (entry/action/trend.ts). */
  baselineBranch: string | null
  /** Folder for trend.md and trend.json. */
  out: string
}

export interface TrendFlags {
  baseline: string
  metrics?: string[]
  format: 'md' | 'json'
  window?: number
  maxP?: number
  minChangePct?: number
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

/**
 * `trend`, the action's mode and the CLI's command alike: change points over the baseline file's history;
 * runs no workload. The two surfaces share no input: the action reads trend-metrics, max-overhead as the
 * smallest change, the issue settings and its files inside the workspace; the CLI its own --metric,
 * --window, --max-p and --min-change, and the file anywhere the user names.
 */
export function parseTrend(src: ActionSource): TrendConfig
export function parseTrend(src: CliSource): TrendFlags
export function parseTrend(src: ModeSource): TrendConfig | TrendFlags {
  if (src.surface === 'action') return actionTrend(src)
  const { opts } = src
  const minChange = typeof opts.minChange === 'string' ? opts.minChange.replace(/%\s*$/, '') : opts.minChange
  return {
    baseline: String(opts.baseline),
    metrics: metricList(opts.metric),
    format: outputFormat(opts, 'md'),
    window: numberFlag('window', opts.window, { kind: 'integer', min: 2 }),
    maxP: numberFlag('max-p', opts.maxP, { kind: 'real', min: 0, minExclusive: true, max: 1 }),
    minChangePct: numberFlag('min-change', minChange, { kind: 'real', min: 0, max: 100 })
  }
}

/** The action's trend inputs; trend-issues needs the token it writes issues with. */
function actionTrend({ read, label, workspace }: ActionSource): TrendConfig {
  const { get } = read
  const metrics = get(Inputs.TrendMetrics)
  const issues = bool(Inputs.TrendIssues, get(Inputs.TrendIssues))
  const token = get(Inputs.GithubToken)
  if (issues && !given(token))
    throw new InputError(Inputs.GithubToken, '', 'a token with issues: write (trend-issues is true)')
  return {
    baselinePath: workspacePath(Inputs.BaselinePath, get(Inputs.BaselinePath), workspace),
    metrics: given(metrics.trim()) ? list(Inputs.TrendMetrics, metrics) : [],
    minChangePct: maxOverhead(Inputs.MaxOverhead, get(Inputs.MaxOverhead)),
    issues,
    token: given(token) ? token : null,
    failOnRegression: failOnRegressionOf(read, label),
    baselineBranch: branchName(get(Inputs.BaselineBranch)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), workspace)
  }
}
