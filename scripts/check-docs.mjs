// `npm run check:docs`: what a workflow's `uses:` downloads stays small, and the docs' links resolve (issue 55).
//
// 1. `git archive HEAD | gzip -6` is at most 10,000,000 bytes: `uses:` fetches the repository archive at the ref
//    on every job. The raw result folders of docs/evidence live on the orphan branch `evidence-raw`
//    (scripts/lib/evidence-raw.ts); main keeps the pages and their small tables.
// 2. Every relative link in README.md and docs/**/*.md resolves to a file or folder in the tree. A link to the raw
//    results uses the one documented form `https://github.com/org/gpu-overhead-action/tree/evidence-raw/<path>`
//    (or `/blob/evidence-raw/<path>` for a file), and must name a path on that branch when the clone has it
//    (`git fetch origin evidence-raw:evidence-raw`); without the branch those links are listed as not checked.
//
// `node scripts/check-docs.mjs [--size-only|--links-only]`; exit 1 with each failure on its own line.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const MAX_ARCHIVE_GZ_BYTES = 10_000_000
export const EVIDENCE_BRANCH = 'evidence-raw'
export const PROJECT_URL = 'https://github.com/org/gpu-overhead-action'
const RAW_LINK = new RegExp(
  `^${PROJECT_URL.replace(/[.]/g, '\\.')}/(?:tree|blob)/${EVIDENCE_BRANCH}/([^?#]+)`
)

const git = (args, opts = {}) =>
  execFileSync('git', ['-C', ROOT, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
    ...opts
  })

/** Bytes of `git archive <ref> | gzip -6`, streamed (never held in memory). */
export function archiveGzBytes(ref = 'HEAD') {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['-C', ROOT, 'archive', '--format=tar', ref], {
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const gzip = spawn('gzip', ['-6', '-c'], { stdio: ['pipe', 'pipe', 'inherit'] })
    const timer = setTimeout(() => {
      archive.kill('SIGKILL')
      gzip.kill('SIGKILL')
      reject(new Error('git archive | gzip took over 120 s'))
    }, 120_000)
    let bytes = 0
    let err = ''
    archive.stdout.pipe(gzip.stdin)
    archive.stderr.on('data', d => (err += d))
    gzip.stdout.on('data', d => (bytes += d.length))
    archive.on(
      'close',
      code => code !== 0 && reject(new Error(`git archive ${ref}: exit ${code}: ${err.trim()}`))
    )
    gzip.on('close', code => {
      clearTimeout(timer)
      code === 0 ? resolve(bytes) : reject(new Error(`gzip: exit ${code}`))
    })
  })
}

/** The branch's commit, or undefined when the clone has neither the local nor the remote-tracking branch. */
function branchCommit() {
  for (const ref of [`refs/heads/${EVIDENCE_BRANCH}`, `refs/remotes/origin/${EVIDENCE_BRANCH}`]) {
    try {
      return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
        stdio: ['ignore', 'pipe', 'ignore']
      }).trim()
    } catch {
      // try the next
    }
  }
  return undefined
}

/** Markdown link targets of a page: inline links and images, reference definitions and HTML src/href. */
export function linkTargets(text) {
  // Code spans and fenced blocks hold examples, not links.
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '``')
  const out = []
  const re =
    /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)|\b(?:src|href)="([^"]+)"/gm
  for (const m of prose.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3])
  return out
}

/** The pages to check: README.md and every .md under docs/, as tracked. */
function pages() {
  return git(['ls-files', '-z', '--', 'README.md', 'docs'])
    .split('\0')
    .filter(f => f.endsWith('.md'))
}

export function checkLinks() {
  const tracked = new Set(git(['ls-files', '-z']).split('\0').filter(Boolean))
  const dirs = new Set()
  for (const f of tracked)
    for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) dirs.add(d)
  const commit = branchCommit()
  const onBranch = new Map()
  const branchHas = p => {
    if (!onBranch.has(p))
      onBranch.set(p, git(['ls-tree', '--name-only', commit, p.replace(/\/$/, '')]).trim() !== '')
    return onBranch.get(p)
  }
  const failures = []
  let unchecked = 0
  let checked = 0
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8')
    for (const target of linkTargets(text)) {
      const raw = RAW_LINK.exec(target)
      if (raw) {
        const p = decodeURIComponent(raw[1]).replace(/\/$/, '')
        if (commit === undefined) unchecked++
        else if (!branchHas(p)) failures.push(`${page}: ${target}: no ${p} on branch ${EVIDENCE_BRANCH}`)
        else checked++
        continue
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('//')) continue
      const bare = decodeURIComponent(target.split('#')[0].split('?')[0])
      if (bare === '') continue
      const rel = path.posix.normalize(path.posix.join(path.posix.dirname(page), bare)).replace(/\/$/, '')
      if (rel.startsWith('../') || (!tracked.has(rel) && !dirs.has(rel) && rel !== '.')) {
        const hint = rel.startsWith('docs/evidence/')
          ? ` (raw results: link ${PROJECT_URL}/tree/${EVIDENCE_BRANCH}/${rel})`
          : ''
        failures.push(`${page}: ${target}: ${rel} is not in the tree${hint}`)
      } else checked++
    }
  }
  return { failures, checked, unchecked, branch: commit }
}

async function main() {
  const only = process.argv[2]
  const failures = []
  if (only !== '--links-only') {
    const bytes = await archiveGzBytes()
    const line = `git archive HEAD | gzip -6: ${bytes.toLocaleString('en')} bytes (at most ${MAX_ARCHIVE_GZ_BYTES.toLocaleString('en')})`
    console.log(line)
    if (bytes > MAX_ARCHIVE_GZ_BYTES)
      failures.push(`${line}: raw results belong on the branch ${EVIDENCE_BRANCH}`)
  }
  if (only !== '--size-only') {
    const r = checkLinks()
    console.log(
      `links: ${r.checked} resolve` +
        (r.unchecked ? `; ${r.unchecked} to branch ${EVIDENCE_BRANCH} not checked (not in this clone)` : '')
    )
    failures.push(...r.failures)
  }
  for (const f of failures) console.error(`check-docs: ${f}`)
  process.exit(failures.length ? 1 : 0)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main()
