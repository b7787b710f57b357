/**
 * Verdicts: Holm across the gating comparisons, then a verdict and a reason per comparison, and one
 * overall verdict for the report.
 */
import type { Comparison, MetricVerdict } from '../../types/index.js'
import { holm, pairsToDetect, runsNeeded, variance } from '../stats/index.js'
import { at } from '../../util/must.js'
import { unboundedReason } from '../../util/json-intervals.js'
import { formatOverhead, formatP, formatPct } from './format.js'
import { equivalenceBounds } from './overhead-interval.js'
import { setting } from '../../util/setting-name.js'
import { equivalenceBlocks, exclusionText, tooFewText } from './mode-exclusion.js'

export interface DecideOptions {
  alpha: number
  maxOverheadPct: number
}

/**
 * Runs per arm at which an effect of max-overhead becomes detectable (alpha two-sided, power 0.8); null
 * when no number of runs would (too noisy) or when the arms already have that many (the estimate then
 * sits near the limit and more runs of the same kind are not the remedy).
 */
function runsToDetect(c: Comparison, opts: DecideOptions): number | null {
  if (c.paired !== undefined) {
    // Blocks: the spread that matters is that of the within-block ratios (every block), not of the arms.
    const sdW = Math.sqrt(variance(c.paired.block_pcts.map(p => Math.log1p(p / 100))))
    const n = pairsToDetect(sdW, Math.log1p(opts.maxOverheadPct / 100), opts.alpha)
    return n !== null && n > c.paired.blocks ? n : null
  }
  const bounds = equivalenceBounds(c.mean_baseline, opts.maxOverheadPct, c.direction)
  const target = Math.min(Math.abs(bounds.low), Math.abs(bounds.high))
  const n = runsNeeded(c.sd_baseline, c.sd_candidate, target, opts.alpha)
  return n !== null && n > Math.max(c.n_baseline, c.n_candidate) ? n : null
}

/** The power advice of an inconclusive verdict, never "2 runs would detect" at 2 runs. */
function powerAdvice(c: Comparison, max: number): string {
  if (c.runs_needed !== null)
    return `MDE ${formatPct(c.mde_pct)}; ${c.runs_needed} runs per arm would detect ${max}%`
  if (c.mde_pct > 0 && c.mde_pct <= max)
    return `MDE ${formatPct(c.mde_pct)} is already below ${max}%: the estimate sits near the limit`
  return `MDE ${formatPct(c.mde_pct)}`
}

const fmtPct = (x: number): string => `${x.toFixed(1)}%`

/**
 * The verdict of a comparison nothing can be tested on (other fingerprints, too few stored checks or runs,
 * no ratio of the means), with its reason; null when the statistics can decide.
 */
function untestableVerdict(c: Comparison, effect: string): { verdict: MetricVerdict; reason: string } | null {
  const undef = new Set(c.undefined_stats ?? [])
  if (c.incomparable_fields !== undefined && c.incomparable_fields.length > 0)
    return {
      verdict: 'incomparable',
      reason: `Fingerprints differ (${c.incomparable_fields.join('; ')}), so ${effect} is not a like-for-like difference: incomparable.`
    }
  if (c.history !== undefined && c.history.checks < 2)
    return {
      verdict: 'inconclusive',
      reason: `${effect} against ${c.history.checks} stored check: the day-to-day spread between checks is unknown until at least 2 (better 5) are stored, so nothing is decided: inconclusive.`
    }
  if (c.history === undefined && (c.n_baseline < 2 || c.n_candidate < 2))
    return {
      verdict: 'inconclusive',
      reason: `Only ${c.n_baseline} baseline and ${c.n_candidate} candidate run(s); at least 2 runs per arm are needed to test anything: inconclusive.`
    }
  if (c.tail_support !== undefined)
    return {
      verdict: 'inconclusive',
      reason: `${effect}, but each process's ${c.metric} rests on ${c.tail_support.per_process} values, where this percentile needs ${c.tail_support.needed} (3 beyond it): with fewer it is about the process's largest value, which a slowdown of a few requests in a hundred does not move, so it is not tested: inconclusive (a check that gates it runs the llm with ${c.tail_support.needed} requests per process; README, "Tail metrics").`
    }
  if (undef.has('overhead_pct'))
    return {
      verdict: 'inconclusive',
      reason: `A ratio needs positive means (baseline ${c.mean_baseline}, candidate ${c.mean_candidate}), so no overhead can be stated: inconclusive.`
    }
  return null
}

/** The test behind the comparison's p value and that p, as the reasons quote it. */
function pValueText(c: Comparison): string {
  return c.p_source === 'paired'
    ? `paired over ${c.paired?.blocks ?? c.n_baseline} blocks (within-block ratios), ${c.scope === 'steady' ? 'Holm-adjusted ' : ''}p=${formatP(c.p_adjusted)}`
    : c.p_source === 'mann-whitney'
      ? `Welch's t is undefined (zero variance in both arms), Mann–Whitney p=${formatP(c.p_adjusted)}`
      : c.p_source === 'prediction-interval'
        ? `prediction interval over ${c.n_baseline} stored check means, ${c.scope === 'steady' ? 'Holm-adjusted ' : ''}p=${formatP(c.p_adjusted)}`
        : c.scope !== 'steady'
          ? `Welch p=${formatP(c.p_adjusted)}`
          : `Holm-adjusted Welch p=${formatP(c.p_adjusted)}`
}

