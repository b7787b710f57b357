// Regenerates the README's inputs table from action.yml (the single source of the descriptions).
import { readFileSync, writeFileSync } from 'node:fs'
import { parse } from 'yaml'

const action = parse(readFileSync('action.yml', 'utf8'))
const rows = Object.entries(action.inputs).map(([name, spec]) => {
  const def = spec.default === undefined ? '' : `\`${String(spec.default)}\``
  return `| \`${name}\` | ${def} | ${String(spec.description).replace(/\|/g, '\\|')} |`
})
const table = ['| input | default | meaning |', '| --- | --- | --- |', ...rows].join('\n')
const readme = readFileSync('README.md', 'utf8')
const next = readme.replace(
  /<!-- inputs-table:start -->[\s\S]*<!-- inputs-table:end -->/,
  `<!-- inputs-table:start -->\n${table}\n<!-- inputs-table:end -->`
)
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('README inputs table is out of date: run node scripts/readme-inputs.mjs')
    process.exit(1)
  }
} else writeFileSync('README.md', next)
