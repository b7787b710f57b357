/**
 * Tail metrics (issue 39): the p90 and higher percentiles of TTFT, TPOT, ITL (and E2E where a tool reports
 * it) — what `vllm bench serve`, SGLang, trtllm-bench and AIPerf report, and what the built-in llm emits once
 * per process and configuration (`ttft_p99_ms`, …, `per_process: true`, docs/protocol.md). They are shown and
 * gate only where the user names them (`gate-metrics: llm/tpot_p99_ms,vllm-bench-serve/p99_ttft_ms`).
 *
 * Which metrics are tail metrics goes with the workload's name and the metric's name, whoever emits it: the
 * built-in llm and the LLM-serving result-file formats. A user's own workload keeps every metric it emits as
 * it declared it (a `latency_p99` of a user command is not demoted).
 *
 * The test of a tail metric: a per-process percentile is one value per process, not a mean of requests, so
 * the ratio of request means (stats/ratio-of-means.ts) does not apply. Each block gives the ratio of its two
 * processes' percentiles, and the paired t-test runs on the log of those ratios (stats/log-ratio.ts): a
 * percentile of a few hundred requests is right-skewed and its changes are multiplicative, the log makes
 * the block ratios near-symmetric and weighs every block alike (one block's hiccup does not dominate as it
 * would in a ratio of means), and the t-test gives the interval, the equivalence test (TOST) and the
 * one-sided regression test every other metric has. A sign or Wilcoxon signed-rank test was the other
 * candidate; at the 6–12 blocks of a check neither can give an interval or pass Holm's level with several
 * gated metrics (the sign test's smallest two-sided p at 6 blocks is 0.031), so they cannot claim
 * equivalence at all.
 */

/** The workloads whose percentile metrics are tail metrics: the built-in llm and the LLM-serving formats. */
export const TAIL_WORKLOADS = [
  'llm',
  'vllm-bench-serve',
  'sglang-bench-serving',
  'trtllm-bench',
  'aiperf'
] as const

/** The built-in llm's per-process tail metrics. */
export const LLM_TAIL_METRICS = [
  'ttft_p90_ms',
  'ttft_p99_ms',
  'tpot_p90_ms',
  'tpot_p99_ms',
  'itl_p90_ms',
  'itl_p99_ms'
] as const

/** A percentile p90 … p99.9 as a name part: `p99_ttft_ms`, `ttft_p99_ms`, `ttft_percentiles.p99`, `itl.p99.9`. */
const TAIL_PART = /(?:^|[_.])p9\d(?:\.\d{1,3})?(?=[_.]|$)/

/** A percentile of p90 or above of an LLM-serving workload: shown, gated only when named. */
export function isTailMetric(workload: string, metric: string): boolean {
  if (!(TAIL_WORKLOADS as readonly string[]).includes(workload)) return false
  const name = metric.split('@')[0] ?? metric
  if (workload === 'llm') return (LLM_TAIL_METRICS as readonly string[]).includes(name)
  // trtllm-bench's per-user generation rate (`gen_tps_percentiles.p99`) is a rate, not a latency tail;
  // still a percentile of requests and tested like one.
  return TAIL_PART.test(name)
}

/**
 * How many values a per-process percentile must rest on to be a tail (issue 52, T3): at least TAIL_BEYOND values
 * beyond it, so 3 / (1 − q) in all: p90 30, p99 300, p99.9 3000. Below that the percentile is about the largest
 * value of the process — the built-in llm's p99 of its 3 requests (6 before 1.1) is their maximum — and a slowdown that a few
 * requests in a hundred pay is in too few processes to move it: 2% of requests ×1.5 (true p99 +40%) was flagged
 * in 0 of 600 checks at 6 requests, 38.5% at 100 and 75% at 200 (scripts/simulate-verdicts.ts, docs/error-rates.md).
 */
export const TAIL_BEYOND = 3

