/**
 * The bounded runner (util/exec) and the tree killer (util/process-tree), on real processes: a hung
 * program is killed at its limit, and so is a descendant that escaped the process group with setsid.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { EXIT_NOT_FOUND, EXIT_TIMED_OUT, execCapture } from '../../src/util/exec.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exec-'))

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

describe('execCapture', () => {
  it('captures output and the exit code, argv passed literally', async () => {
    const r = await execCapture('sh', ['-c', 'echo "$1"; exit 3', 'sh', '$(id); `x`'])
    expect(r.exitCode).toBe(3)
    expect(r.stdout).toBe('$(id); `x`\n')
  })

  it('says 127 for a program that does not exist', async () => {
    const r = await execCapture('/no/such/program', [])
    expect(r.exitCode).toBe(EXIT_NOT_FOUND)
  })

  it('kills a hung program at its limit, with a setsid-escaped descendant (case 6)', async () => {
    const pids = path.join(dir, 'pids')
    // The child starts a daemon in a new session (outside its process group), records both PIDs, hangs.
    const script = `setsid sh -c 'echo $$ >> ${pids}; exec sleep 300' & echo $$ >> ${pids}; sleep 300`
    const t0 = Date.now()
    const r = await execCapture('sh', ['-c', script], { timeoutMs: 800 })
    expect(r.timedOut).toBe(true)
    expect(r.exitCode).toBe(EXIT_TIMED_OUT)
    expect(r.stderr).toMatch(/timed out after 1 s and was killed/)
    expect(Date.now() - t0).toBeLessThan(8000)
    const recorded = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number)
    expect(recorded).toHaveLength(2)
    await new Promise(r => setTimeout(r, 300))
    for (const pid of recorded) expect({ pid, alive: alive(pid) }).toEqual({ pid, alive: false })
  })

  it('kills a program that ignores SIGTERM', async () => {
    const t0 = Date.now()
    const r = await execCapture('sh', ['-c', "trap '' TERM; sleep 300"], { timeoutMs: 300 })
    expect(r.timedOut).toBe(true)
    expect(Date.now() - t0).toBeLessThan(8000)
  })

  it('stops on an abort signal', async () => {
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 200)
    const r = await execCapture('sleep', ['300'], { signal: ac.signal })
    expect(r.timedOut).toBe(true)
  })
})
