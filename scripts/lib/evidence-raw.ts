/**
 * The raw result folders of docs/evidence (summaries, per-run records, samples, telemetry) live on the orphan
 * branch `evidence-raw`, at the paths they had on main (issue 55: `uses:` downloads the repository at the ref, and
 * 119 MB of raw results made that a 71 MB download). main keeps the pages and their small tables.
 *
 * Scripts that replay or re-analyse recorded folders call `evidencePath('docs/evidence/X')`: the folder is unpacked
 * once from the branch (`git archive`) into a cache under the system's temporary folder, keyed by the branch's
 * commit, and the path there is returned; a folder the branch lacks but the work tree holds (one being recorded)
 * is used in place. `evidenceFolders()` lists the result folders on the branch.
 *
 * Without the branch in the clone, both fail with the command that fetches it.
 *
 * CLI: `npx tsx scripts/lib/evidence-raw.ts [docs/evidence/X ...]` prints each folder's local path (no argument:
 * lists the folders on the branch).
 */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

export const EVIDENCE_BRANCH = 'evidence-raw'
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const EVIDENCE = 'docs/evidence'

export class EvidenceBranchMissing extends Error {}

const git = (args: string[]): string =>
  execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })

/** The branch's commit: the local branch, else the remote-tracking one; a clear error when the clone has neither. */
export function evidenceCommit(): string {
  for (const ref of [`refs/heads/${EVIDENCE_BRANCH}`, `refs/remotes/origin/${EVIDENCE_BRANCH}`]) {
    try {
      return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim()
    } catch {
      // not this ref: try the next
    }
  }
  throw new EvidenceBranchMissing(
    `the raw result folders of ${EVIDENCE} are on the orphan branch '${EVIDENCE_BRANCH}', which this clone lacks; ` +
      `fetch it with: git fetch origin ${EVIDENCE_BRANCH}:${EVIDENCE_BRANCH}`
  )
}

/** The result folders on the branch, as repository paths (`docs/evidence/2026-11-22-h200`, ...). */
export function evidenceFolders(): string[] {
  const commit = evidenceCommit()
  return git(['ls-tree', '-d', '--name-only', commit, `${EVIDENCE}/`])
    .split('\n')
    .filter(Boolean)
    .sort()
}

/** Normalises `docs/evidence/X/` or `./docs/evidence/X` to `docs/evidence/X`; refuses paths outside it. */
function repoPath(p: string): string {
  const rel = path.relative(ROOT, path.resolve(ROOT, p)).split(path.sep).join('/')
  if (rel !== EVIDENCE && !rel.startsWith(`${EVIDENCE}/`)) {
    throw new Error(`${p}: not under ${EVIDENCE}/`)
  }
  return rel
}

/**
 * A local path holding the repository path `p` (a file or folder under docs/evidence): the branch's copy, unpacked
 * into the cache, when the branch has it (main keeps only the pages of its folders); else the work tree's, when it
 * holds more than pages (a folder being recorded, not moved yet). Otherwise an error that names the branch.
 */
export function evidencePath(p: string): string {
  const rel = repoPath(p)
  const inTree = path.join(ROOT, rel)
  const treeHasRaw =
    fs.existsSync(inTree) && !(fs.statSync(inTree).isDirectory() && onlyPages(inTree)) && !rel.endsWith('.md')
  let commit: string
  try {
    commit = evidenceCommit()
  } catch (e) {
    if (treeHasRaw) return inTree
    throw e
  }
  if (!git(['ls-tree', '--name-only', commit, rel]).trim()) {
    if (fs.existsSync(inTree)) return inTree
    throw new Error(
      `${rel}: neither in the work tree nor on the branch '${EVIDENCE_BRANCH}' (${commit.slice(0, 12)})`
    )
  }
  const cache = path.join(os.tmpdir(), `gpu-overhead-${EVIDENCE_BRANCH}`, commit)
  const out = path.join(cache, rel)
  const done = `${out}.unpacked`
  if (fs.existsSync(done)) return out
  fs.mkdirSync(cache, { recursive: true })
  const tar = path.join(cache, `.${process.pid}.tar`)
  try {
    git(['archive', '--format=tar', `--output=${tar}`, commit, rel])
    execFileSync('tar', ['-x', '-f', tar, '-C', cache], { timeout: 120_000 })
  } finally {
    fs.rmSync(tar, { force: true })
  }
  fs.writeFileSync(done, `${commit}\n`)
  return out
}

/** `evidencePath(p)` for a path under docs/evidence; any other path (a folder recorded elsewhere) as given. */
export function localEvidence(p: string): string {
  const rel = path.relative(ROOT, path.resolve(p)).split(path.sep).join('/')
  return rel === EVIDENCE || rel.startsWith(`${EVIDENCE}/`) ? evidencePath(rel) : p
}

/** True when every entry of `dir` is a page (README.md and the like): main's copy of a moved folder. */
function onlyPages(dir: string): boolean {
  return fs.readdirSync(dir).every(n => n.endsWith('.md'))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const asked = process.argv.slice(2)
    for (const line of asked.length ? asked.map(evidencePath) : evidenceFolders()) console.log(line)
  } catch (e) {
    console.error(`evidence-raw: ${(e as Error).message}`)
    process.exit(2)
  }
}
