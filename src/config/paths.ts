/**
 * Paths from inputs: the one rule for a workflow's path (safePath), outputs kept in the workspace, and host
 * folders for bind mounts judged by the mount policy. Each throws InputError naming the input.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { InputError } from '../util/errors.js'
import type { Mount } from '../types/index.js'
import { judgeMount, refusalMessage, type MountPurpose } from './mount-policy.js'

function isUnder(p: string, root: string): boolean {
  const rel = path.relative(root, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** The realpath of `p`, or of its longest existing parent with the rest appended (a path not made yet). */
function resolvedPath(p: string): string {
  try {
    return fs.realpathSync.native(p)
  } catch {
    const parent = path.dirname(p)
    return parent === p ? p : path.join(resolvedPath(parent), path.basename(p))
  }
}

/** The first link at or below `base` on the way to `p` (lstat of each component), or null. */
function linkBelow(base: string, p: string): string | null {
  const rel = path.relative(base, p)
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null
  let at = base
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part)
    try {
      if (fs.lstatSync(at).isSymbolicLink()) return at
    } catch {
      return null // not there (yet): nothing below can be a link either
    }
  }
  return null
}

/**
 * The Actions runner's own folders (its temp folder with the command files, the tool cache, the `_work`
 * temp, the runner's install folder, the runner user's home): a workflow path never points into them.
 * Only inside Actions; the CLI's user may name any folder of theirs.
 */
export function runnerFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.GITHUB_ACTIONS !== 'true') return []
  const work = env.RUNNER_WORKSPACE ? path.dirname(env.RUNNER_WORKSPACE) : null
  return [
    env.RUNNER_TEMP,
    env.RUNNER_TOOL_CACHE,
    work && path.join(work, '_temp'),
    work && path.basename(work) === '_work' ? path.dirname(work) : null,
    env.HOME
  ]
    .filter((f): f is string => typeof f === 'string' && path.isAbsolute(f) && f !== '/')
    .map(resolvedPath)
}

/**
 * The one rule for a path from a workflow input (data-path, checkpoint-path, driver-mount, baseline-path,
 * out, config): resolved against the workspace `base`; no link anywhere between the workspace and the path
 * (the checked-out tree is a pull request's: a committed link would redirect the path); outside the
 * workspace, never in or above one of the runner's own folders (runnerFolders). No NUL or newline.
 */
export function safePath(
  input: string,
  raw: string,
  base: string,
  env: NodeJS.ProcessEnv = process.env
): string {
  if (raw.trim() === '' || /[\0\n\r]/.test(raw)) throw new InputError(input, raw, 'a file system path')
  const p = path.resolve(base, raw.trim())
  const link = linkBelow(path.resolve(base), p)
  if (link)
    throw new InputError(
      input,
      raw,
      `a path with no link below the workspace (${link} is a link: the checked-out tree may not redirect it)`
    )
  const resolved = resolvedPath(p)
  if (isUnder(resolved, resolvedPath(path.resolve(base)))) return p
  const runner = runnerFolders(env).find(f => isUnder(resolved, f) || isUnder(f, resolved))
  if (runner)
    throw new InputError(
      input,
      raw,
      `a path outside the runner's own folders (${resolved} is in or holds ${runner})`
    )
  return p
}

/**
 * Output paths stay inside the workspace in the action (no `..` escapes through a config file on a shared
 * runner); the CLI writes wherever its user says (`anywhere`), relative paths still resolving against the cwd.
 */
export function workspacePath(input: string, raw: string, workspace: string, anywhere = false): string {
  const p = safePath(input, raw, workspace)
  if (anywhere) return p
  const rel = path.relative(workspace, p)
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new InputError(input, raw, `a path inside the workspace ${workspace}`)
  return p
}

/** `-v HOST:CONTAINER[:ro]` and `--mount type=bind,source=…` split on these: a mounted path must not hold them. */
export const MOUNT_SPLITTERS = /[:,]/
export const NO_SPLITTERS = 'no `:` or `,` in the path (the container mount would split on them)'

/** A host folder input (`data-path`, `checkpoint-path`) as the one typed `Mount` the rest of the check uses. */
export function hostMount(
  input: string,
  raw: string,
  base: string,
  purpose: MountPurpose,
  container: string,
  readOnly: boolean
): Mount {
  return { host: allowedHostFolder(input, raw, base, purpose), container, readOnly }
}

/** A host folder for a bind mount, judged by the mount policy on its resolved path (docs/security.md). */
export function allowedHostFolder(input: string, raw: string, base: string, purpose: MountPurpose): string {
  const decision = judgeMount({ input, path: safePath(input, raw, base), kind: 'folder', purpose })
  if (!decision.allowed || decision.resolved === null)
    throw new InputError(input, raw, refusalMessage(decision))
  if (MOUNT_SPLITTERS.test(decision.resolved))
    throw new InputError(input, raw, `an existing directory, ${NO_SPLITTERS}`)
  return decision.resolved
}
