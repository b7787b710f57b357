/**
 * The PR comment, job summary and Check run text of recorded checks, as a reviewer sees them (issue 51): for each
 * NAME=DIR, writes OUT/NAME-comment.md, OUT/NAME-summary.md and OUT/NAME-check-run.md. Render them with
 * shared/tools/render-md (docs/report-examples/).
 *
 * The check's samples are analysed again with today's code (scripts/lib/reanalyse.ts): a recorded summary.json
 * carries the verdict and intervals of the code it was recorded with, which a fix since may contradict. DIR is a
 * folder holding summary.json and samples.csv(.gz): a `docs/evidence/…` path is taken from the orphan branch
 * evidence-raw (scripts/lib/evidence-raw.ts), any other path as it is (a fresh check's results folder).
 *
 *   npx tsx scripts/report-examples.ts OUT cpu-pass=docs/evidence/…/default-2 gpu-regression=…
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { buildComment, runLinks } from '../src/report/comment-body.js'
import { buildReport } from '../src/report/markdown.js'
import { checkTitle } from '../src/report/check-run.js'
import { evidencePath } from './lib/evidence-raw.js'
import { holdsCheck, reanalysedSummary } from './lib/reanalyse.js'

const [out, ...pairs] = process.argv.slice(2)
if (out === undefined || pairs.length === 0) throw new Error('usage: report-examples.ts OUT NAME=DIR...')
fs.mkdirSync(out, { recursive: true })
// Links as on a workflow run, so the comment's footer shows where the job summary is.
const env = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'org/repo', GITHUB_RUN_ID: '1' }
for (const pair of pairs) {
  const [name, given] = pair.split('=')
  if (!name || !given) throw new Error(`not NAME=DIR: ${pair}`)
  const dir = /^(\.\/)?docs\/evidence\//.test(given) ? evidencePath(given) : given
  if (!holdsCheck(dir)) throw new Error(`${given}: no summary.json with samples.csv(.gz) to re-analyse`)
  const summary = await reanalysedSummary(dir)
  const comment = buildComment(summary, runLinks(env, 7))
  fs.writeFileSync(path.join(out, `${name}-comment.md`), comment)
  fs.writeFileSync(path.join(out, `${name}-summary.md`), buildReport(summary))
  fs.writeFileSync(path.join(out, `${name}-check-run.md`), `# ${checkTitle(summary)}\n\n${comment}`)
  process.stdout.write(`${name}: ${summary.verdict}, ${comment.length} characters in the comment\n`)
}
