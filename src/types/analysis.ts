/** What the analyze stage produces: per-metric comparisons and the analysis of a check. */
import type { MetricVerdict, MetricScope, Direction } from './basics.js'

// ---- Analysis ----

export interface Descriptive {
  n: number
  mean: number
  median: number
  sd: number
  mad: number
  min: number
  max: number
  p5: number
  p25: number
  p75: number
  p95: number
}

export interface Comparison {
  workload: string
  metric: string
  unit: string
  direction: Direction
  scope: MetricScope
  baseline_env: string
  candidate_env: string
  n_baseline: number
  n_candidate: number
  mean_baseline: number
  mean_candidate: number
  median_baseline: number
  median_candidate: number
  sd_baseline: number
  sd_candidate: number
  /** Candidate vs baseline, positive = candidate worse, in percent. */
  overhead_pct: number
  /**
   * THE interval of overhead_pct: the one the verdict rests on and the only one printed beside it (headline,
   * table, reason, annotation, comment, summary, aggregate). The wider of bootstrap and t-delta for two samples,
   * Fieller's for blocks, the repeated interval after a sequential stop, the prediction interval against a
   * history. Every finite end lies above −100%; an end the data do not bound is ±Infinity here and reads "not
   * bounded" in text and `"unbounded"` (with `bounded: false` and a reason) in JSON.
   */
  ci95: { low: number; high: number }
  /** 95% bootstrap CI of the overhead on medians. */
  ci95_median: { low: number; high: number }
  /** t > 0 when the candidate mean is higher (raw scale, as scipy ttest_ind(candidate, baseline)). */
  welch: {
    t: number
    df: number
    p: number
    /** False when t is undefined (n < 2 or zero variance in both arms); t and df are then 0. */
    defined?: boolean
  }
  /** u is the candidate's U statistic. */
  mann_whitney: { u: number; p: number; method: 'exact' | 'permutation' | 'normal'; log10_p?: number }
  tost: { margin_pct: number; p: number; equivalent: boolean }
  /** Holm-adjusted p (of Welch) across the gating comparisons of one report. */
  p_adjusted: number
  /** Minimum detectable effect (percent of baseline mean) at alpha, power 0.8. */
  mde_pct: number
  /** Runs per arm that would detect an effect of max-overhead (when inconclusive). */
  runs_needed: number | null
  /** Runs (run numbers; 1-based positions when runs are not numbered) flagged by Tukey or MAD; kept in the tests. */
  outliers: { baseline: number[]; candidate: number[] }
  verdict: MetricVerdict
  /** One sentence explaining the verdict. */
  reason: string
  /** Canonical workload params when the input distinguishes configurations of one workload. */
  params?: string
  /** Where `direction` came from: declared (`better` on the samples or CSV) or a time unit (lower). */
  direction_source?: 'declared' | 'unit'
  /** Why this comparison's figures need care (e.g. constant arms: timer resolution). */
  warnings?: string[]
  /** Which interval ci95 is: the wider of the percentile bootstrap and the Welch t delta-method interval. */
  ci_method?: 'bootstrap' | 't-delta' | 'paired'
  ci95_median_method?: 'bootstrap' | 't-delta'
  /**
   * After a sequential stop: the fixed-n interval, which is nominal there and which no verdict rests on; ci95 is
   * then the repeated interval that holds after the stop (analyze/repeated-ci.ts). Never printed beside a verdict.
   */
  ci95_fixed_n_for_reference?: { low: number; high: number }
  /** Both candidate intervals of overhead_pct, before the wider was chosen. */
  ci95_bootstrap?: { low: number; high: number }
  ci95_t_delta?: { low: number; high: number }
  /** Unadjusted p that gates (Welch's; Mann–Whitney's when Welch's t is undefined), before Holm. */
  p_gate?: number
  p_source?: 'welch' | 'mann-whitney' | 'prediction-interval' | 'paired'
  /**
   * One-sided p of "the overhead is at most max-overhead" (small: above it), before Holm; the regression claim
   * needs it Holm-adjusted across the gated metrics below alpha/2, so several gated metrics do not multiply
   * the chance of a false regression. Stored-baseline comparisons carry it too (their prediction interval at the
   * threshold, issue 39 S1), so they share the arms' Holm family.
   */
  p_regression?: number
  /** p_regression after Holm across the gating comparisons of one report. */
  p_regression_adjusted?: number
  /**
   * The within-block analysis (adjacent A/B processes of the interleaved schedule, or a duet's simultaneous
   * pair; compare/pairs.ts) that overhead_pct, ci95, p_gate and the TOST come from when present: the ratio of
   * the arms' request means over every block, with Fieller's paired interval (stats/ratio-of-means.ts), so a
   * host state shared by both processes of a block cancels.
   */
  paired?: {
    blocks: number
    /** Strata of blocks (a duet: the GPU pair and its orientation), each paid for with a degree of freedom. */
    strata: number
    /** Degrees of freedom of the paired test: blocks − strata. */
    df: number
    /** Blocks the screened view leaves out as far off the others (5 scaled MADs); no verdict rests on it. */
    left_out: number
    /** The screened view's overhead, % (compare/agreement.ts). */
    screened_pct: number
    /** The per-block overheads, %, in run order (each block's ratio of its two processes' request means). */
    block_pcts: number[]
  }
  /** The screened view lies outside the interval of the estimate: the report says why (compare/agreement.ts). */
  screened_disagrees?: boolean
  /**
   * Stored-baseline comparisons only: the history the new check was judged against, check by check
   * (n_baseline is then the number of stored checks, mean_baseline the mean of their means).
   */
  history?: HistoryFacts
  /** Fields holding placeholders (0) because the statistic is undefined for these data (e.g. n < 2). */
  undefined_stats?: string[]
  /** Fingerprint differences that make this comparison incomparable, e.g. `driver: 570.86 vs 580.95`. */
  incomparable_fields?: string[]
  /** Arms whose per-run values split into two separated groups (analyze/modality.ts); named in the notes. */
  multimodal_arms?: string[]
  /** Both arms' per-run values sit at the same two levels (analyze/modality.ts): a state both arms saw. */
  shared_levels?: boolean
  /** The widest gap between two levels of one arm (% of its median), where the levels are not shared. */
  levels_gap_pct?: number
  /** Blocks far off the others' median (analyze/far-blocks.ts): named in the notes. */
  far_blocks?: number
  /**
   * A per-process percentile resting on too few values to be a tail (config/tail-metrics.ts, valuesNeeded): the
   * fewest values a process had and the count its percentile needs. Such a comparison is not tested (issue 52, T3).
   */
  tail_support?: { per_process: number; needed: number }
}

