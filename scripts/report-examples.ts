/**
 * The PR comment, job summary and Check run text of recorded checks, as a reviewer sees them (issue 51): for each
 * NAME=DIR (a results folder holding summary.json), writes OUT/NAME-comment.md, OUT/NAME-summary.md and
 * OUT/NAME-check-run.md with today's report code. Render them with shared/tools/render-md (docs/report-examples/).
 *
 *   npx tsx scripts/report-examples.ts OUT cpu-pass=docs/evidence/…/default-2 gpu-regression=…
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { buildComment, runLinks } from '../src/report/comment-body.js'
import { buildReport } from '../src/report/markdown.js'
import { checkTitle } from '../src/report/check-run.js'
import type { CheckSummary } from '../src/types/index.js'

const [out, ...pairs] = process.argv.slice(2)
if (out === undefined || pairs.length === 0) throw new Error('usage: report-examples.ts OUT NAME=DIR...')
fs.mkdirSync(out, { recursive: true })
// Links as on a workflow run, so the comment's footer shows where the job summary is.
const env = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'org/repo', GITHUB_RUN_ID: '1' }
for (const pair of pairs) {
  const [name, dir] = pair.split('=')
  if (!name || !dir) throw new Error(`not NAME=DIR: ${pair}`)
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as CheckSummary
  const comment = buildComment(summary, runLinks(env, 7))
  fs.writeFileSync(path.join(out, `${name}-comment.md`), comment)
  fs.writeFileSync(path.join(out, `${name}-summary.md`), buildReport(summary))
  fs.writeFileSync(path.join(out, `${name}-check-run.md`), `# ${checkTitle(summary)}\n\n${comment}`)
  process.stdout.write(`${name}: ${comment.length} characters in the comment\n`)
}
