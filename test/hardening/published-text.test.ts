/**
 * Everything published is attacker text (issue 29, class 3): metric names, units, error messages,
 * stderr tails, co-tenant names and stored history reach the PR comment, Check run, job summary, trend
 * issues, the log, CSV files and the terminal. Each sink is fed hostile values through the real builders.
 */
/* eslint-disable no-control-regex -- control characters are what these tests look for */
import type { CheckSummary } from '../../src/types/index.js'
import { buildReport } from '../../src/report/markdown.js'
import { buildComment } from '../../src/report/comment-body.js'
import { checkRunRequest } from '../../src/report/check-run.js'
import { decideFailure, verdictLine } from '../../src/report/verdict.js'
import { sampleCsvRow } from '../../src/results/store.js'
import {
  csvCell,
  csvText,
  logText,
  mdCode,
  mdTableCell,
  mdText,
  plainText,
  publishMarkdown
} from '../../src/util/text.js'
import { gateFailed, regression } from '../__fixtures__/summaries/index.js'

const LINK = '[click](https://evil.example/x)'
const IMAGE = '![pixel](https://evil.example/p.png)'
const MENTION = '@octocat'
const REF = 'octo/repo#1'
const FAKE_PASS = '\r**PASS** — everything fine'
const ANSI = '\u001b[31mred\u001b[0m'
const BIDI = 'abc\u202Egnp.exe'
const HOSTILE = `k ${LINK} ${IMAGE} ${MENTION} ${REF} ${ANSI} ${BIDI} <img src=x> _em_ ~~s~~ \`tick\` | pipe${FAKE_PASS}`

/** The text a reader sees as prose: code spans and HTML comments left out (nothing there renders). */
function prose(md: string): string {
  return md.replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, ' ').replace(/<!--[\s\S]*?-->/g, ' ')
}

