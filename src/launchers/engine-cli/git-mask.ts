/**
 * Every git folder the container could read through a bind mount, hidden from it. `actions/checkout` persists
 * its credential (`AUTHORIZATION: basic base64(x-access-token:…)`) in the git folder's `config`, wherever the
 * workflow checked out (`path: tools`, `path: a/b`), and a worktree's `.git` is a file that names its git folder
 * (`gitdir: …`). The image must read none of them from the mounted workspace.
 *
 * The whole tree under each mount is walked (one readdir per folder, links never followed: a link inside a
 * bind mount resolves in the container's own file system, where every reachable folder is one of these mounts).
 * The walk is bounded; a tree beyond the bound is refused, never masked in part, since what a partial walk
 * missed is exactly what a PR that adds files would hide. Each mounted folder is walked once per check (a
 * dataset of a million files takes seconds): its git folders are the checkouts the workflow made before the
 * check; only the PR's native commands could move one during the check, and they run as the runner's user,
 * who can read the credential anyway (docs/security.md).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Mount } from '../../types/index.js'
import { EnvironmentError } from '../../util/errors.js'

/** Folder entries looked at under one mount: a large repository has ~100,000, ImageNet's training set 1.3 M. */
export const GIT_WALK_MAX_ENTRIES = 2_000_000
/** How much of a `.git` file is read for its `gitdir:` line (git writes one short line). */
const GITDIR_FILE_MAX_BYTES = 4096
/**
 * What the engine's mount flags cannot carry in a path: `--tmpfs PATH:OPTIONS` and `-v SRC:DST:ro` split on `:`,
 * `--mount` on `,`; a control character would be a different name there.
 */
const UNMOUNTABLE = /[:,\\\p{Cc}]/u

export interface GitMasks {
  /** Container paths of git folders: an empty read-only tmpfs over each. */
  dirs: string[]
  /** Container paths of `.git` files (a worktree's or a submodule's pointer): /dev/null bound over each. */
  files: string[]
}

/** A folder that git would take for a repository: HEAD and config, objects or refs (or a worktree's commondir). */
function looksLikeGitDir(names: ReadonlySet<string>): boolean {
  if (!names.has('HEAD')) return false
  return (names.has('config') && (names.has('objects') || names.has('refs'))) || names.has('commondir')
}

/** The `gitdir:` a `.git` file names, absolute; null where it is no such file. Read bounded, no link followed. */
function gitdirOf(file: string): string | null {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return null
    const buf = Buffer.alloc(GITDIR_FILE_MAX_BYTES)
    const n = fs.readSync(fd, buf, 0, buf.length, 0)
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(buf.subarray(0, n).toString('utf8'))
    return m?.[1] ? path.resolve(path.dirname(file), m[1]) : null
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/** `host` inside `root` (lexically; links are not followed by the walk either) → the relative path, else null. */
function inside(root: string, host: string): string | null {
  const rel = path.relative(root, host)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)) ? rel : null
}

/**
 * The masks for a container with these bind mounts. Throws EnvironmentError when a mount's tree is beyond the
 * walk's bound, or a git folder's path is one the engine's mount flags cannot express.
 */
export function gitMasks(mounts: readonly Mount[], maxEntries = GIT_WALK_MAX_ENTRIES): GitMasks {
  const dirs = new Set<string>()
  const files = new Set<string>()
  for (const m of mounts) {
    const key = `${m.host}\0${m.container}\0${maxEntries}`
    let found = walked.get(key)
    if (found === undefined) {
      found = walkMount(m, maxEntries)
      walked.set(key, found)
    }
    for (const d of found.dirs) dirs.add(d)
    for (const f of found.files) files.add(f)
  }
  // A folder inside another masked one needs no mask of its own (and a tmpfs over the outer one hides it).
  const outer = [...dirs].sort()
  const kept = outer.filter(d => !outer.some(o => o !== d && d.startsWith(`${o}/`)))
  return {
    dirs: kept,
    files: [...files].filter(f => !kept.some(o => f.startsWith(`${o}/`))).sort()
  }
}

/** Each mount's walk, once per process (one check): host and container path. */
const walked = new Map<string, GitMasks>()

function walkMount(m: Mount, maxEntries: number): GitMasks {
  const dirs = new Set<string>()
  const files = new Set<string>()
  let budget = maxEntries
  const add = (set: Set<string>, rel: string): void => {
    const target = path.posix.join(m.container, rel.split(path.sep).join('/'))
    if (UNMOUNTABLE.test(target))
      throw new EnvironmentError(
        `a git folder in the container's mount ${m.host} is at ${JSON.stringify(rel)}, a path the engine's mount flags cannot hide (':', ',', '\\' or a control character); rename it or check out elsewhere`
      )
    set.add(target)
  }
  if (!fs.lstatSync(m.host, { throwIfNoEntry: false })?.isDirectory()) return { dirs: [], files: [] }
  // A folder a `.git` file points at, inside this mount: masked as a git folder whatever its contents.
  const pointed = new Set<string>()
  const stack: string[] = ['']
  while (stack.length > 0) {
    const rel = stack.pop() ?? ''
    const dir = path.join(m.host, rel)
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      // The runner cannot read it; the container (maybe another user) sees an empty folder instead.
      if (rel !== '') add(dirs, rel)
      continue
    }
    if (rel === '' && looksLikeGitDir(new Set(entries.map(e => e.name))))
      throw new EnvironmentError(
        `the container's mount ${m.host} is itself a git folder (a bare repository or a checkout's .git); mount the working tree, not its git folder`
      )
    budget -= entries.length
    if (budget < 0)
      throw new EnvironmentError(
        `the container's mount ${m.host} holds more than ${maxEntries.toLocaleString('en-US')} files and folders; every one is looked at for a git folder to hide from the image, and a tree this large is refused rather than hidden in part: mount a smaller folder (a dataset's own folder, a workspace without vendored trees)`
      )
    if (rel !== '' && (looksLikeGitDir(new Set(entries.map(e => e.name))) || pointed.has(rel))) {
      add(dirs, rel)
      continue
    }
    for (const e of entries) {
      const child = rel === '' ? e.name : path.join(rel, e.name)
      if (e.name === '.git' && e.isDirectory()) add(dirs, child)
      else if (e.name === '.git' && e.isFile()) {
        add(files, child)
        const target = gitdirOf(path.join(m.host, child))
        const at = target === null ? null : inside(m.host, target)
        if (at !== null && at !== '') {
          pointed.add(at)
          // Already walked (it sorted before this file): masked here; else when the walk reaches it.
          if (fs.lstatSync(target as string, { throwIfNoEntry: false })?.isDirectory()) add(dirs, at)
        }
      } else if (e.isDirectory()) stack.push(child)
    }
  }
  return { dirs: [...dirs], files: [...files] }
}

/**
 * The engine flags: `--tmpfs DIR:ro` (an empty read-only tmpfs hides the folder, nothing else of the mount
 * changes) and `-v /dev/null:FILE:ro` over each `.git` file.
 */
export function gitMaskArgs(mounts: readonly Mount[]): string[] {
  const { dirs, files } = gitMasks(mounts)
  return [
    ...dirs.flatMap(d => ['--tmpfs', `${d}:ro,size=4k,mode=0500`]),
    ...files.flatMap(f => ['-v', `/dev/null:${f}:ro`])
  ]
}
