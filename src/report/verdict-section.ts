/** The report's head: the verdict line with what was checked, and the check's warnings. Pure. */
import type { CheckSummary } from '../types/index.js'
import { armLabels } from './arms.js'
import { code, fmtNum, fmtPlain, inline } from './format.js'
import type { Section } from './section.js'
import { runsPerArm } from './runs.js'
import { verdictLine } from './verdict.js'

function fmtDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–'
  if (seconds < 60) return `${fmtNum(seconds)} s`
  const m = Math.floor(seconds / 60)
  const s = Math.round(seconds - m * 60)
  return m < 60 ? `${m} min ${s} s` : `${Math.floor(m / 60)} h ${m % 60} min`
}

/** `whyHref`: where the verdict line's "why" links (verdictLine); the full report's own section by default. */
export function verdictSection(
  summary: CheckSummary,
  whyHref?: string | null,
  options: { brief?: boolean } = {}
): Section {
  const c = summary.config
  // Samples from earlier steps' files: where they ran, and how long, is theirs to say, not this record's.
  const src = summary.source
  const meta = [
    'gpu-overhead-action',
    `check ${code(summary.check_id)}`,
    src ? `from ${src.files} ${code(src.format)} result file${src.files === 1 ? '' : 's'}` : null,
    c.image ? `image ${code(c.image)}` : null,
    runsPerArm(summary),
    `arms ${armLabels(summary).map(code).join(' vs ')}`,
    src ? null : `device ${inline(c.device)}${c.device === 'gpu' ? ` (${inline(c.gpu_access)})` : ''}`,
    `max overhead ${fmtPlain(c.max_overhead_pct)}%`,
    src ? null : `took ${fmtDuration(summary.wall_s)}`
  ].filter((x): x is string => x !== null)
  return {
    id: 'verdict',
    kind: 'verdict',
    title: 'Verdict',
    // The verdict is the first line: the CLI prints it, and it is what a reviewer reads first.
    body: `${verdictLine(summary, whyHref, options)}\n\n<sub>${meta.join(' · ')}</sub>`
  }
}

export function warningsSection(summary: CheckSummary): Section | null {
  if (!summary.warnings.length) return null
  return {
    id: 'warnings',
    kind: 'core',
    title: 'Warnings',
    body: `### Warnings\n\n${summary.warnings.map(w => `- ${inline(w)}`).join('\n')}`
  }
}
