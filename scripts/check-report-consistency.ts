/**
 * Issue 51, done when: every result folder of docs/evidence re-analysed with the current code, and N generated
 * checks of each kind (fixed, sequential, noisy CPU, unbounded), rendered as a reader meets them (report.md / job
 * summary, PR comment, annotations, the action's comparisons output, summary.json) and read back from the text
 * (scripts/lib/report-consistency.ts says what is checked). Exit 1 on any finding.
 *
 * Run: npx tsx scripts/check-report-consistency.ts [--generated N] [--no-evidence] [--out FILE.md]
 * The raw folders come from the orphan branch evidence-raw (scripts/lib/evidence-raw.ts).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { pass } from '../test/__fixtures__/summaries/pass.js'
import { evidenceFolders, evidencePath } from './lib/evidence-raw.js'
import { checkDirs, reanalysedSummary } from './lib/reanalyse.js'
import {
  checkSummary,
  emptyTally,
  generatedAnalysis,
  KINDS,
  SETTINGS,
  withAnalysis,
  type Tally
} from './lib/report-consistency.js'

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const N = Number(flag('--generated') ?? 200)
const OUT = flag('--out')

const lines: string[] = []
const say = (s: string): void => {
  lines.push(s)
  console.log(s)
}

const results: { name: string; tally: Tally; skipped: string[] }[] = []

if (!args.includes('--no-evidence')) {
  const tally = emptyTally()
  const skipped: string[] = []
  for (const folder of evidenceFolders()) {
    const local = evidencePath(folder)
    for (const dir of checkDirs(local)) {
      const name = path.relative(local, dir) === '' ? folder : `${folder}/${path.relative(local, dir)}`
      try {
        checkSummary(name, await reanalysedSummary(dir), tally)
      } catch (error) {
        skipped.push(`${name}: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`)
      }
    }
  }
  results.push({ name: 'docs/evidence (re-analysed)', tally, skipped })
}

for (const kind of KINDS) {
  const tally = emptyTally()
  for (let seed = 1; seed <= N; seed++)
    checkSummary(`${kind} #${seed}`, withAnalysis(pass, generatedAnalysis(kind, seed)), tally)
  results.push({ name: `generated: ${kind}`, tally, skipped: [] })
}

say(
  `Settings: max-overhead ${SETTINGS.maxOverheadPct}%, alpha ${SETTINGS.alpha}; generated checks: ${N} per kind.`
)
say('')
say(
  '| Source | Checks | Comparisons | Printed intervals | Unbounded ends (in words) | Cross-checks | Verdicts | Findings |'
)
say(
  '| :----- | -----: | ----------: | ----------------: | ------------------------: | -----------: | :------- | -------: |'
)
for (const { name, tally } of results)
  say(
    `| ${name} | ${tally.checks} | ${tally.comparisons} | ${tally.printedIntervals} | ${tally.unboundedEnds} | ${tally.crossChecked} | ${Object.entries(
      tally.verdicts
    )
      .sort()
      .map(([v, n]) => `${v} ${n}`)
      .join(', ')} | ${tally.findings.length} |`
  )
const findings = results.flatMap(r => r.tally.findings)
const skipped = results.flatMap(r => r.skipped)
if (skipped.length > 0) {
  say('')
  say(`Folders not re-analysed (${skipped.length}):`)
  for (const s of skipped) say(`- ${s}`)
}
if (findings.length > 0) {
  say('')
  say(`Findings (${findings.length}, first 40):`)
  for (const f of findings.slice(0, 40)) say(`- ${f.check}: ${f.what}`)
}
if (OUT !== undefined) fs.writeFileSync(OUT, `${lines.join('\n')}\n`)
process.exitCode = findings.length > 0 ? 1 : 0
