/**
 * Every file the tool writes and every untrusted file it reads goes through here (docs/security.md).
 * Writes never follow a link: the last component is opened with O_NOFOLLOW and checked with fstat, every
 * parent folder below a trusted root is checked with lstat (a real folder, not a link), and a replace is
 * a fresh temp file (O_EXCL) renamed over the target, which replaces a link rather than writing through it.
 * An existing file is written in place (append, stream) only when it has one hard link: a second one may be a
 * file outside the folder. Untrusted reads that refuse a symbolic link refuse a hard-linked file too.
 * Reads of untrusted inputs accept regular files only (a FIFO or /dev/zero would block or never end), are
 * size-capped, and their errors never quote the file's contents.
 */
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = fs.constants

/** A write or read the policy refuses; `code` says which rule. */
export class UnsafePathError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly code: 'link' | 'not-regular' | 'not-folder' | 'too-large' | 'outside'
  ) {
    super(`${file}: ${reason}`)
    this.name = 'UnsafePathError'
  }
}

const HARD_LINKS = (n: number): string => `has ${n} hard links (a hard link can be a file outside the folder)`

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** A short name for what is at a path, for messages. */
export function describeKind(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link'
  if (st.isDirectory()) return 'a folder'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  if (st.isFile()) return 'a regular file'
  return 'not a regular file'
}

/**
 * Checks that every folder from `root` (trusted, e.g. the results folder the tool made) down to `file`'s
 * parent is a real folder, not a link. Missing folders are created one level at a time (never through a link).
 */
export function ensureParents(file: string, root: string): void {
  const rel = path.relative(root, path.dirname(file))
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new UnsafePathError(file, `outside ${root}`, 'outside')
  let dir = root
  for (const part of ['', ...rel.split(path.sep).filter(Boolean)]) {
    dir = part ? path.join(dir, part) : dir
    const st = lstatOrNull(dir)
    if (st === null) {
      fs.mkdirSync(dir)
      continue
    }
    if (st.isSymbolicLink())
      throw new UnsafePathError(dir, 'is a symbolic link; refusing to write through it', 'link')
    if (!st.isDirectory())
      throw new UnsafePathError(dir, `is ${describeKind(st)}, not a folder`, 'not-folder')
  }
}

/** Opens `file` for writing without following a link; it must be a regular file (or new). */
function openNoFollow(file: string, flags: number, mode = 0o644): number {
  let fd: number
  try {
    fd = fs.openSync(file, flags | O_NOFOLLOW | O_NONBLOCK, mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new UnsafePathError(file, 'is a symbolic link; refusing to write through it', 'link')
    throw error
  }
  const st = fs.fstatSync(fd)
  if (!st.isFile()) {
    fs.closeSync(fd)
    throw new UnsafePathError(file, `is ${describeKind(st)}, not a regular file`, 'not-regular')
  }
  // A file with a second hard link may be one outside the folder (the same inode): never written through.
  if (st.nlink > 1) {
    fs.closeSync(fd)
    throw new UnsafePathError(file, `${HARD_LINKS(st.nlink)}; refusing to write through it`, 'link')
  }
  return fd
}

/** Writes every byte (writeSync may write less than asked). */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data
  for (let off = 0; off < buf.length;) off += fs.writeSync(fd, buf, off, buf.length - off)
}

export interface WriteOptions {
  /** Trusted folder the file lies under: every folder between it and the file is checked. Default: the file's folder. */
  root?: string
  mode?: number
}

/** Appends to `file` (created if missing) without following a link. */
export function safeAppend(file: string, data: string | Uint8Array, opts: WriteOptions = {}): void {
  ensureParents(file, opts.root ?? path.dirname(file))
  const fd = openNoFollow(file, O_WRONLY | O_APPEND | O_CREAT, opts.mode)
  try {
    writeAll(fd, data)
  } finally {
    fs.closeSync(fd)
  }
}

/** An append handle for a file written many times (telemetry rows): opened once, no link followed. */
export function openAppend(file: string, opts: WriteOptions = {}): number {
  ensureParents(file, opts.root ?? path.dirname(file))
  return openNoFollow(file, O_WRONLY | O_APPEND | O_CREAT, opts.mode)
}

