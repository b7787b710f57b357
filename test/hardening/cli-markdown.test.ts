/**
 * Issue 53 C16-19 / C16-38: the CLI's markdown on stdout is published text (users paste `gpu-overhead analyze
 * --format md` into PR comments). Hostile workload and metric names in the CSV, built from backtick-run tricks
 * (escaped runs, unequal runs, unclosed runs, runs around a pipe or a tag), never leave a mention or a link live.
 */
import { Parser } from 'commonmark'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { publishMarkdown } from '../../src/util/text.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-cli-md-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(() => {
  process.exitCode = undefined
})

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const r = await mainInProcess(args)
  return { code: r.code, out: r.stdout }
}

/** Every way of pairing backtick runs around a mention and a link: escaped, doubled, unequal, unclosed. */
const PAYLOAD = '@octocat https://evil.example/x www.evil.example #12'
const PREFIXES = ['', '`', '\\`', '\\\\`', '``', '\\``', '`` `', '<b title="`">', '|`', '<!-- ', '```']
const SUFFIXES = ['', '`', '\\`', '``', '` `', '```', ' -->']
const HOSTILE = PREFIXES.flatMap(p => SUFFIXES.map(s => `${p}${PAYLOAD}${s}`))

/** No mention, reference or link is left as GitHub would link it. */
function expectInert(md: string): void {
  expect(md).not.toMatch(/(^|[^\p{L}\p{N}_])@octocat/u)
  expect(md).not.toMatch(/#12/)
  expect(md).not.toMatch(/https:\/\/evil/)
  expect(md).not.toMatch(/www\.evil/)
}

function csv(names: string[]): string {
  const q = (s: string): string => `"${s.replace(/"/g, '""')}"`
  const rows = ['workload,environment,run,metric,value,unit']
  names.forEach((name, k) => {
    for (const env of ['native', 'container'])
      for (let r = 0; r < 3; r++)
        rows.push(
          [
            q(`w${k}${name}`),
            env,
            r,
            q(`m${k}${name}`),
            10 + r * 0.1 + (env === 'container' ? 0.05 : 0),
            'ms'
          ].join(',')
        )
  })
  const file = path.join(dir, `hostile-${names.length}.csv`)
  fs.writeFileSync(file, `${rows.join('\n')}\n`)
  return file
}

describe('hostile names in the CSV, printed as markdown by the CLI', () => {
  it(`${HOSTILE.length} names: no mention, reference or link is live on stdout`, async () => {
    const { code, out } = await cli(['analyze', '--input', csv(HOSTILE), '--format', 'md'])
    expect(code).not.toBe(2)
    // The names did reach stdout (the test looks at the rows that carry them).
    expect(out.split('\n').filter(l => l.includes('octocat')).length).toBeGreaterThanOrEqual(HOSTILE.length)
    expectInert(out)
  }, 60_000)
})

/**
 * What CommonMark's reference parser (commonmark.js) renders as text that GitHub would scan for mentions and
 * references: text nodes and raw HTML, but not code spans, code blocks or HTML comments.
 */
function liveText(md: string): string {
  const walker = new Parser().parse(md).walker()
  const live: string[] = []
  for (let ev = walker.next(); ev !== null; ev = walker.next()) {
    const { node } = ev
    if (!ev.entering) continue
    if (node.type === 'text') live.push(node.literal ?? '')
    // Raw HTML shows its text; a comment in it (CommonMark's form) shows nothing.
    if (node.type === 'html_inline' || node.type === 'html_block')
      live.push((node.literal ?? '').replace(/<!--(?!>|->)(?:(?!--)[\s\S])*?(?<!-)-->/g, ''))
  }
  return live.join('\n')
}

describe('the last pass over any document (publishMarkdown): code spans as CommonMark reads them', () => {
  // What the report's own markup can put around a value; the value is hostile.
  const WRAPS = [
    (v: string) => `text ${v} text`,
    (v: string) => `\`a\` ${v} \`b\``,
    (v: string) => `| \`${v}\` | x |`,
    (v: string) => `- \`x\` ${v}`,
    (v: string) => `line one \`\n${v} \``,
    (v: string) => `<div>\n\`\`\`\n${v}\n\`\`\``,
    (v: string) => `\t\`\`\`\n${v}`,
    (v: string) => `\`\`\` info\`x\n${v}`
  ]
  it.each(WRAPS.map((w, i) => [i, w] as const))(
    'wrap %i: mentions and references outside real code are broken',
    (_i, wrap) => {
      for (const v of HOSTILE) {
        const live = liveText(publishMarkdown(wrap(v)))
        expect(live).not.toMatch(/(^|[^\p{L}\p{N}_])@octocat/u)
        expect(live).not.toMatch(/#12/)
      }
    }
  )
  it('the control: real code spans, fences and our marker comments are kept as they are', () => {
    const doc =
      '<!-- gpu-overhead-trend {"k":"#1"} -->\n`@octocat` and ``a ` @b``\n```\n@octocat #1\n```\n@octocat'
    const out = publishMarkdown(doc)
    expect(liveText(out)).not.toMatch(/@octocat/)
    expect(out.split('\n').slice(0, 5)).toEqual(doc.split('\n').slice(0, 5))
    expect(out.split('\n')[5]).toBe('@\u200boctocat')
  })
})
