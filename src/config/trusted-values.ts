/**
 * Validators for the security-relevant inputs that only the workflow (or the CLI user) may set: the
 * interpreter the native arm runs, the baseline file the check reads and writes, and the token. Each throws
 * an InputError naming the input; none quotes a file's contents, and the token is never quoted at all.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { describeKind } from '../util/safe-fs.js'

/** Longest interpreter name or path (PATH_MAX). */
export const MAX_PYTHON_CHARS = 4096
const PYTHON_ALLOWED = `a python interpreter name or path, e.g. python3 (at most ${MAX_PYTHON_CHARS} characters, not starting with -)`

function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p)
    if (!st.isFile()) return false
    fs.accessSync(p, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The interpreter: a plain name found on PATH, or a path to an executable file. Never an option (`-c`). */
export function validatePython(
  raw: string,
  mustExist: boolean,
  env: NodeJS.ProcessEnv = process.env
): string {
  const v = raw.trim()
  if (v.length > MAX_PYTHON_CHARS) throw new InputError(Inputs.Python, `${v.slice(0, 40)}…`, PYTHON_ALLOWED)
  if (!/^[\w./+-]+$/.test(v) || v.startsWith('-')) throw new InputError(Inputs.Python, raw, PYTHON_ALLOWED)
  if (!mustExist) return v
  if (v.includes('/')) {
    if (!isExecutableFile(v))
      throw new InputError(Inputs.Python, raw, `${PYTHON_ALLOWED}; ${v} is not an executable file`)
    return v
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean)
  if (!dirs.some(d => isExecutableFile(path.join(d, v))))
    throw new InputError(Inputs.Python, raw, `${PYTHON_ALLOWED}; ${v} is not found on PATH`)
  return v
}

/**
 * The baseline file lives in the tree (untrusted): its folder must resolve inside the workspace and the
 * file, when present, must be a regular file and not a link (a link could point at a secret on the runner).
 * Checked when the config loads, so a wrong path fails before any run, naming the input.
 */
export function checkBaselinePath(file: string, raw: string, workspace: string | null): string {
  let st: fs.Stats | null = null
  try {
    st = fs.lstatSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new InputError(Inputs.BaselinePath, raw, 'a readable path')
  }
  if (st && !st.isFile())
    throw new InputError(
      Inputs.BaselinePath,
      raw,
      `a JSON file path inside the workspace; it is ${describeKind(st)}`
    )
  if (workspace === null) return file
  let dir = path.dirname(file)
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir)
  const rel = path.relative(fs.realpathSync.native(workspace), fs.realpathSync.native(dir))
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new InputError(
      Inputs.BaselinePath,
      raw,
      `a path inside the workspace ${workspace} (its folder resolves outside it)`
    )
  return file
}

/** A token is one word of printable ASCII; anything else is refused without being shown. */
export function validateGithubToken(raw: string): string {
  const v = raw.trim()
  if (!/^[\x21-\x7e]+$/.test(v))
    throw new InputError(
      Inputs.GithubToken,
      '(hidden)',
      'a GitHub token: printable characters without spaces or line breaks'
    )
  return v
}
