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
import type { ProcessHandle } from './process-types.js'
import { must } from '../util/must.js'
import { setting } from '../util/setting-name.js'

/** What a process said last: it waits for a turn, it finished measuring, or it ended (exited, killed). */
export type TurnState = 'wait' | 'done' | 'ended'

/**
 * Turns taken in one block at most: a workload that reports `wait` without measuring cannot keep the runner
 * going (its events are bounded too, MAX_EVENTS_PER_RUN; a default llm process takes 6). Reaching it is an
 * error of the process that still asks, never a finished block.
 */
export const MAX_TURNS = 10_000

/**
 * `turn` events a process may have sent that the runner has not read yet. The protocol sends one and waits for
 * its turn on stdin; more than this is a flood (200,000 `wait`s would otherwise be taken one by one, each with a
 * freeze and a thaw of a container that is gone).
 */
export const MAX_QUEUED_TURN_EVENTS = 4

/** After the turns broke, how long a process whose input ended may take to exit on its own before it is killed. */
export const STOP_GRACE_MS = 3000

/** Why the turns of a block stopped, and the process (its index among the gates) that stopped them. */
export interface TurnStop {
  /** One line; null when that process's own failure (its exit, its channel) says it better. */
  reason: string | null
  gate: number | null
}

/** One process's side of the turns: its `turn` events queued in order, the end of the process last. */
export class TurnGate {
  private readonly queue: TurnState[] = []
  private waiter: ((s: TurnState) => void) | null = null
  private ended = false
  private flooded = false
  /** The PIDs the check's other processes of this block reported (their `env` event), for the GPU probe. */
  partners: () => number[] = () => []
  /** Called when the process is given its first turn (the GPU probe waits for it: see launch.ts). */
  onFirstTurn: (() => void) | null = null

  private frozen = false

  /**
   * `freeze`: a container's (ProcessSpec.freeze); absent natively, where nothing runs beside the workload.
   * `label`: the arm, as a turn error names it.
   */
  constructor(
    private readonly handle: ProcessHandle,
    private readonly freezer?: (frozen: boolean) => Promise<string | null>,
    readonly label = 'a process'
  ) {
    void handle.done.then(() => this.deliver('ended'))
  }

  get isEnded(): boolean {
    return this.ended || this.flooded
  }

  /** Why this process broke the turn protocol, or null. */
  get failure(): string | null {
    return this.flooded
      ? `the ${this.label} process sent more than ${MAX_QUEUED_TURN_EVENTS} turn events without being given a turn`
      : null
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
      w(this.flooded ? 'ended' : state)
    } else if (state !== 'ended' && this.queue.length >= MAX_QUEUED_TURN_EVENTS) this.flooded = true
    else this.queue.push(state)
  }

  /** The process's next state: the oldest one not yet read, else the next to come; `ended` once it flooded. */
  next(): Promise<TurnState> {
    if (this.flooded) return Promise.resolve('ended')
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

  /** Ends the process after `ms` unless it ended (its tree killed): a block whose turns broke ends at once. */
  stopAfter(ms: number): void {
    if (this.ended) return
    const timer = setTimeout(() => this.handle.stop?.(), ms)
    timer.unref()
    void this.handle.done.then(() => clearTimeout(timer))
  }

  /** Why it ended without finishing its turns, or null when its own exit says so (a failure, a kill). */
  async whyEnded(): Promise<string | null> {
    const flood = this.failure
    if (flood !== null) return flood
    const r = await this.handle.done
    const clean = r.exitCode === 0 && !r.timedOut && !r.cancelled && r.channelError === null && !r.spawnError
    return clean
      ? `the ${this.label} process exited during its turns without saying done (exit code 0; it measured only part of the block)`
      : null
  }
}

/**
 * Runs one block's turns: waits until every process is prepared (its first `wait`), then gives the GPU to
 * each in turn, first in the order they got ready, the order reversed every round (A B, B A, …); before each
 * turn every other container is frozen and the one taking it thawed. A process that is done leaves the
 * rotation. Anything else ends the block at once, every process killed, and names the process that broke it:
 * one that ends without `done` (exited, failed, killed), floods `turn` events, still asks after MAX_TURNS, or
 * holds the block past `timeoutMs` (run-timeout bounds a block, not only each process), and a freeze that
 * fails. Resolves to null, or why the turns stopped and whose process stopped them.
 */
export async function takeTurns(
  gates: readonly TurnGate[],
  timeoutMs = Number.POSITIVE_INFINITY
): Promise<TurnStop | null> {
  let stopped: TurnStop | null = null
  try {
    stopped = await rotate(gates, timeoutMs)
  } finally {
    // Thawed before their input ends: a frozen process could neither read it nor exit.
    const thawed = await Promise.all(gates.map(g => g.setFrozen(false)))
    for (const g of gates) g.end()
    if (stopped === null) {
      const t = thawed.findIndex(x => x !== null)
      const reason = thawed[t]
      if (reason !== undefined && reason !== null) stopped = { reason, gate: t }
    }
    // Their input is at its end: a process that keeps running anyway is killed after a short grace.
    if (stopped !== null) for (const g of gates) g.stopAfter(STOP_GRACE_MS)
  }
  return stopped
}

