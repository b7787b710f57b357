/**
 * Which findings can explain a measured difference (their domains touch it), merged across workloads
 * and ranked: relevant first, then by impact, then causes (configuration) before the conditions they
 * produce (clocks, power, utilisation).
 */
import type { Domain, Finding, FindingKind, MeasuredDifference } from '../../types/index.js'
import { describeDifference } from './measured.js'
import { cotenantExplains } from './cotenants.js'

/** Causes (configuration) before the conditions they produce (clocks, power, utilisation). */
const KIND_ORDER: readonly FindingKind[] = [
  // An arm that failed measured nothing: its cause comes first.
  'failure',
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
export function explainsOf(f: Finding, measured: readonly MeasuredDifference[]): string[] {
  if (f.impact === 0) return []
  if (f.kind === 'cotenant') return cotenantExplains(f, measured)
  if (f.kind === 'startup') {
    const [, workload, metric] = f.key.split(':')
    return measured.filter(m => m.workload === workload && m.metric === metric).map(describeDifference)
  }
  const scope = f.kind === 'env' || f.kind === 'stack' ? [] : f.workloads
  return explained(f.domains, measured, scope)
}

export function merge(findings: Finding[]): Finding[] {
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
      Number(b.kind === 'failure') - Number(a.kind === 'failure') ||
      // A neighbour only in the slower arm is direct evidence: above any configuration fact.
      Number(b.kind === 'cotenant') - Number(a.kind === 'cotenant') ||
      b.impact - a.impact ||
      b.explains.length - a.explains.length ||
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      a.key.localeCompare(b.key)
  )
}

export function headline(findings: readonly Finding[], measured: readonly MeasuredDifference[]): string {
  const relevant = findings.filter(f => f.relevant)
  const top = relevant[0]
  if (top === undefined) {
    if (measured.length === 0)
      return 'no relevant difference found: the stacks agree and no metric showed a difference'
    // A metric whose arms sat at the same two levels has a cause the stack does not record: say which.
    const shared = measured.filter(m => m.shared_levels)
    // Blocks far off the others say more than "no difference found": name them (a level already named covers it).
    const far = measured.filter(m => m.far_blocks && !m.shared_levels)
    return (
      `no relevant difference found among the recorded facts for ${measured.map(describeDifference).join(', ')}` +
      (shared.length
        ? `; ${shared.map(m => `${m.workload} ${m.metric}`).join(', ')}: both arms sat at the same two levels, a state of the host over time (see the notes)`
        : '') +
      (far.length
        ? `; ${far.map(m => `${m.workload} ${m.metric}: ${m.far_blocks} block${m.far_blocks === 1 ? '' : 's'}`).join(', ')} far off the others, a host state between a block's two processes or a slow path (see the notes)`
        : '')
    )
  }
  if (top.kind === 'failure') {
    const others = relevant.length > 1 ? ` (+${relevant.length - 1} more)` : ''
    return `${top.label}${top.from_image_env ? ` — ${top.candidate ?? ''} set by the image` : ''}; fix: ${top.fix}${others}`
  }
  const more = relevant.length > 1 ? ` (+${relevant.length - 1} more)` : ''
  return `most likely: ${top.label} ${top.baseline ?? 'unset'} → ${top.candidate ?? 'unset'}${more}`
}
