// Records how long each test file took (ms), for the test sequencer's order on a clean clone
// (scripts/test-images/sequencer.mjs). Feed it Jest's --json reports of every lane, run on a 2-core machine:
//   npx jest --selectProjects unit --json --outputFile=/tmp/unit.json   (likewise calibration, integration)
//   node scripts/test-durations.mjs /tmp/unit.json /tmp/calibration.json /tmp/integration.json
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const out = path.join(root, 'scripts/test-images/test-durations.json')
const reports = process.argv.slice(2)
if (reports.length === 0) {
  console.error('usage: node scripts/test-durations.mjs JEST_JSON_REPORT...')
  process.exit(2)
}
const files = {}
for (const report of reports)
  for (const r of JSON.parse(readFileSync(report, 'utf8')).testResults)
    files[path.relative(root, r.name)] = Math.round(r.endTime - r.startTime)
const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)))
writeFileSync(
  out,
  JSON.stringify(
    { machine: '2 cores, no GPU', recorded: new Date().toISOString().slice(0, 10), files: sorted },
    null,
    2
  ) + '\n'
)
console.log(`${Object.keys(sorted).length} files → ${path.relative(root, out)}`)
