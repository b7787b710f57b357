#!/usr/bin/env node
// The release steps the workflow (.github/workflows/release.yml) runs, as a script so they can be tried on
// a scratch clone without GitHub (test/package/release.test.ts does):
//
//   node scripts/release.mjs prepare X.Y.Z [--date YYYY-MM-DD]
//       package.json + lock and src/util/version.ts to X.Y.Z; the hand-written "## Unreleased" section of
//       CHANGELOG.md moved under "## vX.Y.Z — date" (an empty "## Unreleased" stays on top for what comes
//       next). Refused, before anything is written, when that section is missing or empty: a release entry
//       says what changed for users, which commit subjects do not. A file that already has the entry keeps it.
//   node scripts/release.mjs tag X.Y.Z vN [--push REMOTE]
//       on a clean tree of the default branch, HEAD pushed (REMOTE's, else origin's last fetched, default branch
//       is HEAD), whose version is X.Y.Z (package.json, canonical, and the VERSION constant, not a comment) and
//       whose CHANGELOG has its entry (not in an HTML comment or a code fence): the annotated, immutable tag vX.Y.Z on HEAD (refused
//       if it exists, here or on REMOTE), and the moving major tag vN moved to it; with --push, both pushed (vN
//       forced: it moves by design). vN must be X.Y.Z's own major (v1 for 0.x too: a new major starts its own
//       tag), and never moves back: a release older than one vN already names is refused. REMOTE is the name
//       of a configured remote (never an option such as --upload-pack=…).
//
// One line on stderr and exit 1 for anything refused. Every git call is an argv array with a timeout.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'

const TIMEOUT_MS = 120_000
const VERSION_FILE = 'src/util/version.ts'
const CHANGELOG = 'CHANGELOG.md'
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/
const MOVING = /^v[1-9]\d*$/
const CHANGELOG_HEAD = `# Changelog

Every release of gpu-overhead-action: pin \`@vX.Y.Z\` (never moves) or \`@v1\` (moved to each v1.x.y and, before
1.0, to each 0.x release; a breaking change of an input, output or exit code starts \`v2\`).
`

class Refused extends Error {}
const refuse = message => {
  throw new Refused(message)
}

const git = (...args) =>
  execFileSync('git', args, {
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'pipe']
  }).trim()
const gitOk = (...args) => {
  try {
    git(...args)
    return true
  } catch {
    return false
  }
}

/**
 * The CHANGELOG as it renders: HTML comments and fenced code blocks blanked (same length, line breaks kept, so
 * an index in it is one in the text). A heading in either is no heading.
 */
function visible(text) {
  const blank = m => m.replace(/[^\n]/g, ' ')
  let out = text.replace(/<!--[\s\S]*?(?:-->|$)/g, blank)
  // A fence: 3+ backticks or tildes up to 3 spaces in, closed by the same character at least as long (or the end).
  out = out.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|(?![\s\S]))/gm, blank)
  return out
}

const hasEntry = (text, version) =>
  new RegExp(`^## v${version.replaceAll('.', '\\.')}(\\s|$)`, 'm').test(visible(text))

const UNRELEASED = /^## Unreleased[ \t]*\n/m

