/**
 * `analyze` (the action's mode and `gpu-overhead analyze`): statistics only, on any long-format results CSV,
 * optionally also against a stored baseline. Never exits the process.
 */
import { checkAlpha, checkMaxOverhead, gateMetricSet, type GateMetric } from '../config/index.js'
import { exitCodeFor, nothingMeasuredReason } from '../gate/index.js'
import { InputError } from '../util/errors.js'
import type { Analysis, OnInconclusive } from '../types/index.js'
import { JsonFileBaselineStore, decideFamily, measureSeries } from '../analyze/index.js'
import { parseArmSpecs, readResultSet, type ResultSet } from '../results/index.js'
import { renderJson, renderMarkdown } from '../report/index.js'

export interface AnalyzeCommandOptions {
  /** A long-format CSV, or (with a JSON `formatIn`) ENV=FILE pairs: each file one run of that arm. */
  input: string | readonly string[]
  /** Format of the input files (results/adapters): csv (default), hyperfine, pytest-benchmark, … */
  formatIn?: string
  /** `--arm ENV=INDEX|ENV=COMMAND`: a hyperfine export's commands as the arms (plain FILE inputs then). */
  arms?: readonly string[]
  baselineEnv?: string
  candidateEnv?: string
  baselinePath?: string
  format: 'md' | 'json'
  maxOverheadPct: number
  alpha: number
  /** What an undecided analysis exits with (default neutral: 0, reported undecided). */
  onInconclusive?: OnInconclusive
  /** Tail metrics that gate (--gate-metrics); absent or empty: tail metrics are shown, not gated. */
  gateMetrics?: readonly GateMetric[]
}

export const DEFAULT_BASELINE_ENV = 'native'
export const DEFAULT_CANDIDATE_ENV = 'container'

/**
 * Which two environments to compare. Named ones must exist. Defaults (native, container) are used when
 * present; otherwise, with exactly two environments, they are taken in order of first appearance.
 */
export function resolveEnvironments(
  present: readonly string[],
  baselineEnv: string | undefined,
  candidateEnv: string | undefined
): { baseline: string; candidate: string; note?: string } {
  const allowed = present.length > 0 ? present.join(', ') : '(none: the file has no rows)'
  for (const [flag, env] of [
    ['--baseline-env', baselineEnv],
    ['--candidate-env', candidateEnv]
  ] as const)
    if (env !== undefined && !present.includes(env))
      throw new InputError(flag, env, `an environment in the input: ${allowed}`)
  if (baselineEnv !== undefined && baselineEnv === candidateEnv)
    throw new InputError(
      '--candidate-env',
      candidateEnv,
      'an environment other than the baseline environment'
    )
  let baseline = baselineEnv ?? (present.includes(DEFAULT_BASELINE_ENV) ? DEFAULT_BASELINE_ENV : undefined)
  let candidate =
    candidateEnv ?? (present.includes(DEFAULT_CANDIDATE_ENV) ? DEFAULT_CANDIDATE_ENV : undefined)
  if (baseline !== undefined && candidate !== undefined && baseline !== candidate)
    return { baseline, candidate }
  if (present.length !== 2)
    throw new InputError(
      baseline === undefined ? '--baseline-env' : '--candidate-env',
      baseline === undefined ? DEFAULT_BASELINE_ENV : DEFAULT_CANDIDATE_ENV,
      `an environment in the input (${allowed}); name both with --baseline-env and --candidate-env`
    )
  // A default that collides with a named environment gives way to it.
  if (baseline !== undefined && baseline === candidate) {
    if (candidateEnv === undefined) candidate = undefined
    else baseline = undefined
  }
  const pair = completePair(baseline, candidate, present as [string, string])
  return {
    ...pair,
    note:
      `No '${DEFAULT_BASELINE_ENV}'/'${DEFAULT_CANDIDATE_ENV}' pair in the input: comparing '${pair.candidate}' ` +
      `(candidate) with '${pair.baseline}' (baseline), the two environments in order of first appearance.`
  }
}

/** Of exactly two environments, the one not named fills the missing side (both missing: in order). */
function completePair(
  baseline: string | undefined,
  candidate: string | undefined,
  [first, second]: [string, string]
): { baseline: string; candidate: string } {
  const other = (env: string): string => (env === first ? second : first)
  if (baseline !== undefined) return { baseline, candidate: candidate ?? other(baseline) }
  if (candidate !== undefined) return { baseline: other(candidate), candidate }
  return { baseline: first, candidate: second }
}

function validate(opts: AnalyzeCommandOptions): void {
  checkMaxOverhead('--max-overhead', opts.maxOverheadPct)
  checkAlpha('--alpha', opts.alpha)
  if (opts.format !== 'md' && opts.format !== 'json')
    throw new InputError('--format', opts.format, 'md, json')
}

export async function analyzeCommand(
  opts: AnalyzeCommandOptions
): Promise<{ analysis: Analysis; text: string; exitCode: number; results: ResultSet }> {
  validate(opts)
  const csv = await readResultSet(
    opts.formatIn ?? 'csv',
    typeof opts.input === 'string' ? [opts.input] : opts.input,
    opts.arms && opts.arms.length > 0 ? parseArmSpecs(opts.arms) : []
  )
  const envs = resolveEnvironments(csv.environments, opts.baselineEnv, opts.candidateEnv)
  const settings = { maxOverheadPct: opts.maxOverheadPct, alpha: opts.alpha }
  const { comparisons, notes } = measureSeries(csv.series, {
    ...settings,
    baselineEnv: envs.baseline,
    candidateEnv: envs.candidate,
    fingerprints: csv.fingerprints,
    gateMetrics: gateMetricSet(opts.gateMetrics ?? [])
  })
  const allNotes = [...(envs.note === undefined ? [] : [envs.note]), ...notes, ...csv.notes]

  let baseline: Analysis['baseline']
  if (opts.baselinePath !== undefined) {
    const store = new JsonFileBaselineStore(opts.baselinePath)
    baseline = await store.compare(
      { check_id: 'analyze', series: csv.series, fingerprints: csv.fingerprints },
      { ...settings, environments: [envs.baseline, envs.candidate] }
    )
  }

  // One report, one Holm family (analyze/family.ts): the arms and the stored-baseline comparisons gate together.
  const family = decideFamily(comparisons, baseline?.comparisons ?? [], settings)
  if (baseline !== undefined) baseline = { ...baseline, comparisons: family.baseline }
  const analysis: Analysis = {
    comparisons: family.arms,
    verdict: family.verdict,
    max_overhead_pct: opts.maxOverheadPct,
    alpha: opts.alpha,
    baseline_env: envs.baseline,
    candidate_env: envs.candidate
  }
  if (allNotes.length > 0) analysis.notes = allNotes
  if (baseline !== undefined) analysis.baseline = baseline
  // Nothing measured is never a pass: no gated comparison with 2 runs per arm → error, exit 2.
  const nothing = nothingMeasuredReason(
    { comparisons: [...family.arms, ...family.baseline] },
    [],
    opts.gateMetrics ?? []
  )
  if (nothing !== null) analysis.error = `nothing measured: ${nothing}`
  const verdict =
    nothing !== null
      ? 'error'
      : family.verdict === 'regression' || family.verdict === 'inconclusive'
        ? family.verdict
        : 'pass'
  const text = opts.format === 'json' ? renderJson(analysis) : renderMarkdown(analysis)
  return {
    analysis,
    text,
    exitCode: exitCodeFor(verdict, { onInconclusive: opts.onInconclusive }),
    results: csv
  }
}