/** The percentile of a tail metric's name (`tpot_p99_ms` → 99), or null. */
export function tailQuantile(metric: string): number | null {
  const m = /(?:^|[_.])p(9\d(?:\.\d{1,3})?)(?=[_.]|$)/.exec(metric.split('@')[0] ?? metric)
  return m === null ? null : Number(m[1])
}

/** Values a per-process q-th percentile needs (TAIL_BEYOND beyond it). */
export function valuesNeeded(q: number): number {
  return Math.ceil((TAIL_BEYOND * 100) / (100 - q) - 1e-9)
}

/** The built-in llm's per-request metric a tail metric is a percentile of (`tpot_p99_ms` → `tpot_ms`). */
export function llmTailBase(metric: string): string | null {
  const name = metric.split('@')[0] ?? metric
  if (!(LLM_TAIL_METRICS as readonly string[]).includes(name)) return null
  return name.replace(/_p9\d_ms$/, '_ms')
}

/**
 * Requests per llm process a check runs: the default, or, where gate-metrics names a tail of the llm, as many as
 * its percentile needs (valuesNeeded): one value a request for TTFT and TPOT, `gapsPerRequest` token gaps a
 * request for ITL (output length − 1: 127 on a GPU, 7 on the CPU).
 */
export function llmRequests(
  defaultRequests: number,
  gate: readonly GateMetric[],
  gapsPerRequest: number
): number {
  let n = defaultRequests
  for (const g of gate) {
    const q = g.workload === 'llm' ? tailQuantile(g.metric) : null
    if (q === null) continue
    if (/^(ttft|tpot)_/.test(g.metric)) n = Math.max(n, valuesNeeded(q))
    else if (/^itl_/.test(g.metric)) n = Math.max(n, Math.ceil(valuesNeeded(q) / Math.max(1, gapsPerRequest)))
  }
  return n
}

/** One `workload/metric` entry of gate-metrics. */
export interface GateMetric {
  workload: string
  metric: string
}

/** The named tail metrics as a lookup: `workload\0metric`. */
export type GateMetricSet = ReadonlySet<string>

export function gateMetricKey(workload: string, metric: string): string {
  return `${workload}\u0000${metric.split('@')[0] ?? metric}`
}

export function gateMetricSet(list: readonly GateMetric[]): GateMetricSet {
  return new Set(list.map(g => gateMetricKey(g.workload, g.metric)))
}

/** Whether a tail metric is named in gate-metrics. */
export function isGatedTail(workload: string, metric: string, gate: GateMetricSet | undefined): boolean {
  return gate !== undefined && gate.has(gateMetricKey(workload, metric))
}

/** The entry grammar, shown in every error. */
export const GATE_METRICS_ALLOWED =
  'a comma- or newline-separated list of WORKLOAD/METRIC tail metrics, e.g. llm/tpot_p99_ms,vllm-bench-serve/p99_ttft_ms; ' +
  `llm's are ${LLM_TAIL_METRICS.join(', ')}; the result-file formats' (${TAIL_WORKLOADS.filter(w => w !== 'llm').join(', ')}) are their p90–p99.9 metrics as the file names them; empty: the default gated set (tails shown, not gated)`

/**
 * Parse gate-metrics. Returns null and the offending entry where an entry is malformed, names a workload
 * with no tail metrics, or a metric that is not a tail metric (the others gate already).
 */
export function parseGateMetrics(
  raw: string
): { ok: true; list: GateMetric[] } | { ok: false; entry: string } {
  const entries = raw
    .split(/[,\n]/)
    .map(s => s.trim())
    .filter(s => s !== '')
  const list: GateMetric[] = []
  const seen = new Set<string>()
  for (const entry of entries) {
    const [, workload, metric] = /^([A-Za-z0-9_.-]{1,64})\/([A-Za-z0-9_.-]{1,128})$/.exec(entry) ?? []
    if (workload === undefined || metric === undefined || !isTailMetric(workload, metric))
      return { ok: false, entry }
    const key = gateMetricKey(workload, metric)
    if (seen.has(key)) continue
    seen.add(key)
    list.push({ workload, metric })
  }
  return { ok: true, list }
}
