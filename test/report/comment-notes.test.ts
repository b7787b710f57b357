/**
 * A PR comment says each note once (issue 42): a default CPU check whose blocks disagree on several metrics
 * (matmul and io on a shared 2-core host) got the ~600-character far-blocks note once per metric, three times in
 * one comment. Through the real analysis and the real comment builder.
 */
import { analyzeSeries } from '../../src/analyze/compare/index.js'
import { DECODE_STATE_DOC } from '../../src/analyze/state-advice.js'
import { buildComment, runLinks } from '../../src/report/comment-body.js'
import { noteMarkdown } from '../../src/report/notes.js'
import { buildReport } from '../../src/report/markdown.js'
import type { CheckSummary } from '../../src/types/index.js'
import { series } from '../analyze/helpers.js'
import { inconclusive } from '../__fixtures__/summaries/index.js'

// Per-process values of one check on a host whose level flips every few processes (the far-blocks test's TPOT,
// 2026-11-27): three of six blocks straddle a flip.
const NATIVE = [2.8241, 3.1497, 2.8444, 2.8414, 3.1382, 3.0269]
const CONTAINER = [3.0381, 3.1894, 3.1665, 3.181, 2.8591, 3.1513]
const scaled = (v: number[], k: number) => v.map(x => Number((x * k).toFixed(4)))

function defaultCheck(device: 'cpu' | 'gpu' = 'cpu'): CheckSummary {
  const arms = (metric: string, workload: string, k: number, unit: string) => [
    series('native', metric, scaled(NATIVE, k), { workload, unit }),
    series('container', metric, scaled(CONTAINER, k), { workload, unit })
  ]
  const analysis = analyzeSeries(
    [
      ...arms('kernel_ms', 'matmul', 4, 'ms'),
      ...arms('ckpt_write_mb_s', 'io', 100, 'MB/s'),
      ...arms('data_read_mb_s', 'io', 300, 'MB/s'),
      // A steady large effect: every block at ×7 within 1% of the others, which is no disagreement.
      series('native', 'small_files_ops_s', [1000, 1004, 998, 1001, 1003, 999], {
        workload: 'io',
        unit: 'ops/s'
      }),
      series('container', 'small_files_ops_s', [7000, 7030, 6990, 7010, 7020, 6995], {
        workload: 'io',
        unit: 'ops/s'
      })
    ],
    {
      baselineEnv: 'native',
      candidateEnv: 'container',
      maxOverheadPct: 2,
      alpha: 0.05,
      // The device the arms' fingerprints name: the notes speak of GPUs only on a GPU check.
      fingerprints: { native: { device }, container: { device } }
    }
  )
  return { ...inconclusive, analysis: { ...inconclusive.analysis!, ...analysis } }
}

/** The text's notes and paragraphs: lines of 40 characters or more (not a tag or a label), table rows aside. */
const paragraphs = (text: string): string[] =>
  text
    .split('\n')
    .map(s => s.trim())
    .filter(s => s.length >= 40 && !s.startsWith('|'))

describe('notes in the PR comment of a default CPU check', () => {
  const summary = defaultCheck()
  const comment = buildComment(summary, runLinks({}, null))

  it('the analysis gives one far-blocks note naming every metric whose blocks disagree', () => {
    const notes = (summary.analysis?.notes ?? []).filter(n => n.includes('far off the others'))
    expect(notes).toHaveLength(1)
    for (const m of ['matmul/kernel_ms', 'io/ckpt_write_mb_s', 'io/data_read_mb_s'])
      expect(notes[0]).toContain(`${m}: 3 of 6 blocks lie far off the others`)
    // ×7 in every block is one level, not blocks far off the others.
    expect(notes[0]).not.toContain('small_files_ops_s')
  })

  it('the comment and the full report say no note twice', () => {
    for (const text of [comment, buildReport(summary)]) {
      const seen = new Map<string, number>()
      for (const s of paragraphs(text)) seen.set(s, (seen.get(s) ?? 0) + 1)
      expect([...seen].filter(([, n]) => n > 1)).toEqual([])
    }
    // The full report says it once; the comment leaves it to the job summary (issue 51: at most three short notes).
    expect(buildReport(summary).match(/Either the host changed state/g) ?? []).toHaveLength(1)
    expect(comment).not.toContain('Either the host changed state')
  })

  it('the comment is a verdict line, the gated table, at most three short notes and the link (issue 51)', () => {
    const notes = comment.split('\n').filter(l => l.startsWith('- '))
    expect(notes.length).toBeLessThanOrEqual(3)
    for (const n of notes) expect(n.length).toBeLessThan(400)
    // No statistics terms and no parameter JSON: those are the job summary's.
    expect(comment).not.toMatch(/repeated 95%|nominal|ci95_nominal|Holm|sequential rule|\{"device"/)
    // Said once: the runs that would decide it.
    expect(comment.match(/runs per arm would decide/g)?.length ?? 0).toBeLessThanOrEqual(1)
  })

  it("points at this project's docs by URL, never at a path the user's repository does not have", () => {
    expect(DECODE_STATE_DOC).toMatch(/^https:\/\/github\.com\//)
    // A link that works: the sanitiser's broken form (a zero-width space after `https:/`) would neither link
    // nor survive a copy.
    // The decode-state page is cited on a GPU check only (a CPU check has no decode state).
    expect((summary.analysis?.notes ?? []).join(' ')).not.toMatch(/GPU|decode|duet/i)
    for (const text of [buildReport(defaultCheck('gpu'))]) {
      expect(text).toContain(`<${DECODE_STATE_DOC}>`)
      expect(text).not.toContain('\u200b/github.com/org/gpu-overhead-action')
      expect(text).not.toMatch(/[ (]docs\/evidence\//)
    }
  })

  it('links only the exact page: text after it in a note stays outside the link, and other URLs stay broken', () => {
    const md = noteMarkdown(`see ${DECODE_STATE_DOC}/../../../../../evil/repo and https://example.com/x`)
    expect(md).toContain(`<${DECODE_STATE_DOC}>/../../../../../evil/repo`)
    expect(md).toContain('https:/\u200b/example.com/x')
  })
})
