/**
 * A user command's results beyond the protocol channel (src/execute/command-results.ts): its tool result file
 * in {out}, or its wall time; an unreadable result is the run's own failure reason, never a "protocol" line.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { readResultFile } from '../../src/results/index.js'
import { readCommandResults, wallTimeSample, type RunBase } from '../../src/execute/command-results.js'
import type { ProcessResult } from '../../src/execute/process-types.js'
import { RunLog } from '../../src/execute/run-log.js'
import { describeFailure } from '../../src/execute/run-record.js'
import { EVENTS_FILE } from '../../src/execute/run-folders.js'
import type { WorkloadEvent } from '../../src/types/index.js'

const HYPERFINE = path.resolve('test/__fixtures__/adapters/hyperfine.json')
const BASE: RunBase = {
  check_id: 'c',
  workload: 'mine',
  environment: 'native',
  run: 1,
  params: {},
  fingerprint: {} as never
}

function proc(over: Partial<ProcessResult> = {}): ProcessResult {
  return {
    exitCode: 0,
    signal: null,
    spawnEpochMs: 1_000_000,
    releaseEpochMs: 1_000_000,
    abandoned: false,
    endEpochMs: 1_002_500,
    events: [],
    badLines: [],
    stderrTail: '',
    log: new RunLog(),
    channelError: null,
    timedOut: false,
    cancelled: false,
    spawnError: null,
    ...over
  }
}

const made: string[] = []
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

function runDir(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'command-results-'))
  made.push(dir)
  fs.writeFileSync(path.join(dir, EVENTS_FILE), '')
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
  return dir
}

const sample = { event: 'sample', metric: 'x', value: 1, unit: 'ms', better: 'lower' } as WorkloadEvent

describe('readCommandResults', () => {
  it('a built-in (no format) has nothing to read', () => {
    expect(readCommandResults(null, proc(), null, BASE, readResultFile, false)).toEqual({
      samples: [],
      error: null,
      fromFile: false,
      byWallTime: false
    })
  })

  it("reads the one result file in {out} into this run's steady samples; a warm-up's are dropped", () => {
    const dir = runDir({ 'h.json': fs.readFileSync(HYPERFINE, 'utf8') })
    const r = readCommandResults('hyperfine', proc(), dir, BASE, readResultFile, false)
    expect(r.error).toBeNull()
    expect(r.fromFile).toBe(true)
    expect(r.byWallTime).toBe(false)
    expect(r.samples.length).toBeGreaterThan(0)
    expect(r.samples[0]).toMatchObject({ workload: 'mine', scope: 'steady', unit: 's', better: 'lower' })
    expect(r.samples[0]!.iteration).toBe(1)
    const warm = readCommandResults('hyperfine', proc(), dir, BASE, readResultFile, true)
    expect(warm).toMatchObject({ samples: [], error: null })
  })

  it("a missing or second result file is the run's error, named; a failed process is not read", () => {
    const none = readCommandResults('hyperfine', proc(), runDir(), BASE, readResultFile, false)
    expect(none.error).toMatch(
      /^result file \(hyperfine\): expected one \.json \(or \.jsonl\) result file in \{out\}, found none/
    )
    const two = readCommandResults(
      'hyperfine',
      proc(),
      runDir({ 'a.json': '{}', 'b.json': '{}' }),
      BASE,
      readResultFile,
      false
    )
    expect(two.error).toMatch(/found a\.json, b\.json/)
    expect(
      readCommandResults('hyperfine', proc({ exitCode: 1 }), runDir(), BASE, readResultFile, false).error
    ).toBeNull()
  })

  it('protocol without samples is an error; auto without samples is read by wall time', () => {
    expect(readCommandResults('protocol', proc(), null, BASE, undefined, false).error).toMatch(
      /no sample events on the channel/
    )
    expect(
      readCommandResults('protocol', proc({ events: [sample] }), null, BASE, undefined, false).error
    ).toBeNull()
    expect(readCommandResults('auto', proc(), null, BASE, undefined, false).byWallTime).toBe(true)
    expect(
      readCommandResults('auto', proc({ events: [sample] }), null, BASE, undefined, false).byWallTime
    ).toBe(false)
    expect(
      readCommandResults('wall', proc({ events: [sample] }), null, BASE, undefined, false).byWallTime
    ).toBe(true)
  })
})

describe('wallTimeSample', () => {
  it('is spawn to exit, in seconds, lower is better', () => {
    expect(wallTimeSample(BASE, proc())).toMatchObject({
      metric: 'wall_s',
      value: 2.5,
      unit: 's',
      better: 'lower',
      scope: 'steady',
      iteration: 1
    })
  })
})

describe('describeFailure with a result error', () => {
  it('names the result error, not as a protocol line, and without the silent-entrypoint hint', () => {
    const why = describeFailure(
      proc(),
      'result file (hyperfine): expected one .json (or .jsonl) result file in {out}, found none'
    )
    expect(why).toBe(
      'exit code 0; result file (hyperfine): expected one .json (or .jsonl) result file in {out}, found none'
    )
    expect(describeFailure(proc())).toMatch(/no protocol events arrived/)
    expect(describeFailure(proc({ badLines: ['junk'] }), 'x')).toBe('exit code 0; not a protocol event: junk')
  })
})

describe('describeFailure with an error event', () => {
  const wrapped = {
    event: 'error' as const,
    type: 'runtime',
    message:
      'RuntimeError: Caught RuntimeError in DataLoader worker process 1. Original Traceback (most recent'
  }
  it("adds stderr's last line where the event carries only the wrapper of the real error", () => {
    const stderrTail =
      'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: unable to write to file </torch_4242_1_0>: No space left on device (28)\n'
    expect(describeFailure(proc({ exitCode: 1, events: [wrapped], stderrTail }))).toBe(
      `runtime: ${wrapped.message} | RuntimeError: unable to write to file </torch_4242_1_0>: No space left on device (28)`
    )
  })
  it('says it once where the event already holds that line, or stderr is empty', () => {
    const whole = { ...wrapped, message: 'ValueError: bad size' }
    expect(
      describeFailure(proc({ exitCode: 1, events: [whole], stderrTail: 'ValueError: bad size\n' }))
    ).toBe('runtime: ValueError: bad size')
    expect(describeFailure(proc({ exitCode: 1, events: [whole] }))).toBe('runtime: ValueError: bad size')
  })
})
