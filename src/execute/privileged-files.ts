/**
 * What a container (root inside) may leave in a folder it had writable, that later steps on the host could use
 * to gain privileges (issue 53 C2-17): a setuid or setgid file (`cp /bin/sh x && chmod u+s x` makes a root
 * shell for whoever runs it), a device node, a FIFO or a socket. Docker's bind mounts take no nosuid/nodev
 * option, and such bits on the host's filesystem would not be covered by one anyway: after each process, and
 * once more when the check's folders are removed, the folders are walked (no link followed) and each such entry
 * is removed, or its setuid/setgid bits cleared when it cannot be; what was found is reported.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'

/** Entries looked at per folder: a tree of a million files costs no more than this many lstat calls. */
const MAX_ENTRIES = 200_000
const SET_ID = 0o6000

function kindOf(st: fs.Stats): string | null {
  if (st.isFile() && (st.mode & SET_ID) !== 0)
    return `${(st.mode & 0o4000) !== 0 ? 'setuid' : 'setgid'} file (owner uid ${st.uid})`
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device node'
  if (st.isFIFO()) return 'FIFO'
  if (st.isSocket()) return 'socket'
  return null
}

/** Clears the setuid/setgid bits through a handle of the very file lstat saw (never a link). */
function clearSetId(file: string, seen: fs.Stats): boolean {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch {
    return false
  }
  try {
    const st = fs.fstatSync(fd)
    if (st.ino !== seen.ino || st.dev !== seen.dev) return false
    fs.fchmodSync(fd, st.mode & 0o777 & ~SET_ID)
    return true
  } catch {
    return false
  } finally {
    fs.closeSync(fd)
  }
}

/** Removes (or defuses) every privileged entry under `dir`; one line per entry found, saying what became of it. */
export function removePrivilegedFiles(dir: string): string[] {
  const found: string[] = []
  const stack = [dir]
  let seen = 0
  while (stack.length > 0 && seen < MAX_ENTRIES) {
    const at = stack.pop() as string
    let names: string[]
    try {
      names = fs.readdirSync(at)
    } catch {
      continue
    }
    for (const name of names) {
      if (++seen > MAX_ENTRIES) {
        found.push(`${dir}: more than ${MAX_ENTRIES} entries; the rest not looked at`)
        break
      }
      const p = path.join(at, name)
      let st: fs.Stats
      try {
        st = fs.lstatSync(p)
      } catch {
        continue
      }
      if (st.isDirectory()) {
        stack.push(p)
        continue
      }
      const kind = kindOf(st)
      if (kind === null) continue
      try {
        fs.unlinkSync(p)
        found.push(`${p}: ${kind}, removed`)
      } catch {
        const cleared = st.isFile() && clearSetId(p, st)
        found.push(
          `${p}: ${kind}, ${cleared ? 'its setuid/setgid bits cleared' : 'NOT removed: remove it as root'}`
        )
      }
    }
  }
  return found
}
