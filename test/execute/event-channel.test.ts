/**
 * Issue 26: the protocol's own channel. Events come from the run's events file only; whatever the process
 * prints on stdout (an NGC banner, a fake event) is its log, never an event and never a failure. The channel
 * is bounded (bytes, events, nesting) and tied to its run (run id); each bound fails that run, by name.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { EventChannel, createChannelFile } from '../../src/execute/event-channel.js'
import { MAX_EVENTS_PER_RUN, runProcess } from '../../src/execute/process.js'
import { jsonDepth, parseEventLine } from '../../src/execute/event-line.js'
import { RunFolders } from '../../src/execute/run-folders.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'channel-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

function script(name: string, body: string): string {
  const f = path.join(tmp, name)
  fs.writeFileSync(f, body)
  return f
}

/** A run's channel as the runner makes it: a fresh file in a folder of its own. */
function channel(name: string): string {
  const dir = fs.mkdtempSync(path.join(tmp, `${name}-`))
  const file = path.join(dir, 'events.jsonl')
  createChannelFile(file, 0o600)
  return file
}

const SAMPLE = (v: number): string =>
  JSON.stringify({
    event: 'sample',
    metric: 'kernel_ms',
    value: v,
    unit: 'ms',
    iteration: 1,
    better: 'lower'
  })

describe("a user command's protocol lines on stdout (stdoutEvents)", () => {
  const f = (): string =>
    script(
      'prints.py',
      [
        'print("=== banner ===", flush=True)',
        'print("{not json", flush=True)',
        `print(${JSON.stringify(JSON.stringify({ event: 'start', workload: 'w', epoch_s: 0, params: {} }))}, flush=True)`,
        `print(${JSON.stringify(SAMPLE(7))}, flush=True)`,
        `print(${JSON.stringify(SAMPLE(8))}, flush=True)`
      ].join('\n')
    )
  const run = async (stdoutEvents: boolean, runIdOnStdout?: string) => {
    const events = channel('stdout')
    const values: number[] = []
    const body = runIdOnStdout
      ? script(
          'other-run.py',
          `print(${JSON.stringify(JSON.stringify({ event: 'start', workload: 'w', run_id: runIdOnStdout, epoch_s: 0, params: {} }))}, flush=True)`
        )
      : f()
    const r = await runProcess(
      {
        command: 'python3',
        args: [body],
        timeoutMs: 20_000,
        eventsPath: events,
        runId: 'run-1',
        ...(stdoutEvents ? { stdoutEvents: true } : {})
      },
      e => {
        if (e.event === 'sample') values.push(e.value)
      }
    )
    return { r, values }
  }
  it('are read beside the channel; other lines stay the log and are no bad lines', async () => {
    const { r, values } = await run(true)
    expect(r.exitCode).toBe(0)
    expect(values).toEqual([7, 8])
    expect(r.badLines).toEqual([])
    expect(r.channelError).toBeNull()
    expect(r.events.find(e => e.event === 'start')?.['run_id']).toBe('run-1')
    expect(r.log.text()).toContain('=== banner ===')
  })
  it('are only the log without it (the built-ins: an image cannot add samples on stdout)', async () => {
    const { values } = await run(false)
    expect(values).toEqual([])
  })
  it("a start event naming another run's id is refused", async () => {
    const { r } = await run(true, 'run-2')
    expect(r.channelError).toMatch(/another run/)
  })
})

