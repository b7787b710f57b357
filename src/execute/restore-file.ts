/**
 * The power restore file says which limits to put back after a killed sweep, so it is executed as root:
 * it must never come from the tree (docs/security.md, "Power limits"). It lives in a state folder of the
 * tool's own outside the workspace (mode 700), carries an HMAC keyed by a secret in that folder (mode 600,
 * made by the tool), and is acted on only when the MAC matches, the schema is exact, every GPU UUID is one
 * present now, and every limit lies within that GPU's power.min_limit–power.max_limit.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { READ_LIMITS, UnsafePathError, parseJsonQuiet, readUntrusted, safeReplace } from '../util/safe-fs.js'

export const RESTORE_SCHEMA = 'gpu-overhead/power-restore@2'
const KEY_FILE = 'restore.key'
const KEY_BYTES = 32
/** A GPU UUID as nvidia-smi prints it; nothing else ever reaches `nvidia-smi -i`. */
export const GPU_UUID = /^GPU-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/

export interface SavedLimit {
  gpu: number
  uuid: string
  limit_w: number
}

/** A GPU present now, with the range its power limit may take (nvidia-smi). */
export interface PresentGpu {
  uuid: string
  min_w: number
  max_w: number
}

/** The tool's own state folder: GPU_OVERHEAD_STATE_DIR, else $XDG_STATE_HOME/gpu-overhead, else ~/.local/state/gpu-overhead. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GPU_OVERHEAD_STATE_DIR) return path.resolve(env.GPU_OVERHEAD_STATE_DIR)
  const base = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state')
  return path.join(base, 'gpu-overhead')
}

/** Where a sweep over these GPUs keeps its restore file (one file per GPU set). */
export function restoreFileFor(uuids: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const tag = createHmac('sha256', 'gpu-set')
    .update([...uuids].sort().join(','))
    .digest('hex')
    .slice(0, 16)
  return path.join(stateDir(env), `power-restore-${tag}.json`)
}

/**
 * Why `dir` is not a folder this tool may trust (null when it is): it must be a real folder (not a link),
 * owned by the user the tool runs as, mode 0700. Anyone else could have put a key and a signed file there.
 */
export function privateFolderProblem(dir: string): string | null {
  let st: fs.Stats
  try {
    st = fs.lstatSync(dir)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'cannot be examined'
  }
  if (!st.isDirectory()) return 'is not a real folder'
  const uid = process.getuid?.()
  if (uid !== undefined && st.uid !== uid) return `belongs to uid ${st.uid}, not to this user (uid ${uid})`
  if ((st.mode & 0o077) !== 0) return `has mode ${(st.mode & 0o777).toString(8)}, not 700`
  return null
}

/** Creates the folder (mode 700) or checks it: a real folder, ours, mode 700. */
function ensurePrivateFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const why = privateFolderProblem(dir)
  if (why) throw new UnsafePathError(dir, why, 'outside')
}

/** Why the state folder is ignored (null: it is the tool's own, or there is none): for the post step's warning. */
export function stateDirProblem(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = stateDir(env)
  const why = privateFolderProblem(dir)
  return why
    ? `the power restore folder ${dir} ${why}; ignored (it must be the runner user's own, mode 700)`
    : null
}

/** The HMAC key of `dir`, made on first use (O_EXCL, mode 600); null when `create` is false and there is none. */
function key(dir: string, create: boolean): Buffer | null {
  const file = path.join(dir, KEY_FILE)
  try {
    const text = readUntrusted(file, { maxBytes: 1024, noFollow: true })
    const k = Buffer.from(text.trim(), 'hex')
    return k.length === KEY_BYTES ? k : null
  } catch (error) {
    if (!create || (error as NodeJS.ErrnoException).code !== 'ENOENT') return null
  }
  const k = randomBytes(KEY_BYTES)
  const fd = fs.openSync(
    file,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o600
  )
  try {
    fs.writeSync(fd, k.toString('hex'))
  } finally {
    fs.closeSync(fd)
  }
  return k
}

function mac(k: Buffer, body: string): string {
  return createHmac('sha256', k).update(body).digest('hex')
}