/** What a section says for users: comments, sub-headings and bare list markers are not a change. */
const saysSomething = body =>
  visible(body)
    .split('\n')
    .some(l => l.trim() !== '' && !/^\s*(#{1,6}(\s.*)?|[-*+](\s*)|\d+[.)]\s*)$/.test(l))

/** The CHANGELOG with its Unreleased section moved under the version, or a refusal saying what to write. */
function changelogFor(log, version, date) {
  const shown = visible(log)
  const head = UNRELEASED.exec(shown)
  if (!head)
    refuse(
      `${CHANGELOG} has no "## Unreleased" section: write what changed for users there (one "- " line each), then prepare`
    )
  const start = head.index + head[0].length
  const rest = log.slice(start)
  const next = shown.slice(start).search(/^## /m)
  const body = (next < 0 ? rest : rest.slice(0, next)).trim()
  if (!saysSomething(body))
    refuse(
      `${CHANGELOG}'s "## Unreleased" section is empty: write what changed for users there (one "- " line each), then prepare`
    )
  const after = next < 0 ? '' : rest.slice(next)
  return `${log.slice(0, head.index)}## Unreleased\n\n## v${version} — ${date}\n\n${body}\n${after ? `\n${after}` : ''}`
}

function prepare(version, date) {
  const log = existsSync(CHANGELOG) ? readFileSync(CHANGELOG, 'utf8') : CHANGELOG_HEAD
  // Judged before anything is written: a refused prepare leaves the tree as it was.
  const entry = hasEntry(log, version) ? null : changelogFor(log, version, date)
  execFileSync('npm', ['version', version, '--no-git-tag-version', '--allow-same-version'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: TIMEOUT_MS
  })
  const source = readFileSync(VERSION_FILE, 'utf8')
  const updated = source.replace(/export const VERSION = '[^']*'/, `export const VERSION = '${version}'`)
  if (updated === source && !source.includes(`'${version}'`))
    refuse(`${VERSION_FILE} has no VERSION constant`)
  writeFileSync(VERSION_FILE, updated)

  if (entry === null) {
    console.log(`${CHANGELOG} already has v${version}: kept as written`)
    return
  }
  writeFileSync(CHANGELOG, entry)
  console.log(`${CHANGELOG}: the Unreleased section is now v${version} — ${date}`)
}

// BigInt: 9007199254740993 and 9007199254740992 are one JS number, never one version.
const parts = version => version.split('.').map(BigInt)
const compare = (a, b) => {
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1
  return 0
}
/** The moving tag a version belongs to: its major's, and v1 for 0.x (CHANGELOG_HEAD says so). */
const movingFor = version => `v${parts(version)[0] > 0n ? parts(version)[0] : 1n}`

/** The branch the repository releases from: REMOTE's HEAD, else origin's as last fetched, else main. */
function defaultBranch(remote) {
  if (remote) {
    const line = git('ls-remote', '--symref', remote, 'HEAD')
      .split('\n')
      .find(l => l.startsWith('ref: '))
    const m = line && /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line)
    if (m) return m[1]
  }
  try {
    return git('symbolic-ref', '--short', 'refs/remotes/origin/HEAD').replace(/^origin\//, '')
  } catch {
    return 'main'
  }
}

/** Release versions tagged here (and on REMOTE): `vA.B.C` only. */
function releasedVersions(remote) {
  const names = git('tag', '--list', 'v*.*.*').split('\n')
  if (remote)
    for (const l of git('ls-remote', '--tags', remote, 'refs/tags/v*').split('\n'))
      names.push(
        l
          .split('\t')[1]
          ?.replace(/^refs\/tags\//, '')
          .replace(/\^\{\}$/, '') ?? ''
      )
  return [...new Set(names.map(n => n.replace(/^v/, '')).filter(v => SEMVER.test(v)))]
}

function tag(version, moving, remote) {
  if (!MOVING.test(moving)) refuse(`moving tag ${JSON.stringify(moving)}: allowed vN, e.g. v1`)
  if (moving !== movingFor(version))
    refuse(
      `moving tag ${moving} for ${version}: allowed ${movingFor(version)} (a new major version starts its own tag; ${moving} stays where it is)`
    )
  if (remote !== null && (remote.startsWith('-') || !git('remote').split('\n').includes(remote)))
    refuse(`--push ${JSON.stringify(remote)}: allowed the name of a configured remote (git remote)`)
  const branch = gitOk('symbolic-ref', '--quiet', 'HEAD') ? git('symbolic-ref', '--short', 'HEAD') : null
  const main = defaultBranch(remote)
  if (branch !== main)
    refuse(
      `HEAD is ${branch ? `on branch ${branch}` : 'detached'}: a release is tagged on the default branch ${main}`
    )
  const newer = releasedVersions(remote)
    .filter(v => movingFor(v) === moving && compare(v, version) > 0)
    .sort(compare)
    .pop()
  if (newer) refuse(`v${newer} is released already: ${moving} never moves back to ${version}`)
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
  // Compared as canonical strings: "09.8.8" or "9.8.8.0" is no version, and never equal to one.
  if (typeof pkg.version !== 'string' || !SEMVER.test(pkg.version))
    refuse(
      `package.json has version ${JSON.stringify(pkg.version)}, not a canonical X.Y.Z: run prepare first`
    )
  if (pkg.version !== version)
    refuse(`package.json has version ${pkg.version}, not ${version}: run prepare first`)
  // The constant itself, not a comment (line or block) or another string that mentions the version.
  const code = readFileSync(VERSION_FILE, 'utf8').replace(/\/\*[\s\S]*?(?:\*\/|$)|\/\/[^\n]*/g, '')
  const constants = [...code.matchAll(/^export const VERSION = '([^']*)'/gm)].map(m => m[1])
  if (constants.length !== 1 || constants[0] !== version)
    refuse(`${VERSION_FILE} does not say ${version}: run prepare first`)
  // An entry inside an HTML comment or a code fence is no entry (hasEntry reads the CHANGELOG as it renders).
  const changelog = existsSync(CHANGELOG) ? readFileSync(CHANGELOG, 'utf8') : ''
  if (!hasEntry(changelog, version)) refuse(`${CHANGELOG} has no "## v${version}" entry: run prepare first`)
  const dirty = git('status', '--porcelain')
  if (dirty)
    refuse(`the work tree has uncommitted changes (commit the release first): ${dirty.split('\n')[0]}`)
  const release = `v${version}`
  if (gitOk('rev-parse', '--verify', '--quiet', `refs/tags/${release}`))
    refuse(`tag ${release} exists already: a release tag never moves; release a new version`)
  if (remote && git('ls-remote', '--tags', remote, `refs/tags/${release}`))
    refuse(`tag ${release} exists already on ${remote}: a release tag never moves; release a new version`)
  // The tag names a commit the remote's default branch has: a local commit never pushed is no release.
  const upstream = remote
    ? (git('ls-remote', '--', remote, `refs/heads/${main}`).split('\t')[0] ?? '')
    : gitOk('rev-parse', '--verify', '--quiet', `refs/remotes/origin/${main}`)
      ? git('rev-parse', `refs/remotes/origin/${main}`)
      : null
  const headSha = git('rev-parse', 'HEAD')
  if (upstream !== null && upstream !== headSha)
    refuse(
      `HEAD ${headSha.slice(0, 12)} is not ${remote ?? 'origin'}'s ${main} (${upstream ? upstream.slice(0, 12) : 'missing'}): push the release commit first`
    )

  git('tag', '-a', release, '-m', `Release ${release}`, 'HEAD')
  git('tag', '-f', moving, `${release}^{commit}`)
  if (remote) {
    git('push', '--', remote, `refs/tags/${release}`)
    git('push', '--force', '--', remote, `refs/tags/${moving}`)
  }
  console.log(
    `${release} tagged at ${git('rev-parse', '--short', 'HEAD')}; ${moving} moved to it${remote ? `; pushed to ${remote}` : ''}`
  )
}

/** The usage: the header comment of this file, from its first command line to the line before the imports. */
function usage() {
  const text = readFileSync(new URL(import.meta.url), 'utf8').split('\n')
  const from = text.findIndex(l => l.includes('node scripts/release.mjs prepare'))
  const to = text.findIndex(l => l.startsWith('import '))
  return text
    .slice(from, to)
    .map(l => l.replace(/^\/\/ ?/, ''))
    .join('\n')
    .trimEnd()
}

function main(argv) {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) return console.log(usage())
  const [command, version, ...rest] = argv
  const option = name => {
    const i = rest.indexOf(name)
    return i < 0 ? null : (rest[i + 1] ?? refuse(`${name} needs a value`))
  }
  if (!SEMVER.test(version ?? ''))
    refuse(`version ${JSON.stringify(version ?? '')}: allowed X.Y.Z, e.g. 0.2.0`)
  if (command === 'prepare') {
    const date = option('--date') ?? new Date().toISOString().slice(0, 10)
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) refuse(`--date ${JSON.stringify(date)}: allowed YYYY-MM-DD`)
    return prepare(version, date)
  }
  if (command === 'tag') return tag(version, rest[0] ?? '', option('--push'))
  refuse(`command ${JSON.stringify(command ?? '')}: allowed prepare or tag`)
}

try {
  main(process.argv.slice(2))
} catch (error) {
  const message = error instanceof Refused ? error.message : error.stderr?.toString().trim() || error.message
  console.error(`release: ${message}`)
  process.exit(1)
}
