/** The per-GPU part of a multi-GPU check: each GPU on its own, and each GPU against its siblings. Pure. */
import type { CheckSummary, GpuDeviation, GpuLaneInfo } from '../types/index.js'
import { armRank } from './arms.js'
import { comparisonTable } from './comparison-table.js'
import { cell, code, fmtP, fmtPctCi, fmtPlain, fmtValue } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'
import { workloadName } from './verdict.js'
import { at } from '../util/must.js'

const WORDS = {
  regression: '**regression**',
  improvement: 'improvement',
  equivalent: 'equivalent',
  inconclusive: 'inconclusive',
  incomparable: 'incomparable'
} as const

function gpuName(g: GpuLaneInfo): string {
  return `GPU ${g.index}${g.name ? ` — ${g.name}` : ''}${g.uuid ? ` (${code(g.uuid)})` : ''}`
}

/** `1 vs 0`, `2 vs 0,1,3`: which GPU against which siblings, in one narrow cell. */
function comparedName(d: GpuDeviation): string {
  return `${d.gpu} vs ${d.siblings.join(',')}`
}

function deviationTable(list: GpuDeviation[]): string {
  const rows: Table = [
    ['GPU', 'Arm', 'Workload', 'Metric', 'This GPU', 'Others', 'Diff. [95% CI]', 'p (Holm)', 'Deviates']
  ]
  const sorted = [...list].sort((a, b) => Number(b.deviates) - Number(a.deviates) || a.gpu - b.gpu)
  for (const d of sorted)
    rows.push([
      comparedName(d),
      cell(d.environment),
      cell(workloadName(d)),
      cell(d.metric),
      fmtValue(d.median, d.unit),
      fmtValue(d.siblings_median, d.unit),
      fmtPctCi(d.deviation_pct, d.ci95),
      fmtP(d.p_adjusted),
      d.deviates ? '**yes**' : 'no'
    ])
  return table(rows, ['l', 'l', 'l', 'l', 'r', 'r', 'r', 'r', 'l'])
}

export function multiGpuSection(summary: CheckSummary): Section | null {
  const m = summary.multi_gpu
  if (!m) return null
  const n = m.gpus.length
  const parts: string[] = [
    '## Per GPU',
    (summary.config.gpu_layout === 'duet'
      ? `The check ran as a duet on ${n} GPUs: both arms at the same time on GPU pairs, swapping GPUs every ` +
        `block, so a state the host went through hit both processes of a block alike; each pair's two ` +
        `simultaneous processes form one block of the paired analysis. `
      : `The check ran one process per GPU at the same time on ${n} GPUs. `) +
      `Every process was pinned to its GPU ` +
      `(natively by UUID, in the container by the access mode's per-GPU form). The gated table above pools ` +
      `all ${n} GPUs: every process is one run, and each GPU is a block — its values in both arms are scaled by ` +
      `its offset from the others (read arm by arm), so a GPU that is uniformly slower adds no noise, while the ` +
      `ratio between the arms (the overhead) is kept. Below, each GPU on its own, as its own Holm family` +
      (summary.config.gpu_layout === 'duet'
        ? ` (in a duet a GPU's two arms ran in different slots, so these compare them as two samples).`
        : '.')
  ]
  for (const p of m.per_gpu) {
    const steady = p.analysis.comparisons.filter(c => c.scope === 'steady')
    parts.push(`### ${gpuName(p.gpu)}`)
    parts.push(
      steady.length
        ? comparisonTable(steady, { armRank: armRank(summary), words: WORDS, holm: true })
        : 'No steady-state metric was compared on this GPU.'
    )
  }
  if (m.deviations.length) {
    const flagged = m.deviations.filter(d => d.deviates)
    parts.push('### GPU against its siblings')
    parts.push(
      (flagged.length
        ? `**${flagged.length} deviation${flagged.length === 1 ? '' : 's'}**: `
        : 'No GPU deviates from its siblings: ') +
        `within each arm, each GPU's runs against the pooled runs of the others (medians shown)${n === 2 ? ' (with two GPUs, GPU ' + at(m.gpus, 1).index + ' against GPU ' + at(m.gpus, 0).index + ')' : ''}. ` +
        `A GPU deviates when the difference is significant (Holm across all rows) and its whole 95% CI lies beyond ±${fmtPlain(m.threshold_pct)}%. ` +
        'Slower in every arm points at the GPU or its host slot (clocks, cooling, PCIe/NUMA); slower in the container arm only points at how the container reaches it.'
    )
    parts.push(deviationTable(m.deviations))
  }
  return { id: 'per-gpu', kind: 'core', title: 'Per GPU', body: parts.join('\n\n') }
}
