import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { runProcess } from '../../src/execute/process.js'
import { parseEventLine } from '../../src/execute/event-line.js'
import { startupRecords } from '../../src/execute/run-record.js'
import type { Fingerprint } from '../../src/types/index.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-'))
function script(name: string, body: string): string {
  const f = path.join(dir, name)
  fs.writeFileSync(f, body)
  return f
}

describe('parseEventLine', () => {
  it('accepts protocol events only', () => {
    expect(
      parseEventLine(
        '{"event":"sample","metric":"kernel_ms","value":41,"unit":"ms","iteration":1,"better":"lower"}'
      )
    ).not.toBeNull()
    expect(parseEventLine('{"event":"sample","metric":"kernel_ms","value":"41"}')).toBeNull()
    expect(parseEventLine('{"event":"sample","metric":"x","value":NaN}')).toBeNull()
    expect(parseEventLine('{"event":"party"}')).toBeNull()
    expect(parseEventLine('hello')).toBeNull()
    expect(parseEventLine('[1,2]')).toBeNull()
  })
})

describe('runProcess', () => {
  it('streams events live and keeps non-protocol lines and stderr', async () => {
    const f = script(
      'ok.py',
      'import json,sys,time\nprint(json.dumps({"event":"sample","metric":"m","value":1.5,"unit":"ms","iteration":1,"better":"lower"}),flush=True)\nprint("garbage")\nsys.stderr.write("err line\\n")\n'
    )
    const seen: string[] = []
    const r = await runProcess({ command: 'python3', args: [f], timeoutMs: 10000 }, e => seen.push(e.event))
    expect(r.exitCode).toBe(0)
    expect(seen).toEqual(['sample'])
    expect(r.badLines).toEqual(['garbage'])
    expect(r.stderrTail).toContain('err line')
  })
  it('kills a hung process tree on timeout and keeps what it printed', async () => {
    const marker = path.join(dir, 'child-alive')
    const f = script(
      'hang.py',
      `import json,subprocess,sys,time\nsubprocess.Popen(["sh","-c","sleep 30; touch ${marker}"])\nprint(json.dumps({"event":"sample","metric":"m","value":2,"unit":"ms","iteration":1,"better":"lower"}),flush=True)\ntime.sleep(60)\n`
    )
    const t0 = Date.now()
    const r = await runProcess({ command: 'python3', args: [f], timeoutMs: 1500 }, () => {})
    expect(r.timedOut).toBe(true)
    expect(r.events).toHaveLength(1)
    expect(Date.now() - t0).toBeLessThan(8000)
    // The grandchild was in the same process group and died with it.
    const ps = fs
      .readdirSync('/proc')
      .filter(p => /^\d+$/.test(p))
      .map(p => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8')
        } catch {
          return ''
        }
      })
    expect(ps.some(c => c.includes(marker))).toBe(false)
  })
  it('cancels on abort', async () => {
    const f = script('slow.py', 'import time\ntime.sleep(30)\n')
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 300)
    const r = await runProcess({ command: 'python3', args: [f], timeoutMs: 20000 }, () => {}, ac.signal)
    expect(r.cancelled).toBe(true)
  })
  it('reports a program that cannot start', async () => {
    const r = await runProcess({ command: '/nonexistent/python', args: [], timeoutMs: 1000 }, () => {})
    expect(r.spawnError).toMatch(/ENOENT/)
  })
})

describe('startupRecords', () => {
  it('splits launch, phases, total and whole-process time', () => {
    const fp = {} as Fingerprint
    const base = {
      check_id: 'c',
      workload: 'matmul',
      environment: 'container',
      run: 1,
      params: {},
      fingerprint: fp
    }
    const recs = startupRecords(
      {
        spawnEpochMs: 1000_000,
        endEpochMs: 1005_000,
        events: [
          { event: 'start', workload: 'matmul', proc_start_epoch_s: 1000.25, epoch_s: 1000.3, params: {} },
          { event: 'phase', name: 'interpreter', duration_s: 0.05, end_epoch_s: 1000.3 },
          { event: 'phase', name: 'imports', duration_s: 1.2, end_epoch_s: 1001.5 },
          { event: 'phase', name: 'device_init', duration_s: 0.5, end_epoch_s: 1002.0 },
          { event: 'phase', name: 'first_kernel', duration_s: 0.3, end_epoch_s: 1002.3 }
        ]
      },
      base,
      't'
    )
    const m = Object.fromEntries(recs.map(r => [r.metric, r.value]))
    expect(m.launch_s).toBeCloseTo(0.25)
    expect(m.imports_s).toBeCloseTo(1.2)
    expect(m.total_startup_s).toBeCloseTo(2.3)
    expect(m.process_wall_s).toBeCloseTo(5)
    expect(recs.every(r => r.scope === 'startup' && r.unit === 's')).toBe(true)
  })
})

describe('a held process that ends before its release', () => {
  it('keeps its spawn as its start: never a start after its end (a negative duration)', async () => {
    const { startProcess } = await import('../../src/execute/process.js')
    // Ignores the hold: exits at once, without waiting for "go" on stdin.
    const h = startProcess(
      { command: '/bin/sh', args: ['-c', 'exit 0'], env: {}, timeoutMs: 10_000, hold: true },
      () => undefined
    )
    await new Promise(r => setTimeout(r, 300))
    h.release()
    const r = await h.done
    expect(r.releaseEpochMs).toBeGreaterThan(0)
    expect(r.releaseEpochMs).toBeLessThanOrEqual(r.endEpochMs)
  })
})
