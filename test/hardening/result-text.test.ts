/**
 * Issue 41: text from a result file (a benchmark's name and unit) in the UNDECIDED headline and in the table,
 * through the action's `mode: analyze` on a push with a Check run: every place it is shown — the job summary,
 * report.md, the Check run's title, summary and text, the step's outputs — gets it through the one sanitiser.
 * No link, image, mention or bare URL renders from it.
 */
import * as fs from 'node:fs'
/* eslint-disable no-control-regex -- control characters are what this test looks for */
import * as os from 'node:os'
import * as path from 'node:path'
import { clearSecrets } from '../../src/util/secrets.js'
import { startFakeApi, type FakeApi } from '../helpers/fake-github.js'
import { runAction } from './action-env.js'
import { setApiPacing } from '../../src/tools/github.js'

// The fake API has no quota: the client's retry backoff and write spacing in milliseconds, not seconds.
beforeAll(() => setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 1 }))

const NAME = 'k [click](https://evil.example/x) ![pixel](https://evil.example/p.png) @octocat octo/repo#1'
const UNIT = '[u](https://evil.example/u)'

/** Markdown a reader sees as prose: code spans left out (nothing renders there). */
function prose(md: string): string {
  return md.replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, ' ').replace(/<!--[\s\S]*?-->/g, ' ')
}

function expectInert(where: string, md: string): void {
  const p = prose(md)
  expect({ where, link: /(?<!\\)\[(click|u)(?<!\\)\]\(/.test(p) }).toEqual({ where, link: false })
  expect({ where, image: /!(?<!\\)\[pixel/.test(p) }).toEqual({ where, image: false })
  expect({ where, url: p.includes('https://evil.example') }).toEqual({ where, url: false })
  expect({ where, mention: /(^|[^\w])@octocat/.test(p) }).toEqual({ where, mention: false })
  expect({ where, ref: /octo\/repo#1/.test(p) }).toEqual({ where, ref: false })
}

let api: FakeApi
let ws: string
beforeAll(async () => {
  api = await startFakeApi({
    'POST /repos/o/r/check-runs': { status: 201, body: { html_url: 'https://github.example/run/1' } }
  })
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-result-text-'))
  const values = { native: [10, 12.5, 9, 11.5], container: [11, 9.5, 13, 10] }
  const rows = ['workload,environment,run,metric,value,unit,better']
  const q = (t: string): string => `"${t.replace(/"/g, '""')}"`
  for (const [arm, list] of Object.entries(values))
    list.forEach((v, i) => rows.push(['bench', arm, i + 1, q(NAME), v, q(UNIT), 'lower'].join(',')))
  fs.writeFileSync(path.join(ws, 'results.csv'), `${rows.join('\n')}\n`)
})
afterAll(async () => {
  await api.close()
  fs.rmSync(ws, { recursive: true, force: true })
  clearSecrets()
})

test("a result file's name and unit are inert in the UNDECIDED headline, the table and the Check run", async () => {
  const r = await runAction({
    workspace: ws,
    inputs: {
      mode: 'analyze',
      'results-format': 'csv',
      results: 'results.csv',
      'github-token': 'ghs_000000000000000000000000000000000000',
      'check-run': 'gpu-overhead'
    },
    env: {
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_API_URL: api.url,
      GITHUB_SHA: 'b'.repeat(40),
      GITHUB_REF: 'refs/heads/main',
      GITHUB_ACTIONS: 'true'
    }
  })
  expect(r.outputs).toMatch(/verdict<<\S+\ninconclusive\n/)
  // The headline names the undecided metric: through the sanitiser, not as it was written.
  expect(r.summary).toMatch(/^\*\*UNDECIDED\*\*.*undecided \(bench k /)
  const report = fs.readFileSync(path.join(ws, 'gpu-overhead-results', 'report.md'), 'utf8')
  const checkRun = JSON.parse(api.requests.find(q => q.path === '/repos/o/r/check-runs')?.body ?? '{}') as {
    output?: { title?: string; summary?: string; text?: string }
  }
  expect(checkRun.output?.summary).toBeDefined()
  expectInert('job summary', r.summary)
  expectInert('report.md', report)
  // GitHub shows a Check run's title as plain text (never rendered): one line, no control character.
  expect(checkRun.output?.title).toMatch(/^UNDECIDED/)
  expect(checkRun.output?.title).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
  expectInert('check run summary', checkRun.output?.summary ?? '')
  expectInert('check run text', checkRun.output?.text ?? '')
  // The outputs are plain text for later steps: no control characters, names as the sanitiser leaves them.
  expect(r.outputs).not.toMatch(/[\u001b\r]/)
}, 120_000)
