/**
 * Killing a child together with everything it started, including descendants that left its process
 * group with `setsid` (a process group kill misses those). Two nets, both cheap and both needed:
 * - descendants are found by walking /proc parent links while the child runs (polled), remembered by
 *   PID + start time so a reused PID is never killed;
 * - every child gets a random marker in its environment; at kill time /proc/<pid>/environ is scanned for it,
 *   which also catches a double-forked daemon that was reparented before a poll saw it.
 * Every live tree is registered, so a forced exit (second signal) kills them synchronously too.
 */
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'

/** Name of the environment variable that marks a process tree. */
export const TREE_MARKER_VAR = 'GPU_OVERHEAD_TREE'
const POLL_MS = 200
/** Bounds the /proc scans (a host never has more processes than this in practice). */
const MAX_PROC_ENTRIES = 200_000
const PROC = '/proc'

interface ProcInfo {
  ppid: number
  pgid: number
  start: string
}

/** Fields 4 (ppid), 5 (pgrp) and 22 (starttime) of /proc/<pid>/stat; the command name may hold spaces. */
function procInfo(pid: number): ProcInfo | null {
  let stat: string
  try {
    stat = fs.readFileSync(`${PROC}/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ppid = Number(fields[1])
  const pgid = Number(fields[2])
  const start = fields[19] ?? ''
  return Number.isFinite(ppid) ? { ppid, pgid, start } : null
}

function listPids(): number[] {
  let names: string[]
  try {
    names = fs.readdirSync(PROC)
  } catch {
    return []
  }
  const pids: number[] = []
  for (const n of names) {
    if (pids.length >= MAX_PROC_ENTRIES) break
    if (/^\d+$/.test(n)) pids.push(Number(n))
  }
  return pids
}

function hasMarker(pid: number, needle: string): boolean {
  try {
    return fs.readFileSync(`${PROC}/${pid}/environ`).includes(needle)
  } catch {
    return false
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig)
  } catch {
    // Already gone, or not ours to signal.
  }
}

const live = new Set<ProcessTree>()

export class ProcessTree {
  /** Descendants seen so far, PID → start time. */
  private readonly seen = new Map<number, string>()
  private timer: NodeJS.Timeout | null = null
  private rootPid: number | null = null
  readonly marker = randomBytes(12).toString('hex')

  /** The environment entry that marks this tree: add it to the child's environment. */
  get envEntry(): Record<string, string> {
    return { [TREE_MARKER_VAR]: this.marker }
  }

  /** Start watching `pid` (the leader of its own process group: spawn with detached: true). */
  watch(pid: number | undefined): void {
    if (pid === undefined) return
    this.rootPid = pid
    live.add(this)
    this.poll()
    this.timer = setInterval(() => this.poll(), POLL_MS)
    this.timer.unref()
  }

  /** Remembers every process whose parent chain reaches the root or an already known descendant. */
  private poll(): void {
    if (this.rootPid === null) return
    const parents = new Map<number, ProcInfo>()
    for (const pid of listPids()) {
      const info = procInfo(pid)
      if (info) parents.set(pid, info)
    }
    const known = new Set<number>([this.rootPid, ...this.seen.keys()])
    let grew = true
    // Fixed point over the parent links; bounded by the process count.
    for (let round = 0; grew && round < parents.size; round++) {
      grew = false
      for (const [pid, info] of parents)
        if (!known.has(pid) && known.has(info.ppid)) {
          known.add(pid)
          this.seen.set(pid, info.start)
          grew = true
        }
    }
  }

  /** Signals the process group, every descendant seen, and every process carrying the marker. */
  kill(sig: NodeJS.Signals): void {
    if (this.rootPid === null) return
    this.poll()
    signal(-this.rootPid, sig)
    signal(this.rootPid, sig)
    for (const [pid, start] of this.seen) if (procInfo(pid)?.start === start) signal(pid, sig)
    const needle = `${TREE_MARKER_VAR}=${this.marker}`
    for (const pid of listPids()) if (pid !== process.pid && hasMarker(pid, needle)) signal(pid, sig)
  }

  /** True while any process of the tree (root group, seen descendants, marked processes) is alive. */
  alive(): boolean {
    if (this.rootPid === null) return false
    for (const [pid, start] of this.seen) if (procInfo(pid)?.start === start) return true
    const needle = `${TREE_MARKER_VAR}=${this.marker}`
    return listPids().some(pid => pid !== process.pid && hasMarker(pid, needle))
  }

  /** Stop polling (the caller has killed the tree, or it ended). */
  release(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    live.delete(this)
  }
}

/** Forced exit: SIGKILL every tree still registered (synchronous, safe in an exit path). */
export function killAllTrees(): number {
  const trees = [...live]
  for (const t of trees) {
    t.kill('SIGKILL')
    t.release()
  }
  return trees.length
}