/** The TOST branches: equivalent only where the printed interval lies inside ±max and enough processes ran. */
function equivalenceVerdict(
  c: Comparison,
  max: number,
  effect: string,
  identical: boolean
): { verdict: MetricVerdict; reason: string } | null {
  // The printed interval must say what the verdict says (issue 51): TOST alone decides at the 90% interval, so
  // an "equivalent" beside a 95% interval reaching past ±max read as a contradiction. Both must hold.
  const inside = c.ci95.low >= -max && c.ci95.high <= max
  if (c.tost.equivalent && !inside)
    return {
      verdict: 'inconclusive',
      reason: `${effect}: within ±${max}% by TOST (p=${formatP(c.tost.p)}), but the 95% interval reaches past ±${max}%, so equivalence is not claimed: inconclusive (${powerAdvice(c, max)}).`
    }
  // Processes per arm, for the slow modes a claim of equivalence excludes (mode-exclusion.ts); a stored-baseline
  // comparison's units are checks, whose processes the history screen already judged.
  const processes =
    c.history === undefined ? (c.paired?.blocks ?? Math.min(c.n_baseline, c.n_candidate)) : null
  if (c.tost.equivalent && processes !== null && processes < equivalenceBlocks())
    return {
      verdict: 'inconclusive',
      reason: `${effect} is within ±${max}% (TOST p=${formatP(c.tost.p)}), but ${tooFewText(processes)}: inconclusive.`
    }
  if (c.tost.equivalent)
    return {
      verdict: 'equivalent',
      reason:
        (identical
          ? `${effect}: both arms are identical (zero variance, Welch's t undefined, p=1) and within ±${max}%: equivalent.`
          : `${effect} is within ±${max}%: equivalent (TOST p=${formatP(c.tost.p)}).`) +
        (processes === null ? '' : ` ${exclusionText(processes)}`)
    }
  return null
}

function verdictAndReason(c: Comparison, opts: DecideOptions): { verdict: MetricVerdict; reason: string } {
  const max = opts.maxOverheadPct
  const effect = formatOverhead(c)
  const untestable = untestableVerdict(c, effect)
  if (untestable !== null) return untestable
  const pText = pValueText(c)
  const identical = c.welch.defined === false && c.p_gate === 1
  const significant = c.p_adjusted < opts.alpha
  const constant = c.n_baseline >= 2 && c.sd_baseline === 0 && c.sd_candidate === 0
  // Zero spread in both arms decides nothing either way: "equivalent" from TOST p = 0 or a regression from a
  // zero-width interval would be the timer's resolution speaking (a 1 ms clock), not the arms.
  if (constant)
    return {
      verdict: 'inconclusive',
      reason: significant
        ? `${effect} is significant (${pText}) but both arms are constant, so the interval has no width: likely timer resolution, not a regression on its own: inconclusive.`
        : `${effect}: both arms are constant (zero spread), so neither a difference nor equivalence within ±${max}% can be shown: likely timer resolution: inconclusive.`
    }
  // An arm whose processes sat at two levels (the other arm not at the same two): a regression or an
  // improvement no larger than the gap may be a different mix of levels, not the container; and a narrow
  // interval would claim a certainty the levels do not give (docs/evidence/2026-11-27-decode-state.md).
  const gap = c.levels_gap_pct
  const claim = significant && (c.ci95.low > max || c.ci95.high < 0)
  if (gap !== undefined && claim && Math.abs(c.overhead_pct) <= gap)
    return {
      verdict: 'inconclusive',
      reason: `${effect}: the processes of ${c.multimodal_arms?.join(' and ') ?? 'an arm'} sat at two levels ${fmtPct(gap)} apart, which explains a difference this size, so neither a regression nor an improvement is claimed: inconclusive (make both arms meet one state: ${setting('turns', 'true')} for the llm, or remove what the report names under "Why the arms differ").`
    }
  // Without the Holm-adjusted one-sided claim (stored-baseline comparisons), the CI's lower end alone.
  const pClaim = c.p_regression_adjusted
  const aboveAfterHolm = pClaim === undefined || pClaim < opts.alpha / 2
  if (significant && c.ci95.low > max && aboveAfterHolm)
    return {
      verdict: 'regression',
      reason: `${effect} exceeds +${max}% even at the CI's favourable end and is significant (${pText}${c.p_regression_adjusted === undefined ? '' : `; above +${max}% with Holm-adjusted one-sided p=${formatP(c.p_regression_adjusted)}`}): regression.`
    }
  // Here the claim was not above after Holm: its adjusted p exists and is ≥ α/2.
  if (significant && c.ci95.low > max && pClaim !== undefined)
    return {
      verdict: 'inconclusive',
      reason: `${effect} lies above +${max}% at the unadjusted 95% CI, but not once the ${max}% claim is Holm-adjusted across the gated metrics (one-sided p=${formatP(pClaim)} ≥ ${opts.alpha / 2}): inconclusive.`
    }
  const equivalence = equivalenceVerdict(c, max, effect, identical)
  if (equivalence !== null) return equivalence
  if (significant && c.ci95.high < 0)
    return {
      verdict: 'improvement',
      reason: `${effect}: the candidate is significantly better (${pText}) and the whole CI is below 0, beyond what equivalence within ±${max}% covers: improvement.`
    }
  const power = powerAdvice(c, max)
  // A test at the fixed count can read a difference that the printed interval (after a sequential stop, the
  // repeated one) does not: the interval is what the verdict rests on, so no difference is claimed (issue 51).
  if (significant && c.ci95.low <= 0 && c.ci95.high >= 0)
    return {
      verdict: 'inconclusive',
      reason: `${effect}: the interval the verdict rests on includes no difference, though the test at this count alone reads one (${pText}); equivalence within ±${max}% is not shown (TOST p=${formatP(c.tost.p)}): inconclusive (${power}).`
    }
  if (significant)
    return {
      verdict: 'inconclusive',
      reason: `${effect} is significant (${pText}) but its CI reaches below +${max}% and equivalence within ±${max}% is not shown (TOST p=${formatP(c.tost.p)}): inconclusive (${power}).`
    }
  return {
    verdict: 'inconclusive',
    reason: `${effect} is neither significant (${pText}) nor shown within ±${max}% (TOST p=${formatP(c.tost.p)}): inconclusive (${power}).`
  }
}

