/**
 * Issue 53: the git-folder walk behind the container's masks (the CLI's end-to-end view is
 * test/hardening/round-four-container.test.ts). Its bound refuses a tree, never masks a prefix of it; a git
 * folder at a path the engine's flags cannot carry is refused; a `.git` file is masked with the folder it names.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { gitMaskArgs, gitMasks } from '../../src/launchers/engine-cli/git-mask.js'
import { EnvironmentError } from '../../src/util/errors.js'

const made: string[] = []
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-gitmask-'))
  made.push(root)
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    if (rel.endsWith('/')) fs.mkdirSync(path.join(root, rel), { recursive: true })
    else fs.writeFileSync(path.join(root, rel), text)
  }
  return root
}
const GIT = { HEAD: 'ref: refs/heads/main\n', config: '[core]\n', 'objects/': '', 'refs/': '' }
const gitAt = (dir: string): Record<string, string> =>
  Object.fromEntries(Object.entries(GIT).map(([k, v]) => [`${dir}/${k}`, v]))

describe('the git folders a container mount holds', () => {
  it('finds them at any depth, by name or by what they hold, and the folder a .git file names', () => {
    const root = tree({
      ...gitAt('.git'),
      ...gitAt('a/b/c/d/.git'),
      ...gitAt('vendor/store.git'),
      ...gitAt('.git/modules/sub'),
      'wt/.git': `gitdir: ${'../elsewhere/wt-admin'}\n`,
      'elsewhere/wt-admin/HEAD': 'ref: refs/heads/x\n',
      'elsewhere/wt-admin/commondir': '../../.git\n',
      'plain/HEAD': 'not a repository: no config, objects or refs\n'
    })
    const m = gitMasks([{ host: root, container: '/ws', readOnly: true }])
    expect(m.dirs.sort()).toEqual([
      '/ws/.git',
      '/ws/a/b/c/d/.git',
      '/ws/elsewhere/wt-admin',
      '/ws/vendor/store.git'
    ])
    expect(m.files).toEqual(['/ws/wt/.git'])
    expect(gitMaskArgs([{ host: root, container: '/ws', readOnly: true }])).toEqual(
      expect.arrayContaining([
        '--tmpfs',
        '/ws/a/b/c/d/.git:ro,size=4k,mode=0500',
        '-v',
        '/dev/null:/ws/wt/.git:ro'
      ])
    )
  })

  it('a tree beyond the bound is refused, not masked in part', () => {
    const files: Record<string, string> = gitAt('zz/.git')
    for (let i = 0; i < 60; i++) files[`f${i}`] = ''
    const root = tree(files)
    expect(() => gitMasks([{ host: root, container: '/ws', readOnly: true }], 50)).toThrow(
      /holds more than 50 files and folders.*refused rather than hidden in part/
    )
    expect(gitMasks([{ host: root, container: '/ws', readOnly: true }], 100).dirs).toEqual(['/ws/zz/.git'])
  })

  it.each(['a:b', 'a,b', 'a\nb'])('a git folder under %j (no engine flag can name it) is refused', name => {
    const root = tree(gitAt(`${name}/.git`))
    expect(() => gitMasks([{ host: root, container: '/ws', readOnly: true }])).toThrow(EnvironmentError)
  })

  it('a mount that is itself a git folder is refused', () => {
    const root = tree(GIT)
    expect(() => gitMasks([{ host: root, container: '/ws', readOnly: true }])).toThrow(
      /is itself a git folder/
    )
  })
})
