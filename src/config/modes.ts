/** The action's other modes: which one runs, and the configs of `aggregate` (fleet) and `trend`. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import {
  COMMENT_MODES,
  MODES,
  ON_INCONCLUSIVE,
  RESULT_FORMATS,
  type CommentMode,
  type Mode,
  type OnInconclusive
} from '../types/index.js'
import { DEFAULTS, type RawInputs } from './defaults.js'
import type { ConfigSources } from './config.js'
import {
  alpha,
  bool,
  branchName,
  checkRunName,
  chosen,
  gateMetrics,
  given,
  integer,
  list,
  maxOverhead,
  oneOf,
  workspacePath
} from './parse.js'
import { appendAll } from '../util/arrays.js'
import type { GateMetric } from './tail-metrics.js'
import { validateGithubToken } from './trusted-values.js'

/** Which mode the action runs in (the CLI has a command per mode). */
export function modeOf(inputs: RawInputs): Mode {
  return oneOf(Inputs.Mode, inputs[Inputs.Mode] || DEFAULTS[Inputs.Mode], MODES)
}

export interface AggregateConfig {
  /** Result folders, each holding summary.json and results.jsonl. */
  dirs: string[]
  /** Folders given that held no result folder at all, to warn about. */
  skipped: string[]
  out: string
  maxOverheadPct: number
  alpha: number
  seed: number
  failOnRegression: boolean
  onInconclusive: OnInconclusive
}

/**
 * `mode: aggregate`: the folders to merge. Each entry is a result folder, or a folder whose direct
 * subfolders are result folders (where download-artifact puts one folder per matrix row); a subfolder
 * without summary.json (a leg that stopped before writing it) is left out and reported.
 */
export function loadAggregateConfig(sources: ConfigSources): AggregateConfig {
  const { workspace } = sources
  const get = (name: Inputs): string => {
    for (const src of [sources.flags ?? {}, sources.inputs ?? {}]) {
      const v = chosen(src, name)
      if (v !== undefined) return v
    }
    return DEFAULTS[name]
  }
  const allowed = 'result folders (with summary.json), or folders holding them, inside the workspace'
  const raw = get(Inputs.AggregateDirs)
  if (!given(raw.trim())) throw new InputError(Inputs.AggregateDirs, raw, allowed)
  const dirs: string[] = []
  const skipped: string[] = []
  const isResult = (d: string): boolean => fs.existsSync(path.join(d, 'summary.json'))
  for (const entry of list(Inputs.AggregateDirs, raw)) {
    const dir = workspacePath(Inputs.AggregateDirs, entry, workspace)
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
      throw new InputError(Inputs.AggregateDirs, entry, `${allowed}; it is not a folder`)
    if (isResult(dir)) {
      dirs.push(dir)
      continue
    }
    const subs = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter(e => e.isDirectory())
      .map(e => path.join(dir, e.name))
      .sort()
    appendAll(dirs, subs.filter(isResult))
    appendAll(
      skipped,
      subs.filter(d => !isResult(d))
    )
    if (!subs.some(isResult)) skipped.push(dir)
  }
  if (dirs.length === 0)
    throw new InputError(Inputs.AggregateDirs, raw, `${allowed}; none holds summary.json`)
  return {
    dirs,
    skipped,
    out: workspacePath(Inputs.Out, get(Inputs.Out), workspace),
    maxOverheadPct: maxOverhead(Inputs.MaxOverhead, get(Inputs.MaxOverhead)),
    alpha: alpha(Inputs.Alpha, get(Inputs.Alpha)),
    seed: integer(Inputs.Seed, get(Inputs.Seed), 0, 2 ** 31 - 1),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    onInconclusive: oneOf(Inputs.OnInconclusive, get(Inputs.OnInconclusive), ON_INCONCLUSIVE)
  }
}

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
  /** Where the file is fetched from when the workspace has none (entry/action/baseline-branch.ts). */
  baselineBranch: string | null
  /** Folder for trend.md and trend.json. */
  out: string
}

