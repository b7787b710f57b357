/**
 * "Why the arms differ": every recorded difference between the baseline arm and the candidate arm
 * (environment variables, stack facts, clocks, throttling, power, utilisation, memory, start-up
 * phases), each with its meaning and a fix, ranked by whether it can explain a difference the check
 * measured, then by how strongly such a difference changes speed. Knowledge lives in knowledge.ts;
 * nothing here names a particular variable.
 */
import { appendAll, maxOf } from '../../util/arrays.js'
import type { Analysis, Comparison, StackRecord, TelemetrySummary } from '../../types/index.js'
import {
  FACT_RULES,
  LIBRARY_SCOPED_ENV,
  UNKNOWN_FACT,
  envKnowledge,
  type Knowledge
} from '../../execute/index.js'
import type { Domain } from '../../types/index.js'
import { MEMORY_METRIC, describeDifference, isMeasuredDifference, measuredDifferences } from './measured.js'
import { armStacks, diffFlat, envOf, flatten, type Flat } from '../../execute/index.js'
import { GPU_SELECTION_ENV } from '../../tools/gpu-access.js'
import { startupFindings } from './startup.js'
import { cotenantExplains, cotenantFindings } from './cotenants.js'
import { telemetryFindings, type ArmTelemetry } from './telemetry.js'
import type { ArmStack, Explanation, Finding, FindingKind, MeasuredDifference } from '../../types/index.js'

export type { ArmTelemetry } from './telemetry.js'

export interface ExplainInput {
  baselineEnv: string
  candidateEnv: string
  device: 'gpu' | 'cpu'
  alpha: number
  stacks: readonly ArmStack[]
  /** Declared ENV of each container arm's image (docker image inspect), by arm label. */
  imageEnv: Readonly<Record<string, Readonly<Record<string, string>>>>
  comparisons: readonly Comparison[]
  telemetry: readonly ArmTelemetry[]
}

/** Causes (configuration) before the conditions they produce (clocks, power, utilisation). */
const KIND_ORDER: readonly FindingKind[] = [
  // A process beside the workload in one arm: what it measured was shared, whatever the configuration.
  'cotenant',
  'env',
  'stack',
  'throttling',
  'clocks',
  'memory',
  'startup',
  'power',
  'utilization'
]

function overlaps(a: readonly Domain[], b: readonly Domain[]): boolean {
  return a.some(d => b.includes(d))
}

/** The measured differences a finding of these domains can explain, as text. */
function explained(
  domains: readonly Domain[],
  measured: readonly MeasuredDifference[],
  workloads: readonly string[]
): string[] {
  return measured
    .filter(m => overlaps(domains, m.domains) && (workloads.length === 0 || workloads.includes(m.workload)))
    .map(describeDifference)
}

/** Impact from which a finding that touches a measured difference counts as a likely cause. */
export const RELEVANT_IMPACT = 2

/**
 * The measured differences a finding can explain: a stack or environment difference any difference in
 * its domains (both arms run every workload on the same stack); telemetry and memory only their own
 * workload's; a start-up finding only its own phase.
 */
function explainsOf(f: Finding, measured: readonly MeasuredDifference[]): string[] {
  if (f.impact === 0) return []
  if (f.kind === 'cotenant') return cotenantExplains(f, measured)
  if (f.kind === 'startup') {
    const [, workload, metric] = f.key.split(':')
    return measured.filter(m => m.workload === workload && m.metric === metric).map(describeDifference)
  }
  const scope = f.kind === 'env' || f.kind === 'stack' ? [] : f.workloads
  return explained(f.domains, measured, scope)
}

const MEMORY_MEANING: Readonly<Record<string, string>> = {
  gpu_mem_process_mib:
    'device memory the driver charges the process (NVML): context, kernel images, library workspaces and the allocator pool',
  gpu_mem_non_torch_mib:
    'device memory outside torch’s pool: CUDA context, loaded kernel images (EAGER module loading), cuBLAS/cuDNN workspaces',
  gpu_mem_reserved_mib: 'memory torch’s caching allocator holds',
  gpu_mem_peak_allocated_mib: 'peak memory of live tensors',
  kv_cache_tokens_fit: 'KV-cache tokens that still fit on the device after warm-up'
}

