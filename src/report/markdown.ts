/** The markdown report: job summary, PR comment and report.md all render this. Pure. */
import { whySection } from './why.js'
import type { CheckSummary } from '../types/index.js'
import { redact } from './format.js'
import type { Section } from './section.js'
import { baselineSection } from './baseline-section.js'
import { chartSections } from './chart.js'
import { definitionsSection } from './definitions-section.js'
import { environmentSection } from './environment-section.js'
import { latencySection } from './latency-section.js'
import { notMeasuredSection } from './not-measured-section.js'
import { overheadSection } from './overhead-section.js'
import { preflightSection } from './preflight-section.js'
import { rawSections } from './raw-sections.js'
import { telemetrySection } from './telemetry-section.js'
import { verdictSection, warningsSection } from './verdict-section.js'
import { multiGpuSection } from './multi-gpu.js'
import { powerSection } from './power.js'
import { startupSection } from './startup.js'
import { writableLayerSection } from './writable-layer.js'
import { publishMarkdown } from '../util/text.js'
import { at } from '../util/must.js'

/** GitHub rejects issue comments over 65,536 characters; leave room for the marker. */
export const DEFAULT_MAX_CHARS = 65000

/** Prefix of the hidden marker that identifies this action's PR comment. */
export const REPORT_MARKER = '<!-- gpu-overhead-action:report'

/** The hidden marker for one workflow/job, so each job keeps exactly one comment, updated in place. */
export function reportMarker(workflow: string, job: string): string {
  // Keep the HTML comment intact whatever the names contain.
  const safe = (s: string): string =>
    s
      .replace(/--+/g, '-')
      .replace(/[<>"\r\n]/g, '_')
      .trim()
  return `${REPORT_MARKER} workflow="${safe(workflow)}" job="${safe(job)}" -->`
}

export interface ReportOptions {
  /** Cap on the report's length in characters (default 65,000, GitHub's comment limit). */
  maxChars?: number
  /** Known secret values to blank out in addition to token-shaped strings. */
  secrets?: readonly string[]
}

const SEPARATOR = '\n\n'

function render(sections: Section[], note: string | null): string {
  const parts: string[] = []
  let group: string | undefined
  for (const s of sections) {
    if (s.group && s.group !== group) parts.push(s.group)
    group = s.group
    parts.push(s.body)
    if (s.kind === 'verdict' && note) parts.push(note)
  }
  return `${parts.join(SEPARATOR)}\n`
}

function trimNote(trimmed: string[], maxChars: number): string {
  return (
    `> **Trimmed** to fit ${maxChars.toLocaleString('en-US')} characters: ${trimmed.join(', ')}. ` +
    'Every value is in `samples.csv` and `summary.json` in the results artifact.'
  )
}

/** Shorten a core section at a line boundary so the report loses `overflow` characters. */
function shorten(section: Section, overflow: number): Section | null {
  const marker = '\n\n_… rest of this section trimmed._'
  const keep = section.body.length - overflow - marker.length
  // Below a few lines a stub says nothing: drop the section instead.
  if (keep < 200) return null
  const cut = section.body.lastIndexOf('\n', keep)
  if (cut < 100) return null
  return { ...section, body: section.body.slice(0, cut) + marker }
}

/** Every section of the full report, in order, empty ones left out (job summary and report.md show them all). */
export function reportSections(summary: CheckSummary): Section[] {
  const candidates: (Section | null)[] = [
    verdictSection(summary),
    warningsSection(summary),
    overheadSection(summary),
    whySection(summary),
    multiGpuSection(summary),
    powerSection(summary),
    writableLayerSection(summary),
    startupSection(summary),
    latencySection(summary),
    telemetrySection(summary),
    preflightSection(summary),
    baselineSection(summary),
    ...chartSections(summary),
    notMeasuredSection(summary),
    environmentSection(summary),
    definitionsSection(summary),
    ...rawSections(summary)
  ]
  return candidates.filter((s): s is Section => s !== null)
}

/**
 * Build the report. Everything from `summary` is rendered as text, with token-shaped strings blanked.
 * Over `maxChars`, raw tables go first, then charts, then the tails of the later sections; the verdict
 * always stays, and a note says what was trimmed.
 */
export function buildReport(summary: CheckSummary, opts: ReportOptions = {}): string {
  const maxChars = opts.maxChars ?? DEFAULT_MAX_CHARS
  const secrets = opts.secrets ?? []
  // Bounded by maxChars below, not here.
  let sections = reportSections(summary).map(s => ({
    ...s,
    body: publishMarkdown(redact(s.body, secrets), Number.MAX_SAFE_INTEGER)
  }))

  let full = render(sections, null)
  if (full.length <= maxChars) return full

  const trimmed: string[] = []
  const fits = (): boolean => render(sections, trimNote(trimmed, maxChars)).length <= maxChars

  // 1. Raw tables, last first.
  const raw = sections.filter(s => s.kind === 'raw')
  let rawDropped = 0
  for (const s of [...raw].reverse()) {
    sections = sections.filter(x => x !== s)
    rawDropped++
    if (
      render(sections, trimNote([`${rawDropped} of ${raw.length} raw tables`], maxChars)).length <= maxChars
    )
      break
  }
  if (rawDropped) trimmed.push(`${rawDropped} of ${raw.length} raw tables`)

  // 2. Charts, all together: they only make sense side by side.
  if (!fits()) {
    const charts = sections.filter(s => s.kind === 'chart')
    if (charts.length) {
      sections = sections.filter(s => s.kind !== 'chart')
      trimmed.push(`${charts.length} per-run charts`)
    }
  }

  // 3. Tails of core sections, from the bottom up; the verdict is never touched.
  for (let i = sections.length - 1; i >= 0 && !fits(); i--) {
    const s = at(sections, i)
    if (s.kind === 'verdict') continue
    const overflow =
      render(sections, trimNote([...trimmed, `the end of "${s.title}"`], maxChars)).length - maxChars
    const short = shorten(s, overflow)
    if (short) {
      sections[i] = short
      trimmed.push(`the end of "${s.title}"`)
    } else {
      sections.splice(i, 1)
      trimmed.push(`"${s.title}"`)
    }
  }

  full = render(sections, trimNote(trimmed, maxChars))
  // Only a pathological verdict could still overflow; cut it rather than break the comment API.
  return full.length <= maxChars ? full : `${full.slice(0, Math.max(0, maxChars - 2))}…\n`
}