/** Writes the restore file (HMAC'd) into the private state folder. Throws on failure. */
export function writeRestoreFile(file: string, limits: readonly SavedLimit[]): void {
  const dir = path.dirname(file)
  ensurePrivateFolder(dir)
  const k = key(dir, true)
  if (!k) throw new UnsafePathError(path.join(dir, KEY_FILE), 'is not a key this tool wrote', 'not-regular')
  for (const l of limits)
    if (!GPU_UUID.test(l.uuid) || !Number.isFinite(l.limit_w))
      throw new Error(`GPU ${l.gpu} has no UUID to restore it by`)
  const body = JSON.stringify({
    schema: RESTORE_SCHEMA,
    written_at: new Date().toISOString(),
    pid: process.pid,
    limits: limits.map(l => ({ gpu: l.gpu, uuid: l.uuid, limit_w: l.limit_w }))
  })
  safeReplace(file, `${JSON.stringify({ body, mac: mac(k, body) })}\n`, { mode: 0o600 })
}

export type RestoreRead =
  | { status: 'missing' }
  | { status: 'refused'; reason: string }
  | { status: 'ok'; limits: SavedLimit[]; pid: number | null }

function isLimit(v: unknown): v is SavedLimit {
  const l = v as SavedLimit
  return (
    typeof l === 'object' &&
    l !== null &&
    Number.isInteger(l.gpu) &&
    l.gpu >= 0 &&
    l.gpu < 1024 &&
    typeof l.uuid === 'string' &&
    GPU_UUID.test(l.uuid) &&
    typeof l.limit_w === 'number' &&
    Number.isFinite(l.limit_w)
  )
}

/**
 * Reads and verifies a restore file against the GPUs present now. Never throws; a refusal says why in
 * one clause and never quotes the file.
 */
export function readRestoreFile(file: string, present: readonly PresentGpu[]): RestoreRead {
  const refused = (reason: string): RestoreRead => ({ status: 'refused', reason })
  let text: string
  try {
    text = readUntrusted(file, { maxBytes: READ_LIMITS.restore, noFollow: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' }
    return refused(error instanceof UnsafePathError ? error.reason : 'unreadable')
  }
  const folder = privateFolderProblem(path.dirname(file))
  if (folder) return refused(`its folder ${folder}`)
  const k = key(path.dirname(file), false)
  if (!k) return refused('no key of this tool beside it (it was not written by gpu-overhead)')
  const outer = parseJsonQuiet(text)
  const o = outer.ok ? (outer.value as { body?: unknown; mac?: unknown }) : null
  if (!o || typeof o.body !== 'string' || typeof o.mac !== 'string')
    return refused('not a restore file of this tool')
  const want = Buffer.from(mac(k, o.body), 'hex')
  const got = Buffer.from(o.mac, 'hex')
  if (got.length !== want.length || !timingSafeEqual(got, want))
    return refused('its signature does not match (not written by this tool, or changed)')
  const inner = parseJsonQuiet(o.body)
  const b = inner.ok ? (inner.value as { schema?: unknown; limits?: unknown; pid?: unknown }) : null
  if (!b || b.schema !== RESTORE_SCHEMA || !Array.isArray(b.limits) || !b.limits.every(isLimit))
    return refused(`not a ${RESTORE_SCHEMA} file`)
  for (const l of b.limits) {
    const gpu = present.find(g => g.uuid.toLowerCase() === l.uuid.toLowerCase())
    if (!gpu) return refused(`GPU ${l.uuid} is not present on this machine`)
    if (l.limit_w < gpu.min_w || l.limit_w > gpu.max_w)
      return refused(`${l.limit_w} W is outside GPU ${l.uuid}'s range ${gpu.min_w}–${gpu.max_w} W`)
  }
  return { status: 'ok', limits: b.limits, pid: Number.isInteger(b.pid) ? (b.pid as number) : null }
}

/** Restore files in the state folder (a killed check's leftovers), bounded. */
export function leftoverRestoreFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = stateDir(env)
  // A folder someone else made or can write is never read (stateDirProblem says why).
  if (privateFolderProblem(dir)) return []
  try {
    return fs
      .readdirSync(dir)
      .filter(n => /^power-restore-[0-9a-f]{16}\.json$/.test(n))
      .slice(0, 64)
      .map(n => path.join(dir, n))
  } catch {
    return []
  }
}

/** True while the process that wrote a restore file still runs (its sweep is in progress: leave it alone). */
export function writerAlive(pid: number | null): boolean {
  if (pid === null || pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
