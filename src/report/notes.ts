/** The analysis' notes, each shown in the section it is about. Pure. */
import { STARTUP_PHASES, type CheckSummary, type MetricScope } from '../types/index.js'
import { DECODE_STATE_DOC } from '../analyze/index.js'
import { inline } from './format.js'

/**
 * This project's own pages that notes point at: constants of the tool, not text from a result file. The sanitiser
 * breaks every URL in a note (`https:/` + zero-width space + `/`: no link, and a copied one fails), so these are
 * linked again, as `<url>` autolinks, which end at `>` (text after one never extends it).
 */
const OWN_PAGES = [DECODE_STATE_DOC]

/** A note as inert markdown prose, with this project's own pages linked. */
export function noteMarkdown(note: string): string {
  let md = inline(note)
  for (const url of OWN_PAGES) md = md.split(inline(url)).join(`<${url}>`)
  return md
}

// A note about a start-up phase (types' STARTUP_PHASES) or one of the two totals.
const STARTUP = new RegExp(`\\b(${[...STARTUP_PHASES, 'total_startup', 'process_wall'].join('|')})(_s)?\\b`)
const INFO = /\b(scratch_write_mb_s|scratch_read_mb_s|small_files_ops_s|copyup_ms)/

function scopeOf(note: string): MetricScope {
  if (INFO.test(note)) return 'info'
  if (STARTUP.test(note)) return 'startup'
  return 'steady'
}

/** Notes about metrics of `scope` (notes naming no such metric count as steady-state), as list items. */
export function analysisNotes(summary: CheckSummary, scope: MetricScope): string[] {
  return (summary.analysis?.notes ?? []).filter(n => scopeOf(n) === scope).map(n => `- ${noteMarkdown(n)}`)
}