/** Memory metrics that shifted significantly: a cost of their own (less room for batch or KV cache). */
function memoryFindings(comparisons: readonly Comparison[], alpha: number): Finding[] {
  return comparisons
    .filter(c => MEMORY_METRIC.test(c.metric) && isMeasuredDifference(c, alpha))
    .map(c => ({
      kind: 'memory' as const,
      key: `memory:${c.workload}:${c.metric}`,
      label: `${c.metric} of ${c.workload}`,
      baseline: `${c.mean_baseline.toFixed(0)} ${c.unit}`,
      candidate: `${c.mean_candidate.toFixed(0)} ${c.unit}`,
      impact: 2 as const,
      domains: ['memory' as const],
      explains: [],
      workloads: [c.workload],
      meaning: MEMORY_MEANING[c.metric] ?? 'GPU memory differs between the arms',
      fix: 'compare CUDA_MODULE_LOADING, PYTORCH_CUDA_ALLOC_CONF and the CUDA library rows; a larger footprint leaves less room for batch and KV cache',
      relevant: false
    }))
}

function ruleFor(
  key: string,
  base: Flat,
  cand: Flat
): { ignore: boolean; label: string; knowledge: Knowledge } {
  const rule = FACT_RULES.find(r => r.pattern.test(key))
  if (rule?.ignore) return { ignore: true, label: key, knowledge: UNKNOWN_FACT }
  const knowledge = rule?.knowledge ?? UNKNOWN_FACT
  const matters = rule?.mattersIf ? rule.mattersIf(base, cand) : true
  return {
    ignore: false,
    label: rule?.label ?? key,
    knowledge: matters
      ? knowledge
      : { ...knowledge, impact: 0, meaning: `${knowledge.meaning} (not used here)` }
  }
}

function imageEnvMap(env: Readonly<Record<string, string>> | undefined): Map<string, string> {
  return new Map(Object.entries(env ?? {}))
}

/** Findings of one workload's pair of stacks; merged across workloads by key afterwards. */
function stackFindings(base: ArmStack, cand: ArmStack, image: Map<string, string>): Finding[] {
  const out: Finding[] = []
  const varies = new Set([...base.varies, ...cand.varies])
  const bf = flatten(base.facts)
  const cf = flatten(cand.facts)
  // Facts of one kind (every numpy.blas.* key, say) make one finding, shown by its most general
  // key (the shortest: numpy.blas.name before numpy.blas.build.version); the others are listed.
  const groups = new Map<
    string,
    {
      rule: ReturnType<typeof ruleFor>
      diffs: { key: string; baseline: string | null; candidate: string | null }[]
    }
  >()
  for (const d of diffFlat(bf, cf)) {
    const rule = ruleFor(d.key, bf, cf)
    if (rule.ignore || varies.has(d.key)) continue
    const label = rule.label === d.key ? d.key : rule.label
    const g = groups.get(label) ?? { rule, diffs: [] }
    g.diffs.push(d)
    groups.set(label, g)
  }
  for (const [label, { rule, diffs }] of groups) {
    const [main, ...rest] = [...diffs].sort(
      (a, b) => a.key.length - b.key.length || a.key.localeCompare(b.key)
    )
    out.push({
      kind: 'stack',
      key: main!.key,
      label: label === main!.key ? label : `${label} (${main!.key})`,
      baseline: main!.baseline,
      candidate: main!.candidate,
      impact: maxOf(diffs.map(d => ruleFor(d.key, bf, cf).knowledge.impact)) as Finding['impact'],
      domains: [...rule.knowledge.domains],
      explains: [],
      workloads: [base.workload],
      meaning: rule.knowledge.meaning,
      fix: rule.knowledge.fix,
      relevant: false,
      ...(rest.length ? { also: rest.map(d => d.key) } : {})
    })
  }
  const be = envOf(base.facts)
  const ce = envOf(cand.facts)
  for (const name of [...new Set([...be.keys(), ...ce.keys()])].sort()) {
    // GPU selection: this tool sets it for the native arm; the container gets it by device flags.
    if ((GPU_SELECTION_ENV as readonly string[]).includes(name)) continue
    const x = be.get(name) ?? null
    const y = ce.get(name) ?? null
    if (x === y) continue
    const k = envScoped(name, x === null ? cf : bf, envKnowledge(name))
    out.push({
      kind: 'env',
      key: `env:${name}`,
      label: name,
      baseline: x,
      candidate: y,
      impact: k.impact,
      domains: [...k.domains],
      explains: [],
      workloads: [base.workload],
      meaning: k.meaning,
      fix: k.fix,
      relevant: false,
      ...(y !== null && image.get(name) === y ? { from_image_env: true } : {})
    })
  }
  return out
}

/** A library's variable where the arm that sets it has not loaded that library: no effect. */
function envScoped(name: string, setIn: Flat, k: Knowledge): Knowledge {
  const scope = LIBRARY_SCOPED_ENV.find(l => l.prefixes.some(p => name.startsWith(p)))
  if (!scope) return k
  const blas = [setIn.get('numpy.blas.name'), setIn.get('libraries.blas')].filter((v): v is string => !!v)
  if (blas.length === 0 || blas.some(v => scope.library.test(v))) return k
  return { ...k, impact: 0, meaning: `${k.meaning} (that library is not loaded in the arm that sets it)` }
}

