/**
 * Turns: the processes of one block (native and container, one GPU) are prepared at once, then the runner
 * gives them the GPU one measured iteration at a time, A B B A A B …, so iteration k of every arm runs within
 * about a second of the others. A host state that changes every few seconds (two levels ~11% apart with
 * one neighbour on another GPU, docs/evidence/2026-11-27-h100x4-alone.md) then hits both arms' k-th
 * iteration alike, and a change inside a block straddles one pair of iterations, not the whole block.
 * The workload side is Protocol.take_turn (workloads/_protocol.py): a `turn` event (wait: it gave the GPU
 * back; done: it finished measuring), then "turn" on its stdin. Everything a process does between two of its
 * turns runs while it holds the GPU.
 */
import type { ProcessHandle } from './process.js'

/** What a process said last: it waits for a turn, it finished measuring, or it ended (exited, killed). */
export type TurnState = 'wait' | 'done' | 'ended'

/**
 * Turns taken in one block at most: a workload that reports `wait` without measuring cannot keep the runner
 * going (its events are bounded too, MAX_EVENTS_PER_RUN; a default llm process takes 6).
 */
export const MAX_TURNS = 10_000

/** One process's side of the turns: its `turn` events queued in order, the end of the process last. */
export class TurnGate {
  private readonly queue: TurnState[] = []
  private waiter: ((s: TurnState) => void) | null = null
  private ended = false
  /** The PIDs the check's other processes of this block reported (their `env` event), for the GPU probe. */
  partners: () => number[] = () => []
  /** Called when the process is given its first turn (the GPU probe waits for it: see launch.ts). */
  onFirstTurn: (() => void) | null = null

  constructor(private readonly handle: ProcessHandle) {
    void handle.done.then(() => this.deliver('ended'))
  }

  /** A `turn` event (edge wait or done) from the process's channel, or its end. */
  deliver(state: TurnState): void {
    if (this.ended) return
    if (state === 'ended') this.ended = true
    if (this.waiter) {
      const w = this.waiter
      this.waiter = null
      w(state)
    } else this.queue.push(state)
  }

  /** The process's next state: the oldest one not yet read, else the next to come. */
  next(): Promise<TurnState> {
    const s = this.queue.shift()
    if (s !== undefined) return Promise.resolve(s)
    if (this.ended) return Promise.resolve('ended')
    return new Promise(resolve => (this.waiter = resolve))
  }

  give(): void {
    const first = this.onFirstTurn
    this.onFirstTurn = null
    first?.()
    this.handle.turn()
  }

  end(): void {
    this.handle.endTurns()
  }
}

/**
 * Runs one block's turns: waits until every process is prepared (its first `wait`), then gives the GPU to
 * each in turn, the order reversed every round (A B, B A, …) so neither arm always goes first. A process that
 * is done leaves the rotation; one that ends without `done` (failed, killed) ends the block's turns, since
 * the others would measure alone.
 */
export async function takeTurns(gates: readonly TurnGate[]): Promise<void> {
  const first = await Promise.all(gates.map(g => g.next()))
  let active = gates.filter((_, i) => first[i] === 'wait')
  let failed = first.includes('ended')
  for (let round = 0, given = 0; !failed && active.length > 0 && given < MAX_TURNS; round++) {
    const order = round % 2 === 0 ? [...active] : [...active].reverse()
    for (const g of order) {
      g.give()
      given++
      const state = await g.next()
      if (state === 'wait') continue
      active = active.filter(x => x !== g)
      if (state === 'ended') {
        failed = true
        break
      }
    }
  }
  for (const g of gates) g.end()
}
