/**
 * Turns: the processes of one block (native and container, one GPU) are prepared at once, then the runner
 * gives them the GPU one measured iteration at a time, A B B A A B …, so iteration k of every arm runs within
 * about a second of the others. A host state that changes every few seconds (two levels ~11% apart with
 * one neighbour on another GPU, docs/evidence/2026-11-27-h100x4-alone.md) then hits both arms' k-th
 * iteration alike, and a change inside a block straddles one pair of iterations, not the whole block.
 * The workload side is Protocol.take_turn (workloads/_protocol.py): a `turn` event (wait: it gave the GPU
 * back; done: it finished measuring), then "turn" on its stdin. Everything a process does between two of its
 * turns runs while it holds the GPU.
 * A container is frozen (`docker pause`) while another process has the turn: what its image runs beside the
 * workload (a co-tenant, a daemon) then costs the container arm only, as when each process had its own slot.
 * Without it, a 2%-duty GPU co-tenant in the image (~3% slower) slowed both arms' requests alike and TTFT
 * showed +0.05–0.7% where processes of their own showed +2–3.7% (docs/evidence/2026-11-27-h100x4-turns.md).
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

  private frozen = false

  /** `freeze`: a container's (ProcessSpec.freeze); absent natively, where nothing runs beside the workload. */
  constructor(
    private readonly handle: ProcessHandle,
    private readonly freezer?: (frozen: boolean) => Promise<string | null>
  ) {
    void handle.done.then(() => this.deliver('ended'))
  }

  get isEnded(): boolean {
    return this.ended
  }

  /** Freezes or thaws its container (no-op natively, or when already so); null, or why it failed. */
  async setFrozen(frozen: boolean): Promise<string | null> {
    if (!this.freezer || this.frozen === frozen) return null
    const failed = await this.freezer(frozen)
    if (failed === null) this.frozen = frozen
    // A process that ended meanwhile (killed at its timeout) takes its container along: nothing to freeze.
    return this.ended ? null : failed
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
 * each in turn, the order reversed every round (A B, B A, …) so neither arm always goes first; before each
 * turn every other container is frozen and the one taking it thawed. A process that is done leaves the
 * rotation; one that ends without `done` (failed, killed) ends the block's turns, since the others would
 * measure alone. Resolves to null, or why the turns were stopped by the runner (a freeze that failed).
 */
export async function takeTurns(gates: readonly TurnGate[]): Promise<string | null> {
  let stopped: string | null = null
  try {
    stopped = await rotate(gates)
  } finally {
    // Thawed before their input ends: a frozen process could neither read it nor exit.
    const thawed = await Promise.all(gates.map(g => g.setFrozen(false)))
    for (const g of gates) g.end()
    stopped ??= thawed.find(t => t !== null) ?? null
  }
  return stopped
}

async function rotate(gates: readonly TurnGate[]): Promise<string | null> {
  const first = await Promise.all(gates.map(g => g.next()))
  let active = gates.filter((_, i) => first[i] === 'wait')
  if (first.includes('ended')) return null
  // Every container frozen from the start, so the first request of each arm follows a freeze or a thaw alike,
  // whichever arm goes first.
  const frozen = await handOver(gates, active, null)
  if (frozen !== null) return frozen
  for (let round = 0, given = 0; active.length > 0 && given < MAX_TURNS; round++) {
    const order = round % 2 === 0 ? [...active] : [...active].reverse()
    for (const g of order) {
      const stopped = await handOver(gates, active, g)
      if (stopped !== null) return stopped
      g.give()
      given++
      const state = await g.next()
      if (state === 'wait') continue
      if (state === 'ended') return null
      active = active.filter(x => x !== g)
    }
  }
  return null
}

/**
 * Freezes the container of every other process that still lives, and thaws the next one's (null: freezes
 * them all). A process that is done may be tearing down (its CUDA context) or gone with its container:
 * frozen where it can be, and a failure there is no reason to stop.
 */
async function handOver(
  gates: readonly TurnGate[],
  active: readonly TurnGate[],
  next: TurnGate | null
): Promise<string | null> {
  const others = gates.filter(g => g !== next && !g.isEnded)
  const froze = await Promise.all(others.map(g => g.setFrozen(true)))
  const failed =
    froze.find((f, i) => f !== null && active.includes(others[i]!)) ??
    (next ? await next.setFrozen(false) : null)
  return failed === null
    ? null
    : `${failed}: a container's other processes would run during the other arm's turns (turns need the runtime's pause; set turns: false to measure each process on its own)`
}
