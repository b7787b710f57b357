/**
 * The Check run's title is shown as plain text: no markdown (emphasis, code spans, links, escapes, entities)
 * may reach it, and a long verdict is cut at a word, not mid-word.
 */
import { checkTitle } from '../../src/report/check-run.js'
import { verdictLine } from '../../src/report/verdict.js'
import type { CheckSummary } from '../../src/types/index.js'
import { inconclusive, pass, regression, severalArms } from '../__fixtures__/summaries/index.js'

const MARKDOWN = /\*\*|`|\]\(|\\[[\]]|&lt;|&gt;/

describe('checkTitle', () => {
  it.each([
    ['pass', pass],
    ['inconclusive', inconclusive],
    ['regression', regression],
    ['several arms', severalArms]
  ])('%s: the verdict line as plain text', (_name, summary) => {
    const t = checkTitle(summary)
    expect(t).not.toMatch(MARKDOWN)
    expect(t.length).toBeLessThanOrEqual(255)
    expect(t).toMatch(/^(PASS|REGRESSION|UNDECIDED \([a-z :]+\)|INCOMPARABLE) — /)
  })

  it('a link keeps its text, escaped brackets and entities are unescaped, a long line is cut at a word', () => {
    const why: CheckSummary = {
      ...regression,
      explanation: {
        baseline_env: 'native',
        candidate_env: 'container',
        measured: [],
        findings: [],
        headline: `BLAS: reference vs openblas [explains matmul kernel_ms] <b> ${'word '.repeat(60)}`
      }
    }
    expect(verdictLine(why)).toMatch(MARKDOWN)
    const t = checkTitle(why)
    expect(t).not.toMatch(MARKDOWN)
    expect(t).toContain('why: BLAS: reference vs openblas [explains matmul kernel_ms] <b> word')
    expect(t.length).toBeLessThanOrEqual(255)
    expect(t).toMatch(/ word…$/)
  })
})
