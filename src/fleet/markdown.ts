/** aggregate.md: the verdict line (verdict-line.ts) first, the groups, why they were not pooled, side by side, one table per group. Pure. */
import {
  table,
  SCOPE_WORD,
  VERDICT_WORDS,
  cell,
  code,
  fmtOverheadCi,
  fmtP,
  fmtPctCi,
  fmtPlain,
  fmtValue,
  inline,
  metricLabel,
  redact
} from '../report/index.js'
import type { Comparison } from '../types/index.js'
import type { AggregateGroup, AggregateReport } from './types.js'
import { appendAll } from '../util/arrays.js'
import { aggregateVerdictLine, describeGroup, gated, groupWord, plural, worst } from './verdict-line.js'

/** `sha256:9b9306dbbe7d` */
function shortDigest(d: string | null): string {
  if (d === null) return 'unknown digest'
  const m = /^(sha256:)?([a-f0-9]{12})[a-f0-9]*$/.exec(d)
  return m ? `sha256:${m[2]}` : d
}

function armsCell(g: AggregateGroup): string {
  return g.key.arms
    .map(a =>
      a.kind === 'native'
        ? a.label
        : `${a.label}: ${g.images[a.label] ?? 'image'} @ ${shortDigest(a.image_digest)}`
    )
    .join('; ')
}

function runsCell(g: AggregateGroup): string {
  return g.key.arms.map(a => `${a.label} ${g.runs[a.label]?.length ?? 0}`).join(', ')
}

function groupsTable(r: AggregateReport): string {
  const rows = [
    [
      'Group',
      'Device',
      'GPU',
      'Driver',
      'Arms (image @ digest)',
      'GPU access',
      'Sources',
      'Runs per arm',
      'Verdict',
      'Worst gated metric'
    ]
  ]
  for (const g of r.groups) {
    const w = worst(gated(g))
    const access = [...new Set(g.key.arms.filter(a => a.kind === 'container').map(a => a.gpu_access ?? '–'))]
    rows.push([
      g.id,
      cell(g.key.device ?? 'unknown'),
      cell(g.key.gpu_name ?? '–'),
      cell(g.key.driver ?? '–'),
      cell(armsCell(g)),
      cell(access.join(', ') || '–'),
      cell(g.sources.map(s => s.label).join(', ')),
      cell(runsCell(g)),
      groupWord(g),
      w ? cell(`${w.workload} ${w.metric} (${w.candidate_env}) ${fmtPctCi(w.overhead_pct, w.ci95)}`) : '–'
    ])
  }
  return table(rows, ['l', 'l', 'l', 'l', 'l', 'l', 'l', 'l', 'l', 'r'])
}

function notPooledSection(r: AggregateReport): string {
  const lines = r.groups.flatMap(({ id, not_pooled_with: apart }) =>
    apart ? [`- ${id} not pooled with ${apart.group}: ${inline(apart.differences.join('; '))}`] : []
  )
  if (!lines.length)
    return `All ${plural(r.groups[0]?.sources.length ?? 0, 'result folder')} share one fingerprint and were pooled.`
  return [
    `Pooling key: ${r.key_fields.map(code).join(', ')} (host names and GPU UUIDs may differ). Each group is compared with the closest earlier one:`,
    '',
    ...lines
  ].join('\n')
}

function rowKey(c: Comparison): string {
  return [c.workload, c.params ?? '', c.metric, c.baseline_env, c.candidate_env].join('\u0000')
}

/** Gated metrics, one row per (workload, metric, arm pair), one column per group. */
function sideBySide(r: AggregateReport): string {
  const rows = new Map<string, Comparison>()
  for (const g of r.groups) for (const c of gated(g)) if (!rows.has(rowKey(c))) rows.set(rowKey(c), c)
  if (!rows.size) return 'No gated steady-state metric was measured in any group.'
  const configs = new Map<string, Set<string>>()
  for (const c of rows.values()) {
    const k = `${c.workload}\u0000${c.metric}`
    configs.set(k, (configs.get(k) ?? new Set()).add(c.params ?? ''))
  }
  const out = [['Workload', 'Metric', 'Arms', ...r.groups.map(g => `${g.id} (${cell(describeGroup(g))})`)]]
  for (const [k, c] of rows) {
    const several = (configs.get(`${c.workload}\u0000${c.metric}`)?.size ?? 0) > 1
    out.push([
      cell(several && c.params ? `${c.workload} ${c.params}` : c.workload),
      cell(c.metric),
      cell(`${c.candidate_env} vs ${c.baseline_env}`),
      ...r.groups.map(g => {
        const m = gated(g).find(x => rowKey(x) === k)
        return m ? `${fmtPctCi(m.overhead_pct, m.ci95)} ${VERDICT_WORDS[m.verdict]}` : '–'
      })
    ])
  }
  return table(out, ['l', 'l', 'l', ...r.groups.map(() => 'r')])
}

