/** `analyze`: result files earlier steps wrote and how to judge them, from the action's inputs or the CLI's flags. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { COMMENT_MODES, RESULT_FORMATS, type CommentMode } from '../types/index.js'
import { bool, checkRunName, gateMetrics, given, list, oneOf } from './parse.js'
import { workspacePath } from './paths.js'
import type { GateMetric } from './tail-metrics.js'
import { validateGithubToken } from './trusted-values.js'
import { outputFormat, stringFlag, type ActionSource, type CliSource, type ModeSource } from './reader.js'
import { alphaOf, failOnRegressionOf, maxOverheadOf, onInconclusiveOf, type GateLimits } from './modes.js'

/** How both surfaces judge the files: the gate limits and the tail metrics that gate (config/tail-metrics.ts). */
export interface AnalyzeGate extends GateLimits {
  gateMetrics: GateMetric[]
}

/** The action's `mode: analyze`. */
export interface AnalyzeConfig extends AnalyzeGate {
  /** `ENV=PATH` pairs (paths resolved inside the workspace), or with `csv` the one CSV path. */
  results: string[]
  format: (typeof RESULT_FORMATS)[number]
  /** Published like a check's report (report/github.ts): the PR comment, the Check run, the token for both. */
  githubToken: string | null
  comment: CommentMode
  checkRun: string | null
  allowForkPrs: boolean
  /** Folder for report.md and summary.json (the results artifact). */
  out: string
}

/** `gpu-overhead analyze`. */
export interface AnalyzeFlags extends AnalyzeGate {
  /** A long-format CSV, or (with a JSON `formatIn`) ENV=FILE pairs: each file one run of that arm. */
  input: string | string[]
  formatIn: string | undefined
  arms?: string[]
  baselineEnv: string | undefined
  candidateEnv: string | undefined
  baselinePath: string | undefined
  format: 'md' | 'json'
}

/** The limits and gate-metrics, read the same way from the action's inputs and the CLI's flags. */
function analyzeGate({ read, label }: ModeSource): AnalyzeGate {
  return {
    maxOverheadPct: maxOverheadOf(read, label),
    alpha: alphaOf(read, label),
    failOnRegression: failOnRegressionOf(read, label),
    onInconclusive: onInconclusiveOf(read, label),
    gateMetrics: gateMetrics(label(Inputs.GateMetrics), read.get(Inputs.GateMetrics))
  }
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
    // A second hard link may be a file outside the workspace (the same inode): not the tree's own.
    if (st.nlink > 1)
      throw new InputError(
        Inputs.Results,
        item,
        `${form}; it has ${st.nlink} hard links (one may be outside)`
      )
    // A linked folder on the way could still lead out of the workspace: compare the resolved paths.
    const rel = path.relative(fs.realpathSync.native(workspace), fs.realpathSync.native(file))
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new InputError(Inputs.Results, item, `${form}; it resolves outside the workspace`)
    return eq < 0 ? file : `${item.slice(0, eq).trim()}=${file}`
  })
}

/**
 * `analyze`, the action's mode and the CLI's command alike. The action's result files are tree files: each
 * must be inside the workspace and not a link (a link could point at a secret on the runner;
 * docs/security.md); it also reads how to publish. The CLI reads files anywhere the user names, as given.
 */
export function parseAnalyze(src: ActionSource): AnalyzeConfig
export function parseAnalyze(src: CliSource): AnalyzeFlags
export function parseAnalyze(src: ModeSource): AnalyzeConfig | AnalyzeFlags {
  if (src.surface === 'cli')
    return { ...cliFiles(src.opts), format: outputFormat(src.opts, 'md'), ...analyzeGate(src) }
  const { get } = src.read
  const format = oneOf(Inputs.ResultsFormat, get(Inputs.ResultsFormat), RESULT_FORMATS)
  const results = resultFiles(format, get(Inputs.Results), src.workspace)
  return {
    results,
    format,
    ...analyzeGate(src),
    githubToken: given(get(Inputs.GithubToken)) ? validateGithubToken(get(Inputs.GithubToken)) : null,
    comment: oneOf(Inputs.Comment, get(Inputs.Comment), COMMENT_MODES),
    checkRun: checkRunName(get(Inputs.CheckRun)),
    allowForkPrs: bool(Inputs.AllowForkPrs, get(Inputs.AllowForkPrs)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), src.workspace)
  }
}

/** The CLI's files and how to read them: taken as given (the command checks them as it reads). */
function cliFiles(opts: Record<string, unknown>): Omit<AnalyzeFlags, keyof AnalyzeGate | 'format'> {
  return {
    input: Array.isArray(opts.input) ? opts.input.map(String) : String(opts.input),
    formatIn: stringFlag(opts.formatIn),
    ...(Array.isArray(opts.arm) ? { arms: opts.arm.map(String) } : {}),
    baselineEnv: stringFlag(opts.baselineEnv),
    candidateEnv: stringFlag(opts.candidateEnv),
    baselinePath: stringFlag(opts.baseline)
  }
}
