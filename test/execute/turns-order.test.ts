/**
 * The first round of turns opens with the process that got ready first: its first request then runs right after
 * the other's warm-up, as every later request runs after the other's turn. The one ready last going first measured
 * its first request with the GPU's other process long idle: on H100s the slow decode level (+11%), in 32 of 42
 * such container processes (docs/evidence/2026-11-27-layouts-10.md).
 */
import { TurnGate, takeTurns } from '../../src/execute/turns.js'
import type { ProcessHandle, ProcessResult } from '../../src/execute/process-types.js'

/** A process that says `wait` when told, measures `iterations` turns, then says done; `given` logs its turns. */
function fakeProcess(name: string, given: string[], iterations: number) {
  let gate: TurnGate | null = null
  let left = iterations
  let finish: (r: ProcessResult) => void = () => undefined
  const done = new Promise<ProcessResult>(resolve => (finish = resolve))
  const handle: ProcessHandle = {
    release: () => undefined,
    abandon: () => undefined,
    turn: () => {
      given.push(name)
      left--
      setImmediate(() => gate?.deliver(left > 0 ? 'wait' : 'done'))
    },
    endTurns: () => finish({ exitCode: 0 } as ProcessResult),
    done
  }
  return {
    handle,
    attach: (g: TurnGate) => (gate = g),
    ready: () => gate?.deliver('wait')
  }
}

describe('the first round of turns', () => {
  for (const firstReady of ['native', 'container'])
    it(`opens with the process that got ready first (${firstReady}), then reverses every round`, async () => {
      const given: string[] = []
      const a = fakeProcess('native', given, 3)
      const b = fakeProcess('container', given, 3)
      const ga = new TurnGate(a.handle, undefined, 'native')
      const gb = new TurnGate(b.handle, undefined, 'container')
      a.attach(ga)
      b.attach(gb)
      const turns = takeTurns([ga, gb], 10_000)
      const [early, late] = firstReady === 'native' ? [a, b] : [b, a]
      early.ready()
      await new Promise(r => setTimeout(r, 20))
      late.ready()
      expect(await turns).toBeNull()
      const other = firstReady === 'native' ? 'container' : 'native'
      expect(given).toEqual([firstReady, other, other, firstReady, firstReady, other])
    })
})
