/**
 * Turns against a real container (Docker, the local python3 + NumPy image, llm on the CPU): while the native
 * process measures its turn, the container is frozen (docker pause), so what its image runs beside the
 * workload cannot slow the native arm; in its own turn it runs. And the turn-taking itself (unit): the order
 * of freezes, and a freeze that fails stops the turns, thaws and ends every process.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { definitionOf, loadConfig } from '../../src/config/index.js'
import { RunFolders, processSpec } from '../../src/execute/index.js'
import { executePlan } from '../../src/execute/runner.js'
import type { ProcessHandle, ProcessResult } from '../../src/execute/process-types.js'
import { MAX_TURNS, TurnGate, takeTurns } from '../../src/execute/turns.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { emptyPreflightOutcome, type PreflightOutcome } from '../../src/preflight/index.js'
import { ResultsWriter } from '../../src/results/store.js'
import type { Fingerprint, SampleRecord } from '../../src/types/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { silentLogger } from '../../src/util/log.js'
import { HOST_PYTHON } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'turns-ctr-'))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe('turns with a container', () => {
  let image = ''
  beforeAll(async () => {
    image = await ensurePythonImage()
  }, 300_000)

  it('freezes the container while the native process measures, and thaws it for its own turns', async () => {
    const config = loadConfig({
      workspace: root,
      flags: {
        [Inputs.Image]: image,
        [Inputs.Device]: 'cpu',
        [Inputs.Workloads]: 'llm',
        [Inputs.Python]: HOST_PYTHON
      }
    })
    const id = spawnSync('docker', ['image', 'inspect', '-f', '{{.Id}}', image], {
      encoding: 'utf8'
    }).stdout.trim()
    const pre: PreflightOutcome = {
      ...emptyPreflightOutcome(),
      images: new Map([[image, { id }]]) as unknown as PreflightOutcome['images']
    }
    const folders = RunFolders.open('turns-ctr', root)
    const checkId = `turnsctr${process.pid}`
    const plan = buildPlan({
      arms: config.arms,
      workloads: ['llm'],
      runs: 1,
      warmupRuns: 0,
      schedule: 'abba',
      seed: 1
    })
    const writer = ResultsWriter.open(fs.mkdtempSync(path.join(root, 'out-')))
    const container = plan.find(p => p.arm.kind === 'container')!
    // Whether the container was paused when each sample arrived (the runner thaws it only after the `wait`
    // that follows a turn's samples, so this sees the state the sample was measured in).
    const seen: string[] = []
    const append = writer.appendSamples.bind(writer)
    writer.appendSamples = (records: SampleRecord[]) => {
      for (const r of records.filter(x => x.metric === 'tpot_ms')) {
        const state = spawnSync(
          'docker',
          [
            'inspect',
            '-f',
            '{{.State.Paused}} {{.State.Running}}',
            `gpu-overhead-${checkId}-${container.order}`
          ],
          { encoding: 'utf8' }
        ).stdout.trim()
        // A container that has exited but is not removed yet (slow on a loaded runner) reads "false false":
        // gone, like a container inspect no longer finds.
        const paused = state === '' || state === 'false false' ? '' : (state.split(' ')[0] ?? '')
        seen.push(`${r.environment}:${paused}`)
      }
      append(records)
    }
    try {
      const r = await executePlan(plan, {
        checkId,
        specFor: (p, lane, hold, turns) =>
          processSpec({
            planned: p,
            config,
            checkId,
            workloadsDir: path.resolve('workloads'),
            io: null,
            pre,
            lane,
            hold,
            folders,
            definition: definitionOf(config.definitions, p.workload),
            turns
          }),
        turns: () => true,
        fingerprintFor: () => ({}) as Fingerprint,
        paramsFor: () => ({}),
        writer,
        logger: silentLogger,
        prestart: false
      })
      expect(r.runs.map(x => `${x.status} ${x.error ?? ''}`)).toEqual(['ok ', 'ok '])
      expect(seen.length).toBe(12)
      // Container turns: thawed, or (its last request's samples read after it exited) already gone. Native turns:
      // the container frozen, or (its last requests done before the native's) already gone.
      expect(
        seen.filter(x => x.startsWith('container')).every(x => x === 'container:false' || x === 'container:')
      ).toBe(true)
      expect(seen.filter(x => x === 'container:false').length).toBeGreaterThanOrEqual(4)
      expect(
        seen.filter(x => x.startsWith('native')).every(x => x === 'native:true' || x === 'native:')
      ).toBe(true)
      expect(seen.filter(x => x === 'native:true').length).toBeGreaterThanOrEqual(4)
    } finally {
      folders.close()
      spawnSync('docker', ['rm', '-f', `gpu-overhead-${checkId}-${container.order}`])
    }
  }, 180_000)
})

/** A process stand-in: each turn, after a tick, reports `wait` (or `done` after `iterations`). */
function fakeProcess(iterations: number, log: string[], name: string) {
  let end: (r: ProcessResult) => void = () => undefined
  const done = new Promise<ProcessResult>(resolve => (end = resolve))
  let gate: TurnGate | null = null
  let taken = 0
  const handle: ProcessHandle = {
    release: () => undefined,
    abandon: () => undefined,
    turn: () => {
      log.push(`${name} turn`)
      taken++
      setTimeout(() => gate!.deliver(taken >= iterations ? 'done' : 'wait'), 1)
    },
    endTurns: () => {
      log.push(`${name} end`)
      setTimeout(() => end({} as ProcessResult), 1)
    },
    done
  }
  return {
    handle,
    attach: (g: TurnGate) => {
      gate = g
      setTimeout(() => g.deliver('wait'), 1)
    }
  }
}