/** The comparison against the stored baseline (a check's, or `analyze --baseline`). */
export interface BaselineResult {
  status: 'compared' | 'no-baseline' | 'no-match' | 'corrupt' | 'disabled'
  path: string
  message: string
  /** Current (candidate) vs stored (baseline) per workload/metric/environment. */
  comparisons: Comparison[]
  /** True when this run's samples were appended to the baseline file. */
  saved: boolean
}

export interface Analysis {
  comparisons: Comparison[]
  verdict: MetricVerdict
  max_overhead_pct: number
  alpha: number
  baseline_env?: string
  candidate_env?: string
  /** Things the reader should know (environments chosen, metrics present in one arm only...). */
  notes?: string[]
  /** Comparison against the stored baseline, when one was asked for (`analyze --baseline`). */
  baseline?: BaselineResult
  /** Set when nothing gated could be tested (the verdict is then an error, exit 2). */
  error?: string
}

/** Day-to-day facts of a history, for the report. */
export interface HistoryFacts {
  /** Stored checks compared with (k). */
  checks: number
  /** Stored runs behind them. */
  runs: number
  /** sd of the stored check means, % of their mean: the day-to-day spread (includes run noise / √n). */
  check_sd_pct: number
  /** Pooled run-to-run sd within checks, % of the mean. */
  run_sd_pct: number
  /** The stored check means, oldest first. */
  check_means: number[]
  /** Prediction-interval t statistic, its df and two-sided p. */
  t: number
  df: number
  /**
   * The stored checks that formed the reference (ids, oldest first), and those left out: a stored check the
   * others would have flagged as worse (its interval against them wholly above +max-overhead), with its overhead
   * against them. Absent in summaries written before issue 28.
   */
  reference?: string[]
  left_out?: { check: string; overhead_pct: number }[]
  /**
   * The comparison is against the anchor (the entry's oldest accepted checks, or a pinned set), not the rolling
   * reference of the last accepted checks (issue 39, S11).
   */
  against?: 'anchor'
  /**
   * Where the rolling reference stands against the anchor, when they differ: the anchor's checks, and how far
   * the reference's level has moved from the anchor's (%, positive = worse), so a creep is named.
   */
  anchor?: { checks: string[]; moved_pct: number; pinned: boolean }
}
