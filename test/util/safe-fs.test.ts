/** util/safe-fs and util/owned-folder on a real file system: links, FIFOs, devices, stale files. */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { claimFolder } from '../../src/util/owned-folder.js'
import {
  READ_LIMITS,
  UnsafePathError,
  readUntrusted,
  safeAppend,
  safeChmodFolder,
  safeReplace,
  safeWriteStream
} from '../../src/util/safe-fs.js'

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'safe-fs-'))
}

describe('writes never follow a link', () => {
  const ws = tmp()
  const victim = path.join(ws, 'victim.txt')
  fs.writeFileSync(victim, 'precious\n')
  fs.symlinkSync(victim, path.join(ws, 'link.txt'))
  fs.mkdirSync(path.join(ws, 'victim-dir'))
  fs.symlinkSync(path.join(ws, 'victim-dir'), path.join(ws, 'link-dir'))

  it('append refuses a link', () => {
    expect(() => safeAppend(path.join(ws, 'link.txt'), 'x')).toThrow(UnsafePathError)
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n')
  })
  it('stream write refuses a link', () => {
    expect(() => safeWriteStream(path.join(ws, 'link.txt'), fd => fs.writeSync(fd, 'x'))).toThrow(
      /symbolic link/
    )
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n')
  })
  it('replace swaps the link itself, never its target', () => {
    safeReplace(path.join(ws, 'link.txt'), 'new\n')
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(fs.lstatSync(path.join(ws, 'link.txt')).isFile()).toBe(true)
  })
  it('refuses a linked parent folder below the root', () => {
    expect(() => safeAppend(path.join(ws, 'link-dir', 'f'), 'x', { root: ws })).toThrow(/symbolic link/)
    expect(fs.readdirSync(path.join(ws, 'victim-dir'))).toEqual([])
  })
  it('chmod refuses a link', () => {
    expect(() => safeChmodFolder(path.join(ws, 'link-dir'), 0o777)).toThrow(/symbolic link/)
    expect(fs.statSync(path.join(ws, 'victim-dir')).mode & 0o777).not.toBe(0o777)
  })
  it('append refuses a FIFO without blocking', () => {
    const fifo = path.join(ws, 'fifo')
    execFileSync('mkfifo', [fifo])
    expect(() => safeAppend(fifo, 'x')).toThrow()
  })
})

describe('untrusted reads', () => {
  const ws = tmp()
  it('refuses a FIFO and /dev/zero at once (case 6)', () => {
    const fifo = path.join(ws, 'fifo')
    execFileSync('mkfifo', [fifo])
    expect(() => readUntrusted(fifo, { maxBytes: READ_LIMITS.config })).toThrow(/a FIFO, not a regular file/)
    expect(() => readUntrusted('/dev/zero', { maxBytes: READ_LIMITS.config })).toThrow(/a device/)
  })
  it('refuses a file over the cap, and a link when asked', () => {
    const big = path.join(ws, 'big')
    fs.writeFileSync(big, 'x'.repeat(100))
    expect(() => readUntrusted(big, { maxBytes: 10 })).toThrow(/larger than 10 bytes/)
    fs.symlinkSync(big, path.join(ws, 'l'))
    expect(() => readUntrusted(path.join(ws, 'l'), { maxBytes: 1000, noFollow: true })).toThrow(
      /symbolic link/
    )
    expect(readUntrusted(big, { maxBytes: 1000 })).toHaveLength(100)
  })
})

describe('claimFolder', () => {
  const policy = (root: string) => ({
    root,
    removable: (n: string) => ['results.jsonl', 'telemetry.csv', 'paper.csv'].includes(n)
  })
  it('creates a new folder and removes stale files of an earlier run', () => {
    const ws = tmp()
    const out = path.join(ws, 'out')
    claimFolder(out, policy(ws))
    fs.writeFileSync(path.join(out, 'telemetry.csv'), 'stale')
    fs.writeFileSync(path.join(out, 'paper.csv'), 'stale')
    claimFolder(out, policy(ws))
    expect(fs.readdirSync(out)).toEqual([])
  })
  it('refuses a folder holding a link, foreign content, or a link as the folder', () => {
    const ws = tmp()
    const out = path.join(ws, 'out')
    fs.mkdirSync(out)
    fs.symlinkSync('/etc/passwd', path.join(out, 'results.jsonl'))
    expect(() => claimFolder(out, policy(ws))).toThrow(/symbolic link/)
    fs.rmSync(path.join(out, 'results.jsonl'))
    fs.writeFileSync(path.join(out, 'notes.txt'), '')
    expect(() => claimFolder(out, policy(ws))).toThrow(/not something this tool writes/)
    const ws2 = tmp()
    fs.symlinkSync(tmp(), path.join(ws2, 'out'))
    expect(() => claimFolder(path.join(ws2, 'out'), policy(ws2))).toThrow(/symbolic link/)
    fs.symlinkSync(tmp(), path.join(ws2, 'parent'))
    expect(() => claimFolder(path.join(ws2, 'parent', 'out'), policy(ws2))).toThrow(/outside/)
  })
})
