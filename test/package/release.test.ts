/**
 * The release workflow's steps (scripts/release.mjs), tried for real on a scratch clone of this repository
 * with a bare clone as its `origin`: prepare writes the version and moves CHANGELOG's hand-written Unreleased
 * section under it (refused when empty), tag makes the immutable vX.Y.Z and moves the major tag, pushed; a second release moves the major tag on and leaves
 * the first release's tag where it was. Versions 9.x: far from any real release, so the clone never has them.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { describeWhere } from '../helpers/requires.js'

const SCRIPT = path.resolve('scripts/release.mjs')
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'release-'))
const origin = path.join(ws, 'origin.git')
const work = path.join(ws, 'work')
// The scratch clone is of this checkout: without git, or from an unpacked archive, there is nothing to clone.
const thisHead = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' })
const checkout = {
  ok: thisHead.status === 0,
  why: thisHead.error ? 'git is not installed' : 'this tree is not a git checkout',
  hostLimit: false
}
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Release Test',
  GIT_AUTHOR_EMAIL: 'release-test@example.invalid',
  GIT_COMMITTER_NAME: 'Release Test',
  GIT_COMMITTER_EMAIL: 'release-test@example.invalid'
}

function git(...args: string[]): string {
  const r = spawnSync('git', args, { cwd: work, encoding: 'utf8', env, timeout: 60_000 })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.trim()
}
const release = (...args: string[]) =>
  spawnSync('node', [SCRIPT, ...args], { cwd: work, encoding: 'utf8', env, timeout: 120_000 })
const remoteTags = (): Record<string, string> =>
  Object.fromEntries(
    git('ls-remote', '--tags', 'origin')
      .split('\n')
      .filter(Boolean)
      .map(l => l.split('\t').reverse() as [string, string])
  )

beforeAll(() => {
  if (!checkout.ok) return
  spawnSync('git', ['clone', '--quiet', '--bare', path.resolve('.'), origin], { timeout: 120_000 })
  // The default branch is main whatever this checkout has out (a topic branch, a detached CI checkout): the
  // scratch origin's HEAD is this commit as main.
  const head = spawnSync('git', ['--git-dir', origin, 'rev-parse', 'HEAD'], {
    encoding: 'utf8'
  }).stdout.trim()
  spawnSync('git', ['--git-dir', origin, 'update-ref', 'refs/heads/main', head])
  spawnSync('git', ['--git-dir', origin, 'symbolic-ref', 'HEAD', 'refs/heads/main'])
  spawnSync('git', ['clone', '--quiet', origin, work], { timeout: 120_000 })
  // The tags a real clone may have are not this test's business.
  for (const t of git('tag', '--list').split('\n').filter(Boolean)) git('tag', '-d', t)
  // An annotated tag is listed twice (`refs/tags/v1`, and its commit as `refs/tags/v1^{}`): delete the tag once.
  for (const t of Object.keys(remoteTags()).filter(t => !t.endsWith('^{}')))
    git('push', '--quiet', 'origin', `:${t}`)
}, 240_000)

afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

const read = (file: string) => fs.readFileSync(path.join(work, file), 'utf8')

describeWhere(
  checkout,
  'test/package/release.test.ts',
  'git and a git checkout'
)('scripts/release.mjs on a scratch clone', () => {
  it('--help (or no argument) prints both commands as docs/development.md runs them, exit 0', () => {
    for (const args of [['--help'], []]) {
      const r = release(...args)
      expect(r.status).toBe(0)
      expect(r.stdout).toContain('node scripts/release.mjs prepare X.Y.Z [--date YYYY-MM-DD]')
      expect(r.stdout).toContain('node scripts/release.mjs tag X.Y.Z vN [--push REMOTE]')
    }
  })

  it('prepare refuses an empty Unreleased section before writing anything', () => {
    // What a release says is written by hand as changes land, never the commit subjects.
    const log = read('CHANGELOG.md').replace(/^## Unreleased\n[\s\S]*?(?=^## )/m, '## Unreleased\n\n')
    fs.writeFileSync(path.join(work, 'CHANGELOG.md'), log)
    // (--allow-empty: the checkout's own Unreleased may be empty already)
    git('commit', '--quiet', '--allow-empty', '-am', 'A commit subject is not a release note')
    const r = release('prepare', '9.8.7', '--date', '2031-02-03')
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^release: CHANGELOG\.md's "## Unreleased" section is empty: write what changed/)
    expect(git('status', '--porcelain')).toBe('')
    fs.writeFileSync(path.join(work, 'CHANGELOG.md'), log.replace('## Unreleased\n', ''))
    expect(release('prepare', '9.8.7').stderr).toMatch(/has no "## Unreleased" section/)
    git('checkout', '--', 'CHANGELOG.md')
  })

  it('prepare: version in package.json, lock and src/util/version.ts; the Unreleased section under it', () => {
    const log0 = read('CHANGELOG.md').replace(
      '## Unreleased\n\n',
      '## Unreleased\n\n- A change a user should read about\n  (two lines)\n\n'
    )
    fs.writeFileSync(path.join(work, 'CHANGELOG.md'), log0)
    const r = release('prepare', '9.8.7', '--date', '2031-02-03')
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(read('package.json')).version).toBe('9.8.7')
    expect(JSON.parse(read('package-lock.json')).version).toBe('9.8.7')
    expect(read('src/util/version.ts')).toContain("export const VERSION = '9.8.7'")
    const log = read('CHANGELOG.md')
    expect(log).toMatch(
      /^## Unreleased\n\n## v9\.8\.7 — 2031-02-03\n\n- A change a user should read about\n {2}\(two lines\)\n\n## v/m
    )
    expect(log).not.toContain('A commit subject is not a release note')
    expect(log.match(/^## Unreleased/gm)).toHaveLength(1)
    // A second prepare keeps the entry as it is (a hand-edited entry wins).
    fs.writeFileSync(path.join(work, 'CHANGELOG.md'), log.replace('A change a user', 'An edited line'))
    expect(release('prepare', '9.8.7').status).toBe(0)
    expect(read('CHANGELOG.md')).toContain('- An edited line should read about')
  })

  it('tag refuses an uncommitted tree, then tags v9.8.7, moves v9 to it and pushes both', () => {
    const dirty = release('tag', '9.8.7', 'v9', '--push', 'origin')
    expect(dirty.status).toBe(1)
    expect(dirty.stderr).toMatch(/^release: the work tree has uncommitted changes/)
    git('add', '--all')
    git('commit', '--quiet', '-m', 'Release v9.8.7')
    // A local commit the remote has not got is no release (issue 53 C19).
    const unpushed = release('tag', '9.8.7', 'v9', '--push', 'origin')
    expect([unpushed.status, unpushed.stderr]).toEqual([
      1,
      expect.stringMatching(
        /^release: HEAD \w{12} is not origin's main \(\w{12}\): push the release commit first\n$/
      )
    ])
    expect(remoteTags()['refs/tags/v9']).toBeUndefined()
    git('push', '--quiet', 'origin', 'main')
    const r = release('tag', '9.8.7', 'v9', '--push', 'origin')
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const head = git('rev-parse', 'HEAD')
    const tags = remoteTags()
    expect(tags['refs/tags/v9.8.7^{}']).toBe(head) // annotated: peeled to the release commit
    expect(tags['refs/tags/v9']).toBe(head)
    expect(git('cat-file', '-t', 'v9.8.7')).toBe('tag')
  })

  it('a release tag never moves; the next release moves only the major tag', () => {
    const first = git('rev-parse', 'HEAD')
    git('commit', '--quiet', '--allow-empty', '-m', 'Another change')
    expect(release('tag', '9.8.7', 'v9', '--push', 'origin').stderr).toMatch(/tag v9\.8\.7 exists already/)
    fs.writeFileSync(
      path.join(work, 'CHANGELOG.md'),
      read('CHANGELOG.md').replace('## Unreleased\n\n', '## Unreleased\n\n- Another change\n\n')
    )
    expect(release('prepare', '9.8.8', '--date', '2031-03-04').status).toBe(0)
    // Only what was written since v9.8.7 makes the new entry.
    expect(read('CHANGELOG.md')).toMatch(
      /^## Unreleased\n\n## v9\.8\.8 — 2031-03-04\n\n- Another change\n\n## v9\.8\.7/m
    )
    git('add', '--all')
    git('commit', '--quiet', '-m', 'Release v9.8.8')
    git('push', '--quiet', 'origin', 'main')
    expect(release('tag', '9.8.8', 'v9', '--push', 'origin').status).toBe(0)
    const tags = remoteTags()
    expect(tags['refs/tags/v9.8.7^{}']).toBe(first)
    expect(tags['refs/tags/v9.8.8^{}']).toBe(git('rev-parse', 'HEAD'))
    expect(tags['refs/tags/v9']).toBe(git('rev-parse', 'HEAD'))
  })

  it('refuses, in one line, what is not a release', () => {
    const cases: [string[], RegExp][] = [
      [
        ['tag', '9.8.9', 'v9'],
        /^release: package\.json has version 9\.8\.8, not 9\.8\.9: run prepare first\n$/
      ],
      [['tag', '9.8.8', 'latest'], /^release: moving tag "latest": allowed vN, e.g\. v1\n$/],
      [['prepare', '1.2'], /^release: version "1\.2": allowed X\.Y\.Z, e\.g\. 0\.2\.0\n$/],
      [['publish', '1.2.3'], /^release: command "publish": allowed prepare or tag\n$/]
    ]
    for (const [args, message] of cases) {
      const r = release(...args)
      expect([r.status, r.stderr]).toEqual([1, expect.stringMatching(message)])
    }
  })

  it('refuses, in one line each, what would move the major tag wrongly or run an option (issue 41)', () => {
    // The tree is at 9.8.8, released and pushed. What each case needs is written, tried, and put back.
    const pkg = read('package.json')
    const setVersion = (v: string): void =>
      fs.writeFileSync(
        path.join(work, 'package.json'),
        pkg.replace('"version": "9.8.8"', `"version": "${v}"`)
      )
    const marker = path.join(ws, 'upload-pack-ran')
    const cases: [string[], RegExp][] = [
      // onto a new major version
      [
        ['tag', '10.0.0', 'v9'],
        /^release: moving tag v9 for 10\.0\.0: allowed v10 \(a new major version starts its own tag; v9 stays where it is\)\n$/
      ],
      [['tag', '2.0.0', 'v1'], /^release: moving tag v1 for 2\.0\.0: allowed v2 /],
      // backwards
      [['tag', '9.8.1', 'v9'], /^release: v9\.8\.8 is released already: v9 never moves back to 9\.8\.1\n$/],
      // an option as the remote
      [
        ['tag', '9.8.9', 'v9', '--push', `--upload-pack=touch ${marker}`],
        /^release: --push "--upload-pack=touch .*": allowed the name of a configured remote \(git remote\)\n$/
      ],
      [
        ['tag', '9.8.9', 'v9', '--push', 'elsewhere'],
        /^release: --push "elsewhere": allowed the name of a configured remote/
      ]
    ]
    for (const [args, message] of cases) {
      const r = release(...args)
      expect([args, r.status, r.stderr]).toEqual([args, 1, expect.stringMatching(message)])
    }
    expect(fs.existsSync(marker)).toBe(false)

    // A version only a comment holds: package.json and CHANGELOG say 9.8.9, the constant still 9.8.8.
    setVersion('9.8.9')
    const versionTs = read('src/util/version.ts')
    fs.writeFileSync(path.join(work, 'src/util/version.ts'), `// next: '9.8.9'\n${versionTs}`)
    const log = read('CHANGELOG.md')
    fs.writeFileSync(
      path.join(work, 'CHANGELOG.md'),
      log.replace('## v9.8.8', '## v9.8.9 — 2031-04-05\n\n- x\n\n## v9.8.8')
    )
    git('commit', '--quiet', '-am', 'Release v9.8.9 (constant not set)')
    const comment = release('tag', '9.8.9', 'v9', '--push', 'origin')
    expect([comment.status, comment.stderr]).toEqual([
      1,
      'release: src/util/version.ts does not say 9.8.9: run prepare first\n'
    ])
    // Only an HTML comment holds the CHANGELOG entry.
    fs.writeFileSync(path.join(work, 'src/util/version.ts'), versionTs.replace("'9.8.8'", "'9.8.9'"))
    fs.writeFileSync(
      path.join(work, 'CHANGELOG.md'),
      log.replace('## v9.8.8', '<!--\n## v9.8.9\n-->\n\n## v9.8.8')
    )
    git('commit', '--quiet', '-am', 'Release v9.8.9 (entry in a comment)')
    const entry = release('tag', '9.8.9', 'v9', '--push', 'origin')
    expect([entry.status, entry.stderr]).toEqual([
      1,
      'release: CHANGELOG.md has no "## v9.8.9" entry: run prepare first\n'
    ])

    // From a branch that is not the default one.
    fs.writeFileSync(
      path.join(work, 'CHANGELOG.md'),
      log.replace('## v9.8.8', '## v9.8.9 — 2031-04-05\n\n- x\n\n## v9.8.8')
    )
    git('commit', '--quiet', '-am', 'Release v9.8.9')
    git('checkout', '--quiet', '-b', 'topic')
    const branch = release('tag', '9.8.9', 'v9', '--push', 'origin')
    expect([branch.status, branch.stderr]).toEqual([
      1,
      'release: HEAD is on branch topic: a release is tagged on the default branch main\n'
    ])
    git('checkout', '--quiet', '--detach')
    expect(release('tag', '9.8.9', 'v9').stderr).toMatch(
      /^release: HEAD is detached: a release is tagged on the default branch main\n$/
    )
    git('checkout', '--quiet', 'main')
    // Nothing above moved a tag; from main, pushed, the same release goes through.
    git('push', '--quiet', 'origin', 'main')
    expect(remoteTags()['refs/tags/v9']).not.toBe(git('rev-parse', 'HEAD'))
    const ok = release('tag', '9.8.9', 'v9', '--push', 'origin')
    expect([ok.status, ok.stderr]).toEqual([0, ''])
    expect(remoteTags()['refs/tags/v9']).toBe(git('rev-parse', 'HEAD'))
  })

  it('refuses what only looks like a release (issue 53 C19-03..09)', () => {
    // The tree is at 9.8.9, released and pushed. What each case needs is written, tried, and put back.
    const pkg = read('package.json')
    const versionTs = read('src/util/version.ts')
    const log = read('CHANGELOG.md')
    const put = (file: string, text: string): void => fs.writeFileSync(path.join(work, file), text)
    const tagged = (): ReturnType<typeof release> => release('tag', '9.8.10', 'v9', '--push', 'origin')
    const entry = '## v9.8.10 — 2031-05-06\n\n- y\n\n'
    put('package.json', pkg.replace('"version": "9.8.9"', '"version": "9.8.10"'))
    put('CHANGELOG.md', log.replace('## v9.8.9', `${entry}## v9.8.9`))
    // The constant only in a block comment (the real one still 9.8.9).
    put('src/util/version.ts', `/*\nexport const VERSION = '9.8.10'\n*/\n${versionTs}`)
    git('commit', '--quiet', '-am', 'block comment')
    expect(tagged().stderr).toBe('release: src/util/version.ts does not say 9.8.10: run prepare first\n')
    put('src/util/version.ts', versionTs.replace("'9.8.9'", "'9.8.10'"))
    // The CHANGELOG heading only in a code fence, or in an HTML comment that holds a fence.
    for (const hidden of [
      `\`\`\`md\n${entry}\`\`\`\n\n`,
      `~~~~\n${entry}~~~~\n\n`,
      `<!--\n\`\`\`\n${entry}-->\n\n`
    ]) {
      put('CHANGELOG.md', log.replace('## v9.8.9', `${hidden}## v9.8.9`))
      git('commit', '--quiet', '-am', 'hidden entry')
      expect(tagged().stderr).toBe('release: CHANGELOG.md has no "## v9.8.10" entry: run prepare first\n')
    }
    // A package.json version that is no canonical X.Y.Z (equal to one as JS numbers).
    put('CHANGELOG.md', log.replace('## v9.8.9', `${entry}## v9.8.9`))
    for (const v of ['09.8.10', '9.8.10.0', '9.08.10']) {
      put('package.json', pkg.replace('"version": "9.8.9"', `"version": "${v}"`))
      git('commit', '--quiet', '-am', `version ${v}`)
      expect(tagged().stderr).toMatch(/^release: package\.json has version "[\d.]+", not a canonical X\.Y\.Z/)
    }
    for (const v of ['1.0', '1.00', '01.0.0'])
      expect(release('tag', v, 'v1').stderr).toMatch(/^release: version "[\d.]+": allowed X\.Y\.Z/)
    // Versions past 2^53 that are one JS number: still two versions, and v9 never moves back.
    git('tag', 'v9.9007199254740993.0')
    expect(release('tag', '9.9007199254740992.0', 'v9').stderr).toBe(
      'release: v9.9007199254740993.0 is released already: v9 never moves back to 9.9007199254740992.0\n'
    )
    git('tag', '-d', 'v9.9007199254740993.0')
    put('package.json', pkg.replace('"version": "9.8.9"', '"version": "9.8.10"'))
    git('commit', '--quiet', '-am', 'Release v9.8.10')
    // An unpushed commit; pushed, the release goes through.
    expect(tagged().stderr).toMatch(/is not origin's main .*: push the release commit first\n$/)
    git('push', '--quiet', 'origin', 'main')
    const ok = tagged()
    expect([ok.status, ok.stderr]).toEqual([0, ''])
    expect(tagged().stderr).toMatch(/tag v9\.8\.10 exists already/)
  })

  it('prepare refuses an Unreleased section with nothing for users in it (issue 53 C19)', () => {
    const log = read('CHANGELOG.md')
    for (const body of [
      '<!-- write here -->',
      '### Added\n\n-\n',
      '```\n```',
      '<!--\n- not yet\n-->\n### Fixed'
    ]) {
      fs.writeFileSync(
        path.join(work, 'CHANGELOG.md'),
        log.replace('## Unreleased\n', `## Unreleased\n\n${body}\n`)
      )
      const r = release('prepare', '9.8.11', '--date', '2031-06-07')
      expect([body, r.status, r.stderr]).toEqual([
        body,
        1,
        expect.stringMatching(/"## Unreleased" section is empty/)
      ])
    }
    // "## Unreleased" only in a code fence is no section.
    fs.writeFileSync(
      path.join(work, 'CHANGELOG.md'),
      log.replace('## Unreleased\n', '```\n## Unreleased\n- x\n```\n')
    )
    expect(release('prepare', '9.8.11').stderr).toMatch(/has no "## Unreleased" section/)
    git('checkout', '--', '.')
  })
})
