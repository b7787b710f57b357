/**
 * The compact PR comment over real checks (the committed H200 evidence): small, verdict first, the gated table,
 * one start-up line, links to the full report; the full report's long sections stay in the job summary.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { buildComment, runLinks } from '../../src/report/comment-body.js'
import { buildReport, reportMarker } from '../../src/report/markdown.js'
import type { CheckSummary } from '../../src/types/index.js'
import { regression } from '../__fixtures__/summaries/index.js'
import * as fixtures from '../__fixtures__/summaries/index.js'

/** The bound for the H200 evidence; GitHub's own limit is 65,536. */
const MAX_COMMENT_BYTES = 6 * 1024
const EVIDENCE = 'test/__fixtures__/evidence'

function evidenceSummaries(): string[] {
  return fs
    .readdirSync(EVIDENCE)
    .filter(d => d.startsWith('2026-11-22-h200') && fs.statSync(path.join(EVIDENCE, d)).isDirectory())
    .flatMap(d =>
      fs
        .readdirSync(path.join(EVIDENCE, d))
        .map(run => path.join(EVIDENCE, d, run, 'summary.json'))
        .filter(f => fs.existsSync(f))
    )
}

const load = (file: string): CheckSummary => JSON.parse(fs.readFileSync(file, 'utf8')) as CheckSummary
const env = {
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'org/repo',
  GITHUB_RUN_ID: '123456789',
  GITHUB_RUN_ATTEMPT: '2'
}
const marker = reportMarker('GPU overhead', 'check')

describe('compact PR comment on the committed H200 evidence', () => {
  const files = evidenceSummaries()
  it('finds the evidence', () => expect(files.length).toBeGreaterThanOrEqual(5))

  it.each(files)('%s: under 6 KB, verdict first, gated table, links', file => {
    const summary = load(file)
    const body = `${marker}\n${buildComment(summary, runLinks(env, 42))}`
    expect(Buffer.byteLength(body, 'utf8')).toBeLessThan(MAX_COMMENT_BYTES)
    expect(body.split('\n')[1]).toMatch(
      /^\*\*(PASS|REGRESSION|INCONCLUSIVE|INCOMPLETE|INCOMPARABLE|ERROR|PREFLIGHT FAILED)\*\*/
    )
    expect(body).toContain('### Steady-state overhead (gated)')
    expect(body).not.toContain('](#') // no anchor of a section the comment does not hold
    expect(body).toContain('[job summary](https://github.com/org/repo/actions/runs/123456789/attempts/2)')
    expect(body).toContain(
      '[results artifact](https://github.com/org/repo/actions/runs/123456789/artifacts/42)'
    )
    // The long sections stay in the job summary.
    for (const heading of ['How to read this', 'Environment', 'Raw samples', 'Start-up vs steady state'])
      expect(body).not.toContain(`## ${heading}`)
    // Smaller than the full report it summarises, which keeps everything.
    expect(body.length * 3).toBeLessThan(buildReport(summary).length)
  })

  it('leaves start-up (reported, not gated) to the job summary: the comment holds what gates', () => {
    const summary = load(path.join(EVIDENCE, '2026-11-22-h200', 'default-check-1', 'summary.json'))
    const body = buildComment(summary, runLinks(env, null))
    expect(body).not.toMatch(/^Start-up/m)
    expect(body).toContain('### Steady-state overhead (gated)')
  })
})

describe('comment parts', () => {
  const summary = load(path.join(EVIDENCE, '2026-11-22-h200', 'default-check-1', 'summary.json'))

  it('links only to what it holds: the "why" of the verdict line goes to the job summary by URL', () => {
    const why: CheckSummary = {
      ...regression,
      explanation: {
        baseline_env: 'native',
        candidate_env: 'container',
        measured: [],
        findings: [],
        headline: 'BLAS: reference vs openblas [explains matmul kernel_ms]'
      }
    }
    // The full report holds the section: the anchor stays there.
    expect(buildReport(why).split('\n')[0]).toContain(
      '[why: BLAS: reference vs openblas \\[explains matmul kernel_ms\\]](#why-the-arms-differ)'
    )
    const links = runLinks(env, null)
    const first = buildComment(why, links).split('\n')[0]!
    expect(first).toContain(
      `[why: BLAS: reference vs openblas \\[explains matmul kernel_ms\\]](${links.summaryUrl})`
    )
    expect(buildComment(why, links)).not.toContain('](#')
    // Outside Actions there is no URL: plain text, no dead link.
    expect(buildComment(why, runLinks({}, null)).split('\n')[0]).toMatch(
      / · why: BLAS: reference vs openblas/
    )
    expect(buildComment(why, runLinks({}, null))).not.toContain('](')
  })

  it('outside Actions (no run id) points at report.md, with no dead links', () => {
    const body = buildComment(summary, runLinks({}, 7))
    expect(body).toContain('`report.md` in the results folder')
    expect(body).not.toContain('](')
  })

  it('blanks secrets', () => {
    const secret = 'ghs_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
    const leaky = { ...summary, warnings: [...summary.warnings, `token ${secret}`] }
    expect(buildComment(leaky, runLinks(env, 1), [secret])).not.toContain(secret)
  })
})

describe('the comment states every kind of verdict in its short, plain form (issue 51, item 5)', () => {
  const kinds = {
    error: { ...fixtures.incomplete, complete: true, verdict: 'error' as const, analysis: null },
    incomplete: fixtures.incomplete,
    incomparable: fixtures.incomparable,
    preflight: fixtures.gateFailed,
    pass: fixtures.pass
  }
  for (const [kind, summary] of Object.entries(kinds)) {
    it(`${kind}: the reason's first sentence, no statistics terms, never longer than the full report's line`, () => {
      const first = (text: string): string => text.split('\n')[0] ?? ''
      const brief = first(buildComment(summary, runLinks({}, null)))
      const full = first(buildReport(summary))
      expect(brief).toMatch(/^\*\*[A-Z ]+\*\* — /)
      expect(brief.length).toBeLessThanOrEqual(full.length)
      expect(brief).not.toMatch(/significant|Holm|p-value|nominal/i)
    })
  }
  it('a long reason is cut to its first sentence in the comment, kept whole in the job summary', () => {
    const reason =
      'cancelled: the runner sent SIGTERM during llm run 9 of 20 (container); io was not reached. The samples before it are kept.'
    const summary = { ...fixtures.incomplete, incomplete_reason: reason } as CheckSummary
    const brief = buildComment(summary, runLinks({}, null)).split('\n')[0]!
    expect(brief).toContain('cancelled: the runner sent SIGTERM during llm run 9 of 20 (container)')
    expect(brief).not.toContain('io was not reached')
    expect(buildReport(summary).split('\n')[0]).toContain('io was not reached')
  })
})