/**
 * Holm-adjust the gating p values ('steady' scope) together, then give every comparison its verdict and
 * reason. 'startup' and 'info' comparisons keep their unadjusted p, get a verdict for information, and
 * never gate.
 * Returns new objects; the input is not modified.
 */
export function decide(comparisons: readonly Comparison[], opts: DecideOptions): Comparison[] {
  const out = comparisons.map(c => ({ ...c, p_adjusted: c.p_gate ?? c.welch.p }))
  const family = out.filter(c => c.scope === 'steady')
  const adjusted = holm(family.map(c => c.p_adjusted))
  for (const [i, c] of family.entries()) c.p_adjusted = at(adjusted, i)
  // The regression claim is "above the threshold", one-sided: Holm across the gated metrics that carry it,
  // so k metrics each truly at the threshold do not give k chances of a false regression.
  const claims = family.flatMap(c => (c.p_regression === undefined ? [] : [{ c, p: c.p_regression }]))
  const adjustedClaims = holm(claims.map(claim => claim.p))
  for (const [i, { c }] of claims.entries()) c.p_regression_adjusted = at(adjustedClaims, i)
  return out.map(c => redecide(c, opts))
}

/**
 * A comparison's verdict and reason from its own figures (its p values already Holm-adjusted): what `decide`
 * gives each comparison, and what the sequential check gives one whose interval it replaced by the repeated
 * one, so the reason quotes the interval the verdict rests on (issue 51). Returns a new object.
 */
export function redecide(input: Comparison, opts: DecideOptions): Comparison {
  const c = { ...input }
  const enough = c.n_baseline >= 2 && c.n_candidate >= 2
  c.runs_needed = null
  let { verdict, reason } = verdictAndReason(c, opts)
  if (
    verdict === 'inconclusive' &&
    enough &&
    c.history === undefined &&
    c.tail_support === undefined &&
    !(c.undefined_stats ?? []).includes('overhead_pct')
  ) {
    c.runs_needed = runsToDetect(c, opts)
    ;({ verdict, reason } = verdictAndReason(c, opts))
  }
  // An end the data do not bound is said in words, with what would bound it (issue 51).
  const unbounded = unboundedReason(c.ci95, c.runs_needed)
  if (unbounded !== null) reason = `${reason} The interval: ${unbounded}.`
  c.verdict = verdict
  c.reason =
    c.scope === 'startup'
      ? `Start-up phase, reported and never gating: ${reason}`
      : c.scope === 'info'
        ? `Reported for information (${/^(data_read_mb_s|ckpt_write_mb_s)$/.test(c.metric) ? 'bind-mounted data path: the same file system in both arms' : 'container writable layer'}), never gating: ${reason}`
        : c.scope === 'derived'
          ? `Derived from a gated metric, shown and not tested again: ${reason}`
          : c.scope === 'tail'
            ? `Tail percentile, shown and not gating (name it in gate-metrics to gate it): ${reason}`
            : reason
  return c
}

/**
 * regression if any gating comparison regressed; else incomparable if any comparison is; else equivalent
 * if every gating comparison is equivalent or an improvement (and there is at least one); else inconclusive.
 */
export function overallVerdict(comparisons: readonly Comparison[]): MetricVerdict {
  const gating = comparisons.filter(c => c.scope === 'steady')
  if (gating.some(c => c.verdict === 'regression')) return 'regression'
  if (comparisons.some(c => c.verdict === 'incomparable')) return 'incomparable'
  if (gating.length > 0 && gating.every(c => c.verdict === 'equivalent' || c.verdict === 'improvement'))
    return 'equivalent'
  return 'inconclusive'
}