/**
 * A native and a container stand-in taking `iterations` turns each; the container's freezes logged. The one
 * attached first gets ready first, and so takes the first turn.
 */
function fakeBlock(iterations: number, readyFirst: 'native' | 'container' = 'native') {
  const log: string[] = []
  const a = fakeProcess(iterations, log, 'native')
  const b = fakeProcess(iterations, log, 'container')
  const ga = new TurnGate(a.handle)
  const gb = new TurnGate(b.handle, frozen => {
    log.push(frozen ? 'freeze' : 'thaw')
    return Promise.resolve(null)
  })
  if (readyFirst === 'native') {
    a.attach(ga)
    b.attach(gb)
  } else {
    b.attach(gb)
    a.attach(ga)
  }
  return { log, ga, gb }
}

describe('takeTurns', () => {
  it('gives turns A B B A, freezing the container before the native turn and thawing it for its own', async () => {
    const { log, ga, gb } = fakeBlock(2)
    expect(await takeTurns([ga, gb])).toBeNull()
    expect(log).toEqual([
      'freeze',
      'native turn',
      'thaw',
      'container turn',
      'container turn',
      // Done after its second turn, the container is frozen while it tears down, thawed to end.
      'freeze',
      'native turn',
      'thaw',
      'native end',
      'container end'
    ])
  })

  it('the container going first is frozen and thawed too: each arm’s first request follows the engine alike', async () => {
    const { log, ga, gb } = fakeBlock(1, 'container')
    expect(await takeTurns([ga, gb])).toBeNull()
    expect(log.slice(0, 5)).toEqual(['freeze', 'thaw', 'container turn', 'freeze', 'native turn'])
  })

  it('a freeze that fails stops the turns, says why, and still thaws and ends every process', async () => {
    const log: string[] = []
    const a = fakeProcess(3, log, 'native')
    const b = fakeProcess(3, log, 'container')
    const ga = new TurnGate(a.handle)
    let calls = 0
    const gb = new TurnGate(b.handle, frozen => {
      calls++
      log.push(frozen ? 'freeze' : 'thaw')
      return Promise.resolve(frozen && calls > 1 ? 'docker pause failed: boom' : null)
    })
    a.attach(ga)
    b.attach(gb)
    const why = await takeTurns([ga, gb])
    expect(why?.reason).toMatch(/docker pause failed: boom.*turns: false/)
    expect(why?.gate).toBe(1)
    expect(log.filter(l => l.endsWith('turn'))).toEqual(['native turn', 'container turn', 'container turn'])
    expect(log.slice(-2)).toEqual(['native end', 'container end'])
    expect(log.filter(l => l === 'thaw').length).toBeGreaterThanOrEqual(1)
  })
})

describe('takeTurns: a process that never finishes (issue 41)', () => {
  it('one that says wait after every turn is an error naming it at MAX_TURNS, not a finished block', async () => {
    const log: string[] = []
    const a = fakeProcess(3, log, 'native')
    // Always `wait`, answered at once (a microtask): 10,000 turns in well under a second.
    let gate: TurnGate | null = null
    let end: (r: ProcessResult) => void = () => undefined
    const done = new Promise<ProcessResult>(resolve => (end = resolve))
    const handle: ProcessHandle = {
      release: () => undefined,
      abandon: () => undefined,
      turn: () => void Promise.resolve().then(() => gate!.deliver('wait')),
      endTurns: () => end({} as ProcessResult),
      done
    }
    const ga = new TurnGate(a.handle, undefined, 'native')
    const gb = new TurnGate(handle, undefined, 'container')
    gate = gb
    a.attach(ga)
    setTimeout(() => gb.deliver('wait'), 1)
    const why = await takeTurns([ga, gb])
    expect(why).toEqual({
      reason: `the container process still asked for turns after ${MAX_TURNS} (it must say done when it has measured)`,
      gate: 1
    })
  })

  it('a flood of turn events ends the turns at once and names the process', async () => {
    const log: string[] = []
    const a = fakeProcess(3, log, 'native')
    const b = fakeProcess(3, log, 'container')
    const ga = new TurnGate(a.handle, undefined, 'native')
    const gb = new TurnGate(b.handle, undefined, 'container')
    a.attach(ga)
    for (let i = 0; i < 1000; i++) gb.deliver('wait')
    const why = await takeTurns([ga, gb])
    expect(why).toEqual({
      reason: 'the container process sent more than 4 turn events without being given a turn',
      gate: 1
    })
    expect(log.filter(l => l.endsWith('turn'))).toEqual([])
  })
})