const LATE = Symbol('late')

async function rotate(gates: readonly TurnGate[], timeoutMs: number): Promise<TurnStop | null> {
  const deadline = Date.now() + timeoutMs
  const at = (g: TurnGate): number => gates.indexOf(g)
  const late = (g: TurnGate | null): TurnStop => ({
    reason: `the block's turns ran past run-timeout (${Math.round(timeoutMs / 1000)} s)${g ? `: the ${g.label} process kept asking for turns or held one` : ''}`,
    gate: g ? at(g) : null
  })
  // The next state, or LATE at the block's deadline (a frozen process's own timer may never fire first).
  const nextOf = async (g: TurnGate): Promise<TurnState | typeof LATE> => {
    if (!Number.isFinite(timeoutMs)) return g.next()
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        g.next(),
        new Promise<typeof LATE>(resolve => {
          timer = setTimeout(() => resolve(LATE), Math.max(0, deadline - Date.now()))
          timer.unref()
        })
      ])
    } finally {
      clearTimeout(timer)
    }
  }
  const ended = async (g: TurnGate): Promise<TurnStop> => ({ reason: await g.whyEnded(), gate: at(g) })
  // The order in which the processes got ready (their first `wait`, after their warm-up) opens the first round.
  const ready: TurnGate[] = []
  const first = await Promise.all(
    gates.map(async g => {
      const s = await nextOf(g)
      ready.push(g)
      return s
    })
  )
  const gone = first.findIndex(s => s === 'ended')
  const goneGate = gates[gone]
  if (goneGate !== undefined) return ended(goneGate)
  const slow = first.findIndex(s => s === LATE)
  const slowGate = gates[slow]
  if (slowGate !== undefined) return late(slowGate)
  // The process that got ready first measures first, right after the other's warm-up: every first request
  // then follows another process's work on the GPU, the decode state that turns give. The one ready last going
  // first ran its first request after its own warm-up alone, the other's long over: the slow level (32 of 42
  // container processes that went first on 2 and 4 x H100, 1 of 76 native ones, whose container partner is
  // the later to start; docs/evidence/2026-11-27-layouts-10.md).
  let active = ready.filter(g => first[gates.indexOf(g)] === 'wait')
  // Every container frozen from the start, so the first request of each arm follows a freeze or a thaw alike,
  // whichever arm goes first.
  const frozen = await handOver(gates, active, null)
  if (frozen !== null) return frozen
  const taken = new Map<TurnGate, number>()
  for (let round = 0, given = 0; active.length > 0 && given < MAX_TURNS; round++) {
    const order = round % 2 === 0 ? [...active] : [...active].reverse()
    for (const g of order) {
      if (Date.now() >= deadline) return late(mostTurns(active, taken))
      const stopped = await handOver(gates, active, g)
      if (stopped !== null) return stopped
      g.give()
      given++
      taken.set(g, (taken.get(g) ?? 0) + 1)
      const state = await nextOf(g)
      if (state === LATE) return late(g)
      if (state === 'wait') continue
      if (state === 'ended') return ended(g)
      active = active.filter(x => x !== g)
    }
  }
  if (active.length === 0) return null
  // Still asking after MAX_TURNS: the process that took the most is the one that never says done.
  const most = mostTurns(active, taken)
  return {
    reason: `the ${most.label} process still asked for turns after ${MAX_TURNS} (it must say done when it has measured)`,
    gate: at(most)
  }
}

/** The process of `active` that took the most turns (the one that keeps asking). */
function mostTurns(active: readonly TurnGate[], taken: ReadonlyMap<TurnGate, number>): TurnGate {
  return must(
    [...active].sort((a, b) => (taken.get(b) ?? 0) - (taken.get(a) ?? 0))[0],
    'mostTurns is asked of active processes only'
  )
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
): Promise<TurnStop | null> {
  const others = gates.filter(g => g !== next && !g.isEnded)
  const froze = await Promise.all(others.map(async g => ({ gate: g, why: await g.setFrozen(true) })))
  const hit = froze.find(f => f.why !== null && active.includes(f.gate))
  let failed: string | null = hit === undefined ? null : hit.why
  let who = hit === undefined ? null : hit.gate
  if (failed === null && next !== null && !next.isEnded) {
    failed = await next.setFrozen(false)
    who = next
  }
  return failed === null
    ? null
    : {
        reason: `${failed}: a container's other processes would run during the other arm's turns (turns need the runtime's pause; set ${setting('turns', 'false')} to measure each process on its own)`,
        gate: who ? gates.indexOf(who) : null
      }
}