function comparisonsTable(g: AggregateGroup): string {
  const list = g.analysis?.comparisons ?? []
  if (!list.length) return 'Nothing was compared in this group.'
  const configs = new Set(list.map(c => `${c.workload}\u0000${c.params ?? ''}`))
  const workloads = new Set(list.map(c => c.workload))
  const showParams = configs.size > workloads.size
  const rows = [
    [
      'Arm',
      'Workload',
      'Metric',
      'n (base/cand)',
      `${cell(g.baseline_env)} (mean)`,
      'Arm (mean)',
      'Overhead [95% CI]',
      'p (Holm)',
      'Verdict'
    ]
  ]
  for (const c of list) {
    const steady = c.scope === 'steady'
    rows.push([
      cell(c.candidate_env),
      cell(showParams && c.params ? `${c.workload} ${c.params}` : c.workload),
      cell(metricLabel(c)),
      `${c.n_baseline}/${c.n_candidate}`,
      fmtValue(c.mean_baseline, c.unit),
      fmtValue(c.mean_candidate, c.unit),
      fmtOverheadCi(c),
      steady ? fmtP(c.p_adjusted) : '–',
      steady ? VERDICT_WORDS[c.verdict] : `${c.verdict} (${SCOPE_WORD[c.scope]}, not gated)`
    ])
  }
  return table(rows, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'l'])
}

function groupSection(g: AggregateGroup): string {
  const fp = g.fingerprint[g.baseline_env]
  const facts = [
    `device ${code(g.key.device ?? 'unknown')}`,
    ...(g.key.device === 'gpu'
      ? [
          `GPU ${code(g.key.gpu_name ?? 'unknown')}`,
          `driver ${code(g.key.driver ?? 'unknown')}`,
          `CUDA ${code(fp?.cuda ?? 'unknown')}`
        ]
      : [])
  ]
  const arms = g.key.arms.map(a =>
    a.kind === 'native'
      ? `${code(a.label)} (native)`
      : `${code(a.label)}: ${code(g.images[a.label] ?? '?')} @ ${code(a.image_digest ?? 'unknown digest')}${a.gpu_access ? `, access ${code(a.gpu_access)}` : ''}`
  )
  const sources = g.sources.map(
    s =>
      `${code(s.label)} (${s.host ?? 'unknown host'}${s.gpu_uuid ? `, ${s.gpu_uuid}` : ''}; check ${s.check_id}; runs ${Object.entries(
        s.runs_per_arm
      )
        .map(([a, n]) => `${a} ${n}`)
        .join(', ')}; its own verdict ${s.verdict})`
  )
  const parts = [
    `## ${g.id} — ${inline(describeGroup(g))}: ${groupWord(g)}`,
    '',
    `${facts.join(', ')}. Baseline arm ${code(g.baseline_env)}. Arms: ${arms.join('; ')}.`,
    '',
    sources.length === 1
      ? `One source, shown with its own numbers (the intervals and verdicts its report printed): ${sources.join('; ')}.`
      : `Sources pooled (runs relabelled \`<source>/<run>\`): ${sources.join('; ')}.`,
    '',
    comparisonsTable(g)
  ]
  const notes = [
    ...g.failed_preflight.map(f => `Preflight failed: ${f}`),
    ...g.notes,
    ...(g.analysis?.notes ?? [])
  ]
  if (notes.length) appendAll(parts, ['', ...notes.map(n => `- ${inline(n)}`)])
  return parts.join('\n')
}

export function renderAggregateMarkdown(r: AggregateReport): string {
  const parts = [
    aggregateVerdictLine(r),
    '',
    '# GPU overhead across runners',
    '',
    `Limit ${fmtPlain(r.max_overhead_pct)}%, alpha ${fmtPlain(r.alpha)} (Holm within each group). Samples are pooled only within a group of identical fingerprints; groups are shown side by side, never averaged.`,
    '',
    '## Groups',
    '',
    groupsTable(r),
    '',
    '### Why groups were not pooled',
    '',
    notPooledSection(r)
  ]
  if (r.groups.length > 1) parts.push('', '## Side by side (gated steady-state metrics)', '', sideBySide(r))
  for (const g of r.groups) parts.push('', groupSection(g))
  return redact(`${parts.join('\n')}\n`)
}