describe('events on their own channel', () => {
  it('reads events from the file; stdout (banner, a fake event) is only the log', async () => {
    const events = channel('banner')
    const f = script(
      'banner.py',
      [
        'import json, os, sys',
        'print("=============\\n== PyTorch ==\\n=============", flush=True)',
        `print(${JSON.stringify(SAMPLE(0.001))}, flush=True)  # a fake event on stdout`,
        'sys.stderr.write("WARNING: The NVIDIA Driver was not detected.\\n")',
        'with open(os.environ["GPU_OVERHEAD_EVENTS"], "a") as out:',
        '    out.write(json.dumps({"event": "start", "workload": "w", "run_id": os.environ["GPU_OVERHEAD_RUN_ID"], "proc_start_epoch_s": None, "epoch_s": 0, "params": {}}) + "\\n")',
        `    out.write(${JSON.stringify(SAMPLE(41))} + "\\n")`
      ].join('\n')
    )
    const values: number[] = []
    const r = await runProcess(
      {
        command: 'python3',
        args: [f],
        env: { ...process.env, GPU_OVERHEAD_EVENTS: events, GPU_OVERHEAD_RUN_ID: 'run-1' },
        timeoutMs: 20_000,
        eventsPath: events,
        runId: 'run-1'
      },
      e => {
        if (e.event === 'sample') values.push(e.value)
      }
    )
    expect(r.exitCode).toBe(0)
    expect(values).toEqual([41])
    expect(r.badLines).toEqual([])
    expect(r.channelError).toBeNull()
    const log = r.log.text()
    expect(log).toContain('== PyTorch ==')
    expect(log).toContain('"value":0.001')
    expect(log).toContain('WARNING: The NVIDIA Driver was not detected.')
  })

  it("refuses another run's events (run id) and fails that run", async () => {
    const events = channel('foreign')
    const f = script(
      'foreign.py',
      [
        'import json, os',
        'with open(os.environ["GPU_OVERHEAD_EVENTS"], "a") as out:',
        '    out.write(json.dumps({"event": "start", "workload": "w", "run_id": "someone-else", "proc_start_epoch_s": None, "epoch_s": 0, "params": {}}) + "\\n")',
        `    out.write(${JSON.stringify(SAMPLE(41))} + "\\n")`
      ].join('\n')
    )
    const seen: string[] = []
    const r = await runProcess(
      {
        command: 'python3',
        args: [f],
        env: { ...process.env, GPU_OVERHEAD_EVENTS: events },
        timeoutMs: 20_000,
        eventsPath: events,
        runId: 'mine'
      },
      e => seen.push(e.event)
    )
    expect(r.channelError).toMatch(/another run/)
    expect(seen).toEqual([])
  })

  it(`fails a run that sends more than ${MAX_EVENTS_PER_RUN} events, and kills it`, async () => {
    const events = channel('flood')
    const f = script(
      'flood.py',
      [
        'import os, time',
        `line = ${JSON.stringify(SAMPLE(1))} + "\\n"`,
        'with open(os.environ["GPU_OVERHEAD_EVENTS"], "a") as out:',
        `    out.write(line * ${MAX_EVENTS_PER_RUN + 10})`,
        'time.sleep(60)'
      ].join('\n')
    )
    let n = 0
    const t0 = Date.now()
    const r = await runProcess(
      {
        command: 'python3',
        args: [f],
        env: { ...process.env, GPU_OVERHEAD_EVENTS: events },
        timeoutMs: 120_000,
        eventsPath: events
      },
      () => void n++
    )
    expect(r.channelError).toMatch(/more than 200000 protocol events/)
    expect(n).toBe(MAX_EVENTS_PER_RUN)
    expect(r.events).toHaveLength(MAX_EVENTS_PER_RUN)
    // Killed for it, not left to its 60 s sleep.
    expect(Date.now() - t0).toBeLessThan(40_000)
  }, 60_000)

  it('stops reading at its byte bound and says so (never holds more than the bound)', () => {
    const events = channel('bytes')
    fs.appendFileSync(events, `${SAMPLE(1)}\n`.repeat(2000))
    const lines: string[] = []
    let overflow = 0
    const ch = new EventChannel(
      events,
      { line: l => lines.push(l), tooLong: () => undefined, overflow: b => (overflow = b) },
      10_000
    )
    ch.close()
    expect(overflow).toBeGreaterThan(10_000)
    expect(lines.length).toBeLessThan(200)
  })

  it('reads through the descriptor it opened: an image that swaps the file for a link gets nothing read through it', () => {
    const events = channel('swap')
    fs.appendFileSync(events, `${SAMPLE(7)}\n`)
    const lines: string[] = []
    const ch = new EventChannel(events, {
      line: l => lines.push(l),
      tooLong: () => undefined,
      overflow: () => undefined
    })
    fs.rmSync(events)
    fs.symlinkSync('/etc/passwd', events)
    ch.close()
    expect(lines).toEqual([SAMPLE(7)])
  })

  it('refuses to open a channel that is a link', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'link-'))
    const file = path.join(dir, 'events.jsonl')
    fs.symlinkSync('/etc/passwd', file)
    expect(() => createChannelFile(file)).toThrow()
    expect(
      () =>
        new EventChannel(file, { line: () => undefined, tooLong: () => undefined, overflow: () => undefined })
    ).toThrow()
  })
})

describe('event nesting is bounded without recursion', () => {
  it('a 100,000-deep event is refused, never walked recursively', () => {
    const deep = `{"event":"stack","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    expect(() => parseEventLine(deep)).not.toThrow()
    expect(parseEventLine(deep)).toBeNull()
    expect(jsonDepth(JSON.parse('{"a":{"b":{"c":1}}}'))).toBe(3)
  })
})

describe('run folders: nothing shared by accident', () => {
  it('gives every process its own folder and checkpoint folder, never the same name twice', () => {
    const ckpt = fs.mkdtempSync(path.join(tmp, 'ckpt-'))
    const a = RunFolders.open('20261126T000000-aaaaaa', tmp)
    const b = RunFolders.open('20261126T000000-aaaaaa', tmp)
    const runs = [
      a.create('io-native-1', false, ckpt),
      a.create('io-native-1', true, ckpt),
      b.create('io-native-1', true, ckpt)
    ]
    expect(new Set(runs.map(r => r.dir)).size).toBe(3)
    expect(new Set(runs.map(r => r.checkpoint)).size).toBe(3)
    expect(new Set(runs.map(r => r.runId)).size).toBe(3)
    expect(fs.statSync(a.root).mode & 0o777).toBe(0o700)
    // The native arm's folders are private; a container's are writable for its (possibly non-root) USER.
    expect(fs.statSync(runs[0]!.dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(runs[1]!.dir).mode & 0o777).toBe(0o777)
    // A link the image left in its folder is removed, not followed.
    const victim = path.join(tmp, 'victim.txt')
    fs.writeFileSync(victim, 'keep')
    fs.symlinkSync(victim, path.join(runs[1]!.checkpoint!, 'planted'))
    for (const r of runs) r.remove()
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep')
    expect(fs.readdirSync(ckpt)).toEqual([])
    a.close()
    b.close()
    expect(fs.existsSync(a.root)).toBe(false)
  })
})