function merge(findings: Finding[]): Finding[] {
  const byKey = new Map<string, Finding>()
  for (const f of findings) {
    const seen = byKey.get(f.key)
    if (!seen) byKey.set(f.key, { ...f, workloads: [...f.workloads] })
    else for (const w of f.workloads) if (!seen.workloads.includes(w)) seen.workloads.push(w)
  }
  return [...byKey.values()]
}

export function rank(findings: Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      Number(b.relevant) - Number(a.relevant) ||
      // A neighbour only in the slower arm is direct evidence: above any configuration fact.
      Number(b.kind === 'cotenant') - Number(a.kind === 'cotenant') ||
      b.impact - a.impact ||
      b.explains.length - a.explains.length ||
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      a.key.localeCompare(b.key)
  )
}

function headline(findings: readonly Finding[], measured: readonly MeasuredDifference[]): string {
  const relevant = findings.filter(f => f.relevant)
  if (relevant.length === 0) {
    return measured.length === 0
      ? 'no relevant difference found: the arms measured alike'
      : `no relevant difference found among the recorded facts for ${measured.map(describeDifference).join(', ')}`
  }
  const top = relevant[0]!
  const more = relevant.length > 1 ? ` (+${relevant.length - 1} more)` : ''
  return `most likely: ${top.label} ${top.baseline ?? 'unset'} → ${top.candidate ?? 'unset'}${more}`
}

export function explain(input: ExplainInput): Explanation {
  const measured = measuredDifferences(input.comparisons, input.alpha, input.device)
  const image = imageEnvMap(input.imageEnv[input.candidateEnv])
  const raw: Finding[] = []
  for (const base of input.stacks.filter(s => s.environment === input.baselineEnv)) {
    const cand = input.stacks.find(s => s.environment === input.candidateEnv && s.workload === base.workload)
    if (cand) appendAll(raw, stackFindings(base, cand, image))
  }
  appendAll(raw, cotenantFindings(input.stacks, input.baselineEnv, input.candidateEnv))
  appendAll(raw, telemetryFindings(input.telemetry, input.baselineEnv, input.candidateEnv))
  appendAll(
    raw,
    startupFindings(input.comparisons, input.stacks, input.baselineEnv, input.candidateEnv, input.alpha)
  )
  appendAll(raw, memoryFindings(input.comparisons, input.alpha))
  const findings = merge(raw).map(f => {
    const explains = explainsOf(f, measured)
    return {
      ...f,
      explains,
      relevant: f.impact >= RELEVANT_IMPACT && explains.length > 0 && f.kind !== 'memory'
    }
  })
  const ranked = rank(findings)
  return {
    baseline_env: input.baselineEnv,
    candidate_env: input.candidateEnv,
    measured,
    findings: ranked,
    headline: headline(ranked, measured)
  }
}

/** Telemetry rows for the explainer: measured-region figures where the workloads marked a region. */
export function armTelemetry(rows: readonly TelemetrySummary[]): ArmTelemetry[] {
  return rows.map(t => {
    const r = t.region
    const samples = r?.samples ?? t.samples
    const throttled = r ? r.throttled_samples : t.throttled_samples
    return {
      workload: t.workload,
      environment: t.environment,
      samples,
      util_pct: r ? r.util_pct : t.mean_util_pct,
      sm_clock_mhz: r ? r.sm_clock_mhz : t.mean_sm_clock_mhz,
      power_w: r ? r.power_w : t.mean_power_w,
      throttled_fraction: samples > 0 ? throttled / samples : null,
      ...(r ? { reasons: r.reasons } : {})
    }
  })
}

export interface CheckExplainInput {
  analysis: Analysis | null
  device: 'gpu' | 'cpu'
  stacks: readonly StackRecord[]
  telemetry: readonly TelemetrySummary[]
  imageEnv: Readonly<Record<string, Readonly<Record<string, string>>>>
}

/** The explanation of a check's primary pair of arms; null when nothing was compared. */
export function explainCheck(input: CheckExplainInput): Explanation | null {
  const a = input.analysis
  if (!a?.baseline_env || !a.candidate_env) return null
  return explain({
    baselineEnv: a.baseline_env,
    candidateEnv: a.candidate_env,
    device: input.device,
    alpha: a.alpha,
    stacks: armStacks(input.stacks),
    imageEnv: input.imageEnv,
    comparisons: a.comparisons,
    telemetry: armTelemetry(input.telemetry)
  })
}
