// Fails when dist/ does not match a fresh build of src/ (the action runs dist/, so it must be current).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, cpSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// The bundles and the bundled packages' licenses (rollup-plugin-license writes them with the bundles).
const FILES = ['index.js', 'cli.js', 'licenses.txt']
const saved = mkdtempSync(join(tmpdir(), 'dist-check-'))
for (const f of FILES) {
  if (!existsSync(join('dist', f))) {
    console.error(`dist/${f} is missing: run npm run build and commit dist/`)
    process.exit(1)
  }
  cpSync(join('dist', f), join(saved, f))
}
execFileSync('npx', ['rollup', '--config', 'rollup.config.mjs', '--silent'], { stdio: 'inherit' })
let stale = []
for (const f of FILES) {
  if (readFileSync(join('dist', f), 'utf8') !== readFileSync(join(saved, f), 'utf8')) stale.push(`dist/${f}`)
}
rmSync(saved, { recursive: true, force: true })
if (stale.length) {
  console.error(`${stale.join(', ')} out of date with src/: run npm run build and commit dist/`)
  process.exit(1)
}
console.log('dist/ matches src/')