/** Creates or truncates `file` and writes it, without following a link (streams of data: io shards). */
export function safeWriteStream(file: string, write: (fd: number) => void, opts: WriteOptions = {}): void {
  ensureParents(file, opts.root ?? path.dirname(file))
  // Truncated only once the handle is known to be the folder's own file (O_TRUNC would cut a hard-linked one).
  const fd = openNoFollow(file, O_WRONLY | O_CREAT, opts.mode)
  try {
    fs.ftruncateSync(fd, 0)
    write(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Replaces `file` whole or not at all: a fresh temp file beside it (O_EXCL, no link followed), fsynced,
 * renamed over the target (a link there is replaced, never written through).
 */
export function safeReplace(file: string, data: string | Uint8Array, opts: WriteOptions = {}): void {
  ensureParents(file, opts.root ?? path.dirname(file))
  if (opts.root !== undefined && fs.existsSync(PROC_FD)) {
    replaceUnder(opts.root, file, data, opts.mode)
    return
  }
  const existing = lstatOrNull(file)
  if (existing?.isDirectory()) throw new UnsafePathError(file, 'is a folder, not a file', 'not-regular')
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`)
  const fd = openNoFollow(tmp, O_WRONLY | O_CREAT | O_EXCL, opts.mode)
  try {
    writeAll(fd, data)
    fs.fsyncSync(fd)
  } catch (error) {
    fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw error
  }
  fs.closeSync(fd)
  try {
    fs.renameSync(tmp, file)
  } catch (error) {
    fs.rmSync(tmp, { force: true })
    throw error
  }
}

const PROC_FD = '/proc/self/fd'
/** A name in the folder that `dirFd` is open on (Linux: the descriptor's /proc path), as openat would see it. */
const at = (dirFd: number, name: string): string => `${PROC_FD}/${dirFd}/${name}`

/**
 * The folder holding `file`, walked down from `root` openat-style: each component opened O_NOFOLLOW|O_DIRECTORY
 * under the previous one's descriptor, so one swapped for a link at any time (after ensureParents too) is refused.
 */
function openFolderUnder(root: string, file: string): number {
  const rel = path.relative(root, path.dirname(file))
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new UnsafePathError(file, `outside ${root}`, 'outside')
  let fd = fs.openSync(root, O_RDONLY | fs.constants.O_DIRECTORY)
  let walked = root
  for (const part of rel.split(path.sep).filter(Boolean)) {
    walked = path.join(walked, part)
    try {
      const next = fs.openSync(at(fd, part), O_RDONLY | O_NOFOLLOW | fs.constants.O_DIRECTORY)
      fs.closeSync(fd)
      fd = next
    } catch (error) {
      fs.closeSync(fd)
      if (!['ELOOP', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
      throw new UnsafePathError(
        walked,
        'is not a real folder (a link?); refusing to write through it',
        'link'
      )
    }
  }
  return fd
}

/** safeReplace under a trusted root: temp file created and renamed inside the folder the walk opened. */
function replaceUnder(root: string, file: string, data: string | Uint8Array, mode?: number): void {
  const dirFd = openFolderUnder(root, file)
  try {
    const base = path.basename(file)
    const existing = lstatOrNull(at(dirFd, base))
    if (existing?.isDirectory()) throw new UnsafePathError(file, 'is a folder, not a file', 'not-regular')
    const tmp = `.${base}.${randomBytes(6).toString('hex')}.tmp`
    const fd = openNoFollow(at(dirFd, tmp), O_WRONLY | O_CREAT | O_EXCL, mode)
    try {
      writeAll(fd, data)
      fs.fsyncSync(fd)
    } catch (error) {
      fs.closeSync(fd)
      fs.rmSync(at(dirFd, tmp), { force: true })
      throw error
    }
    fs.closeSync(fd)
    try {
      fs.renameSync(at(dirFd, tmp), at(dirFd, base))
    } catch (error) {
      fs.rmSync(at(dirFd, tmp), { force: true })
      throw error
    }
  } finally {
    fs.closeSync(dirFd)
  }
}

/** chmod on a real folder only (lstat first, then fchmod-like through an O_NOFOLLOW handle). */
export function safeChmodFolder(dir: string, mode: number): void {
  const st = fs.lstatSync(dir)
  if (st.isSymbolicLink())
    throw new UnsafePathError(dir, 'is a symbolic link; refusing to chmod through it', 'link')
  if (!st.isDirectory()) throw new UnsafePathError(dir, `is ${describeKind(st)}, not a folder`, 'not-folder')
  const fd = fs.openSync(dir, O_RDONLY | O_NOFOLLOW | fs.constants.O_DIRECTORY)
  try {
    fs.fchmodSync(fd, mode)
  } finally {
    fs.closeSync(fd)
  }
}

/** Size caps for untrusted inputs (generous for real files, small enough to never exhaust memory). */
export const READ_LIMITS = {
  config: 1024 * 1024,
  event: 25 * 1024 * 1024,
  baseline: 64 * 1024 * 1024,
  results: 512 * 1024 * 1024,
  restore: 64 * 1024
} as const

export interface ReadOptions {
  maxBytes: number
  /**
   * Refuse a link as the last component (tree files: a link could point at a secret on the runner); a file
   * with more than one hard link is refused too (oneLink), unless `oneLink: false`.
   */
  noFollow?: boolean
  /**
   * A folder the file must lie in, judged on the file actually opened (its descriptor's path, /proc/self/fd),
   * so a folder on the way swapped for a link after any earlier check still cannot lead outside.
   */
  within?: string
  /** Refuse a file with more than one hard link (a tree file hard-linked to one outside it). */
  oneLink?: boolean
}

/** The path of what `fd` is open on (Linux: /proc/self/fd), else null. */
function fdPath(fd: number): string | null {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return null
  }
}

function checkOpened(file: string, fd: number, st: fs.Stats, opts: ReadOptions): void {
  if ((opts.oneLink ?? opts.noFollow === true) && st.nlink > 1)
    throw new UnsafePathError(file, `${HARD_LINKS(st.nlink)}; a tree file must have one`, 'link')
  if (opts.within === undefined) return
  const opened = fdPath(fd) ?? fs.realpathSync.native(file)
  const root = fs.realpathSync.native(opts.within)
  const rel = path.relative(root, opened)
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new UnsafePathError(file, `resolves outside ${opts.within} (to ${opened})`, 'outside')
}

/**
 * Reads an untrusted input: a regular file only (opened non-blocking, checked with fstat, so a FIFO or a
 * device is refused without blocking), at most `maxBytes`. Throws UnsafePathError or the fs error;
 * neither ever holds the file's contents.
 */
export function readUntrusted(file: string, opts: ReadOptions): string {
  let fd: number
  try {
    fd = fs.openSync(file, O_RDONLY | O_NONBLOCK | (opts.noFollow ? O_NOFOLLOW : 0))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new UnsafePathError(file, 'is a symbolic link; refusing to read through it', 'link')
    throw error
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile())
      throw new UnsafePathError(file, `is ${describeKind(st)}, not a regular file`, 'not-regular')
    checkOpened(file, fd, st, opts)
    if (st.size > opts.maxBytes)
      throw new UnsafePathError(file, `is larger than ${opts.maxBytes} bytes`, 'too-large')
    const buf = Buffer.alloc(Math.min(st.size, opts.maxBytes) + 1)
    let n = 0
    for (let r = -1; r !== 0 && n < buf.length; n += r) r = fs.readSync(fd, buf, n, buf.length - n, null)
    if (n > opts.maxBytes)
      throw new UnsafePathError(file, `is larger than ${opts.maxBytes} bytes`, 'too-large')
    return buf.subarray(0, n).toString('utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/** JSON.parse whose error never quotes the text (V8's messages include a slice of it). */
export function parseJsonQuiet(
  text: string,
  reviver?: (key: string, value: unknown) => unknown
): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text, reviver) as unknown }
  } catch {
    return { ok: false, error: 'not valid JSON' }
  }
}

/**
 * Checks that an untrusted input is a regular file of at most `maxBytes` without reading it (for inputs read
 * as a stream): opened non-blocking so a FIFO cannot block, fstat'd so /dev/zero is refused.
 */
export function checkRegularFile(file: string, maxBytes: number): void {
  const fd = fs.openSync(file, O_RDONLY | O_NONBLOCK)
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile())
      throw new UnsafePathError(file, `is ${describeKind(st)}, not a regular file`, 'not-regular')
    if (st.size > maxBytes) throw new UnsafePathError(file, `is larger than ${maxBytes} bytes`, 'too-large')
  } finally {
    fs.closeSync(fd)
  }
}
