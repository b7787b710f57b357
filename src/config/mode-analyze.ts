/** `analyze`: result files earlier steps wrote and how to judge them, from the action's inputs or the CLI's flags. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { COMMENT_MODES, RESULT_FORMATS, type CommentMode, type OnInconclusive } from '../types/index.js'
import { bool, checkRunName, gateMetrics, given, list, oneOf } from './parse.js'
import { workspacePath } from './paths.js'
import type { GateMetric } from './tail-metrics.js'
import { validateGithubToken } from './trusted-values.js'
import {
  FLAG_LABEL,
  INPUT_LABEL,
  flagReader,
  sourcesReader,
  stringFlag,
  type ConfigSources,
  type InputReader,
  type Label
} from './reader.js'
import { alphaOf, gateLimits, maxOverheadOf, onInconclusiveOf, type GateLimits } from './modes.js'

export interface AnalyzeConfig {
  /** `ENV=PATH` pairs (paths resolved inside the workspace), or with `csv` the one CSV path. */
  results: string[]
  format: (typeof RESULT_FORMATS)[number]
  maxOverheadPct: number
  alpha: number
  failOnRegression: boolean
  onInconclusive: OnInconclusive
  /** Tail metrics that gate (gate-metrics; config/tail-metrics.ts); the others are shown. */
  gateMetrics: GateMetric[]
  /** Published like a check's report (report/github.ts): the PR comment, the Check run, the token for both. */
  githubToken: string | null
  comment: CommentMode
  checkRun: string | null
  allowForkPrs: boolean
  /** Folder for report.md and summary.json (the results artifact). */
  out: string
}

function gateMetricsOf(read: InputReader, label: Label): GateMetric[] {
  return gateMetrics(label(Inputs.GateMetrics), read.get(Inputs.GateMetrics))
}

/** Each result file: a regular file inside the workspace, reached through no link out of it. */
function resultFiles(format: AnalyzeConfig['format'], raw: string, workspace: string): string[] {
  const form =
    format === 'csv'
      ? 'one long-format CSV path inside the workspace'
      : 'ENV=PATH pairs inside the workspace, comma or newline separated (each file one run of that arm)'
  if (!given(raw.trim())) throw new InputError(Inputs.Results, raw, form)
  return list(Inputs.Results, raw).map(item => {
    const eq = format === 'csv' ? -1 : item.indexOf('=')
    if (format !== 'csv' && eq <= 0) throw new InputError(Inputs.Results, item, form)
    const file = workspacePath(Inputs.Results, item.slice(eq + 1).trim(), workspace)
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    if (st === undefined || st.isSymbolicLink() || !st.isFile())
      throw new InputError(
        Inputs.Results,
        item,
        `${form}; it is ${st === undefined ? 'missing' : 'not a regular file (a link or a folder)'}`
      )
    // A linked folder on the way could still lead out of the workspace: compare the resolved paths.
    const rel = path.relative(fs.realpathSync.native(workspace), fs.realpathSync.native(file))
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new InputError(Inputs.Results, item, `${form}; it resolves outside the workspace`)
    return eq < 0 ? file : `${item.slice(0, eq).trim()}=${file}`
  })
}

/**
 * `mode: analyze`: result files earlier steps wrote, in the workspace. They are tree files: each must be
 * inside the workspace and not a link (a link could point at a secret on the runner; docs/security.md).
 */
export function loadAnalyzeConfig(sources: ConfigSources): AnalyzeConfig {
  const read = sourcesReader(sources)
  const { get } = read
  const format = oneOf(Inputs.ResultsFormat, get(Inputs.ResultsFormat), RESULT_FORMATS)
  return {
    results: resultFiles(format, get(Inputs.Results), sources.workspace),
    format,
    maxOverheadPct: maxOverheadOf(read, INPUT_LABEL),
    alpha: alphaOf(read, INPUT_LABEL),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    onInconclusive: onInconclusiveOf(read, INPUT_LABEL),
    gateMetrics: gateMetricsOf(read, INPUT_LABEL),
    githubToken: given(get(Inputs.GithubToken)) ? validateGithubToken(get(Inputs.GithubToken)) : null,
    comment: oneOf(Inputs.Comment, get(Inputs.Comment), COMMENT_MODES),
    checkRun: checkRunName(get(Inputs.CheckRun)),
    allowForkPrs: bool(Inputs.AllowForkPrs, get(Inputs.AllowForkPrs)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), sources.workspace)
  }
}

export interface AnalyzeFlags extends GateLimits {
  /** A long-format CSV, or (with a JSON `formatIn`) ENV=FILE pairs: each file one run of that arm. */
  input: string | string[]
  formatIn: string | undefined
  arms?: string[]
  baselineEnv: string | undefined
  candidateEnv: string | undefined
  baselinePath: string | undefined
  format: 'md' | 'json'
  gateMetrics: GateMetric[]
}

/** `gpu-overhead analyze`: files anywhere the user names (read as given), the same limits and gate metrics. */
export function analyzeFlags(opts: Record<string, unknown>): AnalyzeFlags {
  const read = flagReader(opts)
  return {
    input: Array.isArray(opts.input) ? opts.input.map(String) : String(opts.input),
    formatIn: stringFlag(opts.formatIn),
    ...(Array.isArray(opts.arm) ? { arms: opts.arm.map(String) } : {}),
    baselineEnv: stringFlag(opts.baselineEnv),
    candidateEnv: stringFlag(opts.candidateEnv),
    baselinePath: stringFlag(opts.baseline),
    format: opts.format === 'json' ? 'json' : 'md',
    gateMetrics: gateMetricsOf(read, FLAG_LABEL),
    ...gateLimits(read, FLAG_LABEL)
  }
}
