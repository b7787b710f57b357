/**
 * The "Why the arms differ" section: the explainer's ranked findings as a table (likely causes
 * first), the rest as a short list, and one line for the verdict and the PR comment. Pure.
 */
import type { CheckSummary, Explanation, Finding } from '../types/index.js'
import type { Section } from './section.js'
import { cell, code, inline } from './format.js'
import { table, type Table } from './table.js'

export const WHY_TITLE = 'Why the arms differ'
/** GitHub's anchor for the heading above. */
export const WHY_ANCHOR = '#why-the-arms-differ'
/** Findings beyond these are counted, not listed: the section must stay readable. */
export const MAX_RANKED = 12
export const MAX_OTHER = 15

const value = (v: string | null): string => (v === null ? '_unset_' : v === '' ? '_empty_' : code(v))
/** The measured differences a finding can explain, first few only (the rest are in summary.json). */
export const MAX_EXPLAINS_SHOWN = 3

function explainsCell(list: readonly string[]): string {
  if (list.length === 0) return '–'
  const more = list.length > MAX_EXPLAINS_SHOWN ? `; … ${list.length - MAX_EXPLAINS_SHOWN} more` : ''
  return cell(list.slice(0, MAX_EXPLAINS_SHOWN).join('; ') + more)
}

function row(f: Finding, i: number): string[] {
  const from = f.from_image_env ? ' (image ENV)' : ''
  return [
    String(i + 1),
    cell(f.label),
    value(f.baseline),
    value(f.candidate) + from,
    explainsCell(f.explains),
    cell(f.meaning),
    cell(f.fix)
  ]
}

/** One line: what most likely explains the difference, or that nothing recorded does. */
export function whyHeadline(e: Explanation): string {
  return e.headline
}

export function whyMarkdown(e: Explanation, device: 'gpu' | 'cpu' = 'gpu'): string {
  const ranked = e.findings.filter(f => f.relevant)
  const weak = e.findings.filter(f => !f.relevant && f.explains.length > 0)
  const other = e.findings.filter(f => !f.relevant && f.explains.length === 0)
  const parts: string[] = [`## ${WHY_TITLE}`, '']
  parts.push(
    `${inline(e.baseline_env)} (baseline) vs ${inline(e.candidate_env)}: each arm's stack as its own processes recorded it (libraries loaded, precision flags, environment)${device === 'gpu' ? ', GPU memory and telemetry over the measured region' : ''}.`,
    ''
  )
  if (ranked.length === 0) {
    parts.push(
      // The headline goes on as one sentence: ": the stacks agree and no metric showed a difference" or
      // " among the recorded facts for …".
      `**No relevant difference found**${inline(e.headline.replace(/^no relevant difference found/, ''))}.`,
      ''
    )
  } else {
    const rows: Table = [
      ['#', 'What differs', e.baseline_env, e.candidate_env, 'Can explain', 'Meaning', 'Fix']
    ]
    ranked.slice(0, MAX_RANKED).forEach((f, i) => rows.push(row(f, i)))
    parts.push('Ranked, most likely cause first:', '', table(rows, ['r', 'l', 'l', 'l', 'l', 'l', 'l']), '')
    if (ranked.length > MAX_RANKED)
      parts.push(`_${ranked.length - MAX_RANKED} more in summary.json (\`explanation\`)._`, '')
  }
  if (weak.length) {
    parts.push('Weaker candidates (they touch a measured difference but rarely change speed):', '')
    for (const f of weak.slice(0, MAX_OTHER))
      parts.push(`- ${inline(f.label)}: ${value(f.baseline)} → ${value(f.candidate)} — ${inline(f.meaning)}`)
    parts.push('')
  }
  if (other.length) {
    parts.push('Other recorded differences (no measured difference they could explain):', '')
    for (const f of other.slice(0, MAX_OTHER))
      parts.push(
        `- ${inline(f.label)}: ${value(f.baseline)} → ${value(f.candidate)}${f.impact === 0 ? ' (declarative, no effect)' : ''}`
      )
    if (other.length > MAX_OTHER) parts.push(`- … ${other.length - MAX_OTHER} more in summary.json`)
    parts.push('')
  }
  return parts.join('\n').trimEnd()
}

export function whySection(summary: CheckSummary): Section | null {
  const e = summary.explanation
  if (!e) return null
  return {
    id: 'why',
    kind: 'core',
    title: WHY_TITLE,
    body: whyMarkdown(e, summary.config.device === 'cpu' ? 'cpu' : 'gpu')
  }
}
