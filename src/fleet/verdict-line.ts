/** aggregate.md's first line: the fleet's verdict and the groups that decided it, with the words both share. Pure. */
import { fmtPctCi, fmtPlain, inline } from '../report/index.js'
import type { Comparison } from '../types/index.js'
import type { AggregateGroup, AggregateReport } from './types.js'

const VERDICT_WORD: Record<AggregateGroup['verdict'], string> = {
  pass: 'PASS',
  regression: 'REGRESSION',
  inconclusive: 'UNDECIDED',
  incomparable: 'INCOMPARABLE',
  error: 'ERROR'
}

/** A group's status word: an undecided group is UNDECIDED, like the check's own report. */
export function groupWord(g: AggregateGroup): string {
  return VERDICT_WORD[g.verdict]
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** `NVIDIA H200, driver 580.95.05` or `cpu`. */
export function describeGroup(g: Pick<AggregateGroup, 'key'>): string {
  const k = g.key
  if (k.device === 'cpu' && k.gpu_name === null && k.driver === null) return 'cpu'
  const parts = [
    ...(k.device === 'gpu' ? [] : [k.device ?? 'unknown device']),
    k.gpu_name ?? 'unknown GPU',
    `driver ${k.driver ?? 'unknown'}`
  ]
  if (k.mig_mode && !/^disabled$/i.test(k.mig_mode)) parts.push(`MIG ${k.mig_mode}`)
  return parts.join(', ')
}

export function gated(g: AggregateGroup): Comparison[] {
  return g.analysis?.comparisons.filter(c => c.scope === 'steady') ?? []
}

function describe(c: Comparison): string {
  return `${c.workload} ${c.metric} (${c.candidate_env} vs ${c.baseline_env}) ${fmtPctCi(c.overhead_pct, c.ci95)}`
}

export function worst(list: Comparison[]): Comparison | undefined {
  return [...list].sort((a, b) => b.overhead_pct - a.overhead_pct)[0]
}

function groupWhy(g: AggregateGroup): string {
  const regressions = gated(g).filter(c => c.verdict === 'regression')
  const w = worst(regressions)
  if (w) {
    const more = regressions.length > 1 ? ` (and ${plural(regressions.length - 1, 'more metric')})` : ''
    return `${describe(w)}${more}`
  }
  if (g.verdict === 'error')
    return g.failed_preflight.length
      ? `preflight failed: ${g.failed_preflight.join('; ')}`
      : (g.notes.find(n => /incomplete/.test(n)) ?? 'nothing analysable was measured')
  const incomparable = gated(g).find(c => c.verdict === 'incomparable')
  if (incomparable) return incomparable.reason
  const list = gated(g)
  if (!list.length) return 'no gated steady-state metrics were measured'
  const counts = (['equivalent', 'inconclusive', 'incomparable'] as const)
    .map(v => [v, list.filter(c => c.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
  const [only] = counts
  if (counts.length === 1 && only)
    return `${list.length === 1 ? 'the' : 'all'} ${plural(list.length, 'gated metric')} ${only[0]}`
  return `${counts.map(([v, n]) => `${n} ${v}`).join(', ')} of ${plural(list.length, 'gated metric')}`
}

const MAX_NAMED = 4

/** Bold status word, an em dash, and why: the groups that decided it. */
export function aggregateVerdictLine(r: AggregateReport): string {
  const sources = r.groups.reduce((n, g) => n + g.sources.length, 0)
  const tail = `${plural(sources, 'result folder')} in ${plural(r.groups.length, 'group')} (pooled only within identical fingerprints)`
  const limit = `${fmtPlain(r.max_overhead_pct)}%`
  const named = (g: AggregateGroup): string =>
    `${g.id} (${describeGroup(g)}): ${groupWhy(g)}${g.verdict === 'regression' ? ` over the ${limit} limit` : ''}`
  // A fleet can have dozens of groups: the line names a few, the tables below have them all.
  const few = (list: AggregateGroup[]): string =>
    list.slice(0, MAX_NAMED).map(named).join('; ') +
    (list.length > MAX_NAMED ? `; and ${plural(list.length - MAX_NAMED, 'more group')}` : '')
  const body =
    r.verdict === 'pass'
      ? `no group shows a significant overhead above ${limit}: ${few(r.groups)}`
      : few(r.groups.filter(g => g.verdict === r.verdict))
  const word = `${VERDICT_WORD[r.verdict]}**`
  // The bold word is ours; what follows quotes recorded names and reasons: inert markdown (util/text.ts).
  return `**${word} — ${inline(body)}; ${tail}`
}
