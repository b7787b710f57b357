/**
 * A check on several GPUs at once: the headline pools every GPU's runs, each GPU also gets its own
 * native-vs-container analysis, and each GPU is tested against its siblings within every arm — a GPU
 * that is slower in both arms is a hardware/host problem, one slower in the container arm only points
 * at the container's GPU access (pinning, NUMA, a different device node).
 */
import type {
  Analysis,
  GpuDeviation,
  GpuLaneInfo,
  MultiGpuSummary,
  PerGpuAnalysis,
  SampleRecord
} from '../types/index.js'
import { blockScaled } from '../results/index.js'
import { analyzeRecords, type AnalyzeRecordsOptions } from './compare/index.js'
import { holm } from './stats/index.js'

/** Rows for the pooled analysis and the baseline: each GPU a block (see blockScaled). */
export function pooledRows(samples: readonly SampleRecord[]): SampleRecord[] {
  return blockScaled(samples, s => (s.gpu === undefined ? null : String(s.gpu)))
}

export function perGpuAnalyses(
  samples: readonly SampleRecord[],
  gpus: readonly GpuLaneInfo[],
  opts: AnalyzeRecordsOptions
): PerGpuAnalysis[] {
  return gpus.map(gpu => ({
    gpu,
    analysis: analyzeRecords(
      samples.filter(s => s.gpu === gpu.index),
      opts
    )
  }))
}

const THIS = 'this GPU'
const SIBLINGS = 'siblings'

/**
 * Each GPU against the pooled others, per arm and steady metric; with two GPUs one test per pair (the
 * second against the first), since "which one is odd" cannot be told from two. One Holm family for all.
 */
export function gpuDeviations(
  samples: readonly SampleRecord[],
  gpus: readonly GpuLaneInfo[],
  environments: readonly string[],
  opts: Pick<AnalyzeRecordsOptions, 'maxOverheadPct' | 'alpha' | 'seed'>
): GpuDeviation[] {
  const tested = gpus.length === 2 ? gpus.slice(1) : gpus
  const steady = samples.filter(s => s.scope === 'steady' && s.gpu !== undefined)
  const found: (Omit<GpuDeviation, 'p_adjusted' | 'deviates'> & { p: number })[] = []
  for (const environment of environments) {
    const arm = steady.filter(s => s.environment === environment)
    for (const gpu of tested) {
      const siblings = gpus.filter(g => g.index !== gpu.index).map(g => g.index)
      // Relabelled, fingerprint-free copies: the two sides differ in GPU UUID on purpose.
      const rows = arm.map(s => ({
        ...s,
        environment: s.gpu === gpu.index ? THIS : SIBLINGS,
        fingerprint: undefined
      }))
      const analysis = analyzeRecords(rows, {
        baselineEnv: SIBLINGS,
        candidateEnvs: [THIS],
        maxOverheadPct: opts.maxOverheadPct,
        alpha: opts.alpha,
        seed: opts.seed
      })
      for (const c of analysis.comparisons)
        found.push({
          gpu: gpu.index,
          siblings,
          workload: c.workload,
          metric: c.metric,
          unit: c.unit,
          environment,
          params: c.params,
          median: c.median_candidate,
          siblings_median: c.median_baseline,
          deviation_pct: c.overhead_pct,
          ci95: c.ci95,
          p: c.p_gate ?? c.welch.p
        })
    }
  }
  const adjusted = holm(found.map(f => f.p))
  const threshold = opts.maxOverheadPct
  return found.map(({ p: _p, ...f }, i) => {
    const p = adjusted[i] ?? 1
    return {
      ...f,
      p_adjusted: p,
      deviates: p < opts.alpha && (f.ci95.low > threshold || f.ci95.high < -threshold)
    }
  })
}

export function multiGpuSummary(
  samples: readonly SampleRecord[],
  gpus: readonly GpuLaneInfo[],
  opts: AnalyzeRecordsOptions
): MultiGpuSummary {
  return {
    gpus: [...gpus],
    pooled: true,
    per_gpu: perGpuAnalyses(samples, gpus, opts),
    deviations: gpuDeviations(samples, gpus, [opts.baselineEnv, ...opts.candidateEnvs], opts),
    threshold_pct: opts.maxOverheadPct
  }
}

function fmt(v: number): string {
  return `${v >= 0 ? '+' : '\u2212'}${Math.abs(v).toFixed(2)}%`
}

/** What a reader must not miss: one GPU regressing under a passing pool, and GPUs unlike their siblings. */
export function multiGpuWarnings(summary: MultiGpuSummary, pooled: Analysis | null): string[] {
  const out: string[] = []
  if (pooled?.verdict !== 'regression')
    for (const p of summary.per_gpu) {
      const worst = p.analysis.comparisons.filter(c => c.scope === 'steady' && c.verdict === 'regression')
      for (const c of worst)
        out.push(
          `GPU ${p.gpu.index} alone shows a regression: ${c.workload} ${c.metric} ${c.candidate_env} vs ${c.baseline_env} ` +
            `${fmt(c.overhead_pct)} [${fmt(c.ci95.low)}, ${fmt(c.ci95.high)}] while the pool of ${summary.gpus.length} GPUs does not; ` +
            'look at that GPU (its device node, NUMA placement, clocks) before trusting the pooled pass'
        )
    }
  for (const d of summary.deviations.filter(x => x.deviates))
    out.push(
      `GPU ${d.gpu} deviates from GPU${d.siblings.length > 1 ? 's' : ''} ${d.siblings.join(', ')} in ${d.environment}: ` +
        `${d.workload} ${d.metric} ${fmt(d.deviation_pct)} [${fmt(d.ci95.low)}, ${fmt(d.ci95.high)}] (Holm p ${d.p_adjusted.toPrecision(2)})`
    )
  return out
}