/** `mode: trend`: change points over the baseline file's history; runs no workload. */
export function loadTrendConfig(sources: ConfigSources): TrendConfig {
  const get = (name: Inputs): string => {
    for (const src of [sources.flags ?? {}, sources.inputs ?? {}]) {
      const v = chosen(src, name)
      if (v !== undefined) return v
    }
    return DEFAULTS[name]
  }
  const metrics = get(Inputs.TrendMetrics)
  const issues = bool(Inputs.TrendIssues, get(Inputs.TrendIssues))
  const token = get(Inputs.GithubToken)
  if (issues && !given(token))
    throw new InputError(Inputs.GithubToken, '', 'a token with issues: write (trend-issues is true)')
  return {
    baselinePath: workspacePath(Inputs.BaselinePath, get(Inputs.BaselinePath), sources.workspace),
    metrics: given(metrics.trim()) ? list(Inputs.TrendMetrics, metrics) : [],
    minChangePct: maxOverhead(Inputs.MaxOverhead, get(Inputs.MaxOverhead)),
    issues,
    token: given(token) ? token : null,
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    baselineBranch: branchName(get(Inputs.BaselineBranch)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), sources.workspace)
  }
}

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

/**
 * `mode: analyze`: result files earlier steps wrote, in the workspace. They are tree files: each must be
 * inside the workspace and not a link (a link could point at a secret on the runner; docs/security.md).
 */
export function loadAnalyzeConfig(sources: ConfigSources): AnalyzeConfig {
  const get = (name: Inputs): string => {
    for (const src of [sources.flags ?? {}, sources.inputs ?? {}]) {
      const v = chosen(src, name)
      if (v !== undefined) return v
    }
    return DEFAULTS[name]
  }
  const format = oneOf(Inputs.ResultsFormat, get(Inputs.ResultsFormat), RESULT_FORMATS)
  const raw = get(Inputs.Results)
  const form =
    format === 'csv'
      ? 'one long-format CSV path inside the workspace'
      : 'ENV=PATH pairs inside the workspace, comma or newline separated (each file one run of that arm)'
  if (!given(raw.trim())) throw new InputError(Inputs.Results, raw, form)
  const results = list(Inputs.Results, raw).map(item => {
    const eq = format === 'csv' ? -1 : item.indexOf('=')
    if (format !== 'csv' && eq <= 0) throw new InputError(Inputs.Results, item, form)
    const file = workspacePath(Inputs.Results, item.slice(eq + 1).trim(), sources.workspace)
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    if (st === undefined || st.isSymbolicLink() || !st.isFile())
      throw new InputError(
        Inputs.Results,
        item,
        `${form}; it is ${st === undefined ? 'missing' : 'not a regular file (a link or a folder)'}`
      )
    // A linked folder on the way could still lead out of the workspace: compare the resolved paths.
    const rel = path.relative(fs.realpathSync.native(sources.workspace), fs.realpathSync.native(file))
    if (rel.startsWith('..') || path.isAbsolute(rel))
      throw new InputError(Inputs.Results, item, `${form}; it resolves outside the workspace`)
    return eq < 0 ? file : `${item.slice(0, eq).trim()}=${file}`
  })
  return {
    results,
    format,
    maxOverheadPct: maxOverhead(Inputs.MaxOverhead, get(Inputs.MaxOverhead)),
    alpha: alpha(Inputs.Alpha, get(Inputs.Alpha)),
    failOnRegression: bool(Inputs.FailOnRegression, get(Inputs.FailOnRegression)),
    onInconclusive: oneOf(Inputs.OnInconclusive, get(Inputs.OnInconclusive), ON_INCONCLUSIVE),
    gateMetrics: gateMetrics(Inputs.GateMetrics, get(Inputs.GateMetrics)),
    githubToken: given(get(Inputs.GithubToken)) ? validateGithubToken(get(Inputs.GithubToken)) : null,
    comment: oneOf(Inputs.Comment, get(Inputs.Comment), COMMENT_MODES),
    checkRun: checkRunName(get(Inputs.CheckRun)),
    allowForkPrs: bool(Inputs.AllowForkPrs, get(Inputs.AllowForkPrs)),
    out: workspacePath(Inputs.Out, get(Inputs.Out), sources.workspace)
  }
}
