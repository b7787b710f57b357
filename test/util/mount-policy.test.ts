/** config/mount-policy on the real file system: the decision is made on the resolved path. */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { judgeMount } from '../../src/config/mount-policy.js'

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'mount-policy-'))
const folder = (p: string) => judgeMount({ input: 'data-path', path: p, kind: 'folder', purpose: 'data' })

describe('judgeMount', () => {
  it('allows a plain folder and shows the resolved path', () => {
    const d = fs.mkdtempSync(path.join(ws, 'data-'))
    const r = folder(d)
    expect(r.allowed).toBe(true)
    expect(r.resolved).toBe(fs.realpathSync(d))
  })
  it.each([
    '/',
    '/etc',
    '/var/run',
    '/run',
    '/var',
    '/usr',
    '/proc',
    '/dev',
    '/sys',
    '/boot',
    '/root',
    '/var/lib/docker'
  ])('refuses %s', p => {
    if (!fs.existsSync(p)) return
    expect(folder(p).allowed).toBe(false)
  })
  it('refuses a link to / or to /var/run (judged on the resolved path)', () => {
    fs.symlinkSync('/', path.join(ws, 'root-link'))
    fs.symlinkSync('/var/run', path.join(ws, 'run-link'))
    expect(folder(path.join(ws, 'root-link'))).toMatchObject({ allowed: false, resolved: '/' })
    expect(folder(path.join(ws, 'run-link')).allowed).toBe(false)
  })
  it('refuses a folder holding a socket or a FIFO, and a socket itself', async () => {
    const d = fs.mkdtempSync(path.join(ws, 'sock-'))
    fs.mkdirSync(path.join(d, 'sub'))
    const sock = path.join(d, 'sub', 'api.sock')
    const server = net.createServer()
    await new Promise<void>(r => server.listen(sock, r))
    try {
      expect(folder(d).reason).toMatch(/holds .*api.sock \(a socket\)/)
      expect(
        judgeMount({ input: 'driver-mount', path: sock, kind: 'folder', purpose: 'driver' }).reason
      ).toMatch(/is a socket/)
    } finally {
      server.close()
    }
    const f = fs.mkdtempSync(path.join(ws, 'fifo-'))
    execFileSync('mkfifo', [path.join(f, 'p')])
    expect(folder(f).allowed).toBe(false)
  })
  it('refuses the Docker data root given by docker info', () => {
    const d = fs.mkdtempSync(path.join(ws, 'docker-root-'))
    expect(
      judgeMount({ input: 'data-path', path: d, kind: 'folder', purpose: 'data', extraForbidden: [d] })
        .allowed
    ).toBe(false)
  })
  it('allows driver libraries under /usr/lib for driver-mount only', () => {
    const lib = fs.existsSync('/usr/lib/x86_64-linux-gnu') ? '/usr/lib/x86_64-linux-gnu' : '/usr/lib'
    expect(judgeMount({ input: 'driver-mount', path: lib, kind: 'folder', purpose: 'driver' }).allowed).toBe(
      true
    )
    expect(folder(lib).allowed).toBe(false)
    expect(
      judgeMount({ input: 'driver-mount', path: '/etc', kind: 'folder', purpose: 'driver' }).allowed
    ).toBe(false)
  })
})
