import * as fs from 'node:fs'
import { buildComment, runLinks } from '../../../src/report/comment-body.ts'
import { buildReport, reportMarker } from '../../../src/report/markdown.ts'
const env = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'org/repo', GITHUB_RUN_ID: '123456789', GITHUB_RUN_ATTEMPT: '1' }
const [input, outBase] = process.argv.slice(2)
const s = JSON.parse(fs.readFileSync(input!, 'utf8'))
const comment = `${reportMarker('GPU overhead', 'check')}\n${buildComment(s, runLinks(env, 42))}`
fs.writeFileSync(`${outBase}-comment.md`, comment)
fs.writeFileSync(`${outBase}-job-summary.md`, buildReport(s))
console.log(outBase, Buffer.byteLength(comment), Buffer.byteLength(buildReport(s)))
