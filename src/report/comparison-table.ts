/** The table of comparisons used by the gated steady-state and the writable-layer sections. Pure. */
import type { Comparison } from '../types/index.js'
import { cell, fmtOverheadCi, fmtP, fmtValue, metricLabel } from './format.js'
import type { Table } from './table.js'
import { table } from './table.js'
import { workloadName } from './verdict.js'
import { at } from '../util/must.js'

export interface ComparisonTableOptions {
  /** Sort key of an arm label (declared order). */
  armRank: (label: string) => number
  /** How each verdict is written. */
  words: Record<Comparison['verdict'], string>
  /** Show the Holm-adjusted p (only the gating family has one). */
  holm: boolean
  /** A row's own word, where its verdict's would claim what the section says it cannot (undefined: `words`). */
  wordOf?: (c: Comparison) => string | undefined
}

// What needs attention first, so a trimmed table still shows it.
const RANK: Record<Comparison['verdict'], number> = {
  regression: 0,
  incomparable: 1,
  inconclusive: 2,
  improvement: 3,
  equivalent: 4
}

/**
 * One row per comparison with both means (the overhead is a ratio of means, so the table shows the
 * statistic it is made of), the overhead and its CI, and the verdict; ↓/↑ says which way is better. One
 * arm pair names the mean columns; several candidates against one baseline get an `Arm` column;
 * anything else an `Arms` column (`candidate vs baseline`).
 */
export function comparisonTable(list: Comparison[], o: ComparisonTableOptions): string {
  const baselines = [...new Set(list.map(c => c.baseline_env))]
  const candidates = [...new Set(list.map(c => c.candidate_env))]
  const oneBase = baselines.length === 1 ? at(baselines, 0) : null
  const oneCand = candidates.length === 1 ? at(candidates, 0) : null
  const pair = oneBase !== null && oneCand !== null
  const armHead = pair ? [] : [oneBase ? 'Arm' : 'Arms']
  const medians = pair
    ? [`${cell(oneBase)} (mean)`, `${cell(oneCand)} (mean)`]
    : oneBase
      ? [`${cell(oneBase)} (mean)`, 'Arm (mean)']
      : ['Baseline (mean)', 'Candidate (mean)']
  const rows: Table = [
    [
      ...armHead,
      'Workload',
      'Metric',
      ...medians,
      'Overhead [95% CI]',
      ...(o.holm ? ['p (Holm)'] : []),
      'Verdict'
    ]
  ]
  const sorted = list
    .map((c, i) => ({ c, i }))
    .sort(
      (a, b) =>
        RANK[a.c.verdict] - RANK[b.c.verdict] ||
        o.armRank(a.c.candidate_env) - o.armRank(b.c.candidate_env) ||
        a.i - b.i
    )
    .map(x => x.c)
  for (const c of sorted) {
    const arm = pair ? [] : [cell(oneBase ? c.candidate_env : `${c.candidate_env} vs ${c.baseline_env}`)]
    rows.push([
      ...arm,
      cell(workloadName(c)),
      cell(metricLabel(c)),
      fmtValue(c.mean_baseline, c.unit),
      fmtValue(c.mean_candidate, c.unit),
      fmtOverheadCi(c),
      ...(o.holm ? [fmtP(c.p_adjusted)] : []),
      o.wordOf?.(c) ?? o.words[c.verdict]
    ])
  }
  const align = [...armHead.map(() => 'l'), 'l', 'l', 'r', 'r', 'r', ...(o.holm ? ['r'] : []), 'l']
  return table(rows, align)
}
