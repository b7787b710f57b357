/**
 * scripts/check-docs.mjs (npm run check:docs, a step of npm run checks): the archive `uses:` downloads stays at most
 * 10,000,000 bytes gzipped, and every relative link of README.md and docs/**\/*.md resolves, in the tree or, in the
 * documented form, on the branch evidence-raw (issue 55). Run on a scratch clone of this commit, with a bad link
 * and a raw file added.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const SCRIPT = path.resolve('scripts/check-docs.mjs')
const RAW = 'https://github.com/org/gpu-overhead-action/tree/evidence-raw/docs/evidence'
let work: string
const git = (...args: string[]) => spawnSync('git', args, { cwd: work, encoding: 'utf8', timeout: 120_000 })
// The copy in the clone: the script checks the repository it sits in.
const check = (...args: string[]) =>
  spawnSync('node', ['scripts/check-docs.mjs', ...args], { cwd: work, encoding: 'utf8', timeout: 300_000 })

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'check-docs-'))
  const r = spawnSync('git', ['clone', '--quiet', '--no-local', path.resolve('.'), work], {
    timeout: 300_000
  })
  if (r.status !== 0) throw new Error(String(r.stderr))
  // However the source was cloned, this one starts without the branch.
  git('update-ref', '-d', 'refs/remotes/origin/evidence-raw')
  git('config', 'user.email', 'test@example.invalid')
  git('config', 'user.name', 'test')
  // The script under test (this tree's), in the clone.
  fs.copyFileSync(SCRIPT, path.join(work, 'scripts/check-docs.mjs'))
})
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

it('passes on this commit; a relative link to nothing fails, naming the page, the link and the raw-link form', () => {
  const ok = check('--links-only')
  expect(ok.stderr).toBe('')
  expect(ok.status).toBe(0)
  fs.appendFileSync(path.join(work, 'docs/README.md'), '\n[gone](evidence/2026-11-22-h200/summary.json)\n')
  git('commit', '-qam', 'a bad link')
  const bad = check('--links-only')
  expect(bad.status).toBe(1)
  expect(bad.stderr).toContain(
    `check-docs: docs/README.md: evidence/2026-11-22-h200/summary.json: docs/evidence/2026-11-22-h200/summary.json is not in the tree (raw results: link ${RAW}/2026-11-22-h200/summary.json)`
  )
})

it('a link to the branch is checked there when the clone has it, and said unchecked when not', () => {
  git('reset', '-q', '--hard', 'origin/HEAD')
  fs.appendFileSync(path.join(work, 'docs/README.md'), `\n[raw](${RAW}/2026-11-22-h200/summary.json)\n`)
  git('commit', '-qam', 'a raw link')
  const without = check('--links-only')
  expect(without.stderr).toBe('')
  expect(without.status).toBe(0)
  expect(without.stdout).toMatch(/; \d+ to branch evidence-raw not checked \(not in this clone\)/)
  // A branch of that name holding the file (made here: the real one is 69 MB), then one that lacks it.
  const branch = (file: string) => {
    const blob = spawnSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: work,
      input: '{}\n',
      encoding: 'utf8'
    })
    const idx = path.join(work, '.git', 'raw-index')
    const env = { ...process.env, GIT_INDEX_FILE: idx }
    spawnSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob.stdout.trim()},${file}`], {
      cwd: work,
      env
    })
    const t = spawnSync('git', ['write-tree'], { cwd: work, env, encoding: 'utf8' }).stdout.trim()
    const c = spawnSync('git', ['commit-tree', t, '-m', 'raw'], { cwd: work, encoding: 'utf8' }).stdout.trim()
    fs.rmSync(idx, { force: true })
    git('branch', '-f', 'evidence-raw', c)
  }
  branch('docs/evidence/2026-11-22-h200/summary.json')
  // (The pages' other raw links name folders this small branch lacks: only this link's line is looked at.)
  const found = check('--links-only')
  expect(found.stderr).toContain('on branch evidence-raw')
  expect(found.stderr).not.toContain('2026-11-22-h200/summary.json')
  branch('docs/evidence/2026-11-22-h200x2/summary.json')
  const missing = check('--links-only')
  expect(missing.status).toBe(1)
  expect(missing.stderr).toContain('no docs/evidence/2026-11-22-h200/summary.json on branch evidence-raw')
})

it('the archive of this commit is at most 10,000,000 bytes gzipped; one over it fails', () => {
  const ok = check('--size-only')
  expect(ok.status).toBe(0)
  expect(ok.stdout).toMatch(/^git archive HEAD \| gzip -6: [\d,]+ bytes \(at most 10,000,000\)/)
  // 12 MB that gzip cannot shrink.
  fs.writeFileSync(path.join(work, 'docs/noise.bin'), randomBytes(12_000_000))
  git('add', 'docs/noise.bin')
  git('commit', '-qm', 'raw data in the tree')
  const big = check('--size-only')
  expect(big.status).toBe(1)
  expect(big.stderr).toMatch(/raw results belong on the branch evidence-raw/)
})