/** What must never appear in published markdown, whatever the value was. */
function expectInert(md: string): void {
  expect(md).not.toMatch(/[\r\u001b\u202A-\u202E\u2066-\u2069]/)
  const p = prose(md)
  // No link or image can open: every `[` of the payload is escaped.
  expect(p).not.toMatch(/(?<!\\)\[click(?<!\\)\]\(/)
  expect(p).not.toMatch(/!(?<!\\)\[pixel/)
  // No bare URL (autolinked), no mention, no issue reference.
  expect(p).not.toContain('https://evil.example')
  expect(p).not.toMatch(/(^|[^\w])@octocat/)
  expect(p).not.toMatch(/octo\/repo#1/)
  expect(p).not.toContain('<img')
  // A CR-started fake headline never reaches a line start.
  expect(md).not.toMatch(/^\*\*PASS\*\* — everything fine/m)
}

function hostileSummary(base: CheckSummary, message = HOSTILE): CheckSummary {
  const s = structuredClone(base)
  for (const c of s.analysis?.comparisons ?? []) {
    c.metric = HOSTILE
    c.candidate_env = `container:${HOSTILE}`
    c.reason = message
  }
  for (const p of s.preflight) p.message = message
  s.warnings = [message, ...s.warnings]
  s.incomplete_reason = message
  return s
}

describe('one sanitiser for every published string', () => {
  test('mdText: prose with every markup neutralised, mentions/references/links broken, one line, bounded', () => {
    expectInert(mdText(HOSTILE))
    expect(mdText(HOSTILE)).not.toContain('\n')
    expect(mdText('x'.repeat(10_000), 300).length).toBeLessThanOrEqual(300)
    // Ordinary values stay readable.
    expect(mdText('kernel_ms')).toBe('kernel_ms')
    expect(mdText('580.159.04')).toBe('580.159.04')
  })

  test('mdCode: a code span whatever backticks the text holds; pipes as they are (a table cell escapes them)', () => {
    const c = mdCode('a `` b ` c | d')
    expect(c).toBe('```a `` b ` c | d```')
    expect(mdTableCell(c)).toBe('```a `` b ` c \\| d```')
    expectInert(mdCode(HOSTILE))
  })

  test('plainText: no control, ANSI or bidi character, one line, bounded even for a 5 MB message', () => {
    const big = `${HOSTILE}${'A'.repeat(5 * 1024 * 1024)}`
    const t = plainText(big, 500)
    expect(t.length).toBeLessThanOrEqual(500)
    expect(t).not.toMatch(/[\r\n\u001b\u202E]/)
  })

  test('the report, the PR comment and the Check run carry hostile names inertly', () => {
    for (const base of [regression, gateFailed]) {
      const s = hostileSummary(base)
      const report = buildReport(s)
      expectInert(report)
      const comment = buildComment(s, { run: null, artifact: null } as never)
      expectInert(comment)
      const req = checkRunRequest({
        name: 'gpu',
        headSha: 'a'.repeat(40),
        summary: s,
        compact: comment,
        full: report,
        detailsUrl: null,
        env: {}
      })
      expectInert(req.output.summary)
      expectInert(req.output.text)
      expect(req.output.title).not.toMatch(/[\r\n\u001b\u202E]/)
      for (const a of req.output.annotations) {
        expect(`${a.title}${a.message}`).not.toMatch(/[\r\n\u001b\u202E]/)
        expect(a.message.length).toBeLessThanOrEqual(4000)
      }
      expectInert(verdictLine(s))
      expect(decideFailure(s, true) ?? '').not.toMatch(/[\r\n\u001b\u202E]/)
    }
  })

  test('a 5 MB message is bounded in every sink', () => {
    const s = hostileSummary(gateFailed, 'E'.repeat(5 * 1024 * 1024))
    expect(buildReport(s).length).toBeLessThan(200_000)
    expect(buildComment(s, { run: null, artifact: null } as never).length).toBeLessThanOrEqual(65_535)
    expect((decideFailure(s, true) ?? '').length).toBeLessThan(10_000)
  })

  test('publishMarkdown: the last pass strips controls and breaks mentions outside code, keeps code and markers', () => {
    const doc = `<!-- gpu-overhead marker @x -->\nhi @octocat and octo/repo#1\r\n\`@kept\` ${ANSI}`
    const out = publishMarkdown(doc)
    expectInert(out)
    expect(out).toContain('<!-- gpu-overhead marker @x -->')
    expect(out).toContain('`@kept`')
  })

  test('log lines never start a workflow command and carry no control character', () => {
    const lines = logText(
      `ok\n::warning::owned\n   ::set-env name=NODE_OPTIONS::--require=/tmp/x\r::error::x\n##[group]g ${ANSI}\n${'L'.repeat(100_000)}`
    ).split('\n')
    for (const l of lines) {
      expect(l.trimStart().startsWith('::')).toBe(false)
      expect(l).not.toContain('##[')
      expect(l).not.toMatch(/[\r\u001b]/)
      expect(l.length).toBeLessThanOrEqual(4000)
    }
  })

  test('CSV: a cell starting with = + - @ is text, never a formula, and reads back as written', () => {
    for (const evil of ['=HYPERLINK("http://e","x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1'])
      expect(csvCell(evil)).toMatch(/^"?'/)
    expect(csvCell(-1.5)).toBe('-1.5')
    expect(csvText("'=1+1")).toBe('=1+1')
    const row = sampleCsvRow({
      workload: 'matmul',
      environment: 'native',
      run: 1,
      iteration: 0,
      metric: '=HYPERLINK("http://e","x")',
      value: -1,
      unit: 'ms',
      better: 'lower',
      scope: 'steady',
      params: {},
      throttled: false,
      time: '2026-01-01T00:00:00Z',
      fingerprint: {}
    } as never)
    expect(row.split(',').some(f => /^"?=/.test(f))).toBe(false)
  })
})
