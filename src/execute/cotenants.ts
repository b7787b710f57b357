/**
 * Co-tenants of a measured process (types/cotenants.ts): the container's other processes from the
 * workload's `peers` event (untrusted: the image wrote it — validated, clipped, secrets masked), and
 * the other compute processes on its GPU from nvidia-smi, read on the host during the measured region.
 * Merged per arm for the explainer.
 */
import { readFileSync } from 'node:fs'
import type { CotenantList, CotenantProcess, CotenantScope, Fingerprint } from '../types/index.js'
import { NVIDIA_SMI, computeAppsNamedArgs, runNvidiaSmi } from '../tools/nvidia-smi.js'
import { maxOf } from '../util/arrays.js'
import { first, must } from '../util/must.js'
import { plainText } from '../util/text.js'

/** Processes kept per list (the workload reports at most 16; a GPU rarely has more). */
export const MAX_COTENANTS = 16
export const MAX_NAME_CHARS = 32
export const MAX_CMDLINE_CHARS = 160
/** Bytes of /proc/PID/cmdline or status read on the host. */
const MAX_PROC_READ = 4096
/** A sane ceiling for CPU % of one process (a 1,024-core host fully busy). */
const MAX_CPU_PCT = 102_400

const PEERS_SCOPE: CotenantScope = 'pid-namespace'

/** Printable, one line, clipped, secrets masked: what the image wrote may hold anything (util/text.ts). */
const clean = (text: string, max: number): string => plainText(text, max)

function finiteIn(v: unknown, lo: number, hi: number): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi ? v : null
}

export function unavailable(scope: CotenantScope, why: string): CotenantList {
  return { scope, unavailable: why, total: 0, processes: [] }
}

/** The `peers` event of a container-arm workload, validated. */
export function peersList(event: Record<string, unknown>): CotenantList {
  if (event['scope'] !== PEERS_SCOPE) return unavailable(PEERS_SCOPE, 'peers event of an unknown scope')
  if (typeof event['unavailable'] === 'string')
    return unavailable(PEERS_SCOPE, clean(event['unavailable'], MAX_CMDLINE_CHARS))
  const raw = Array.isArray(event['processes']) ? (event['processes'] as unknown[]) : []
  const processes: CotenantProcess[] = []
  for (const p of raw.slice(0, MAX_COTENANTS)) {
    if (typeof p !== 'object' || p === null) continue
    const o = p as Record<string, unknown>
    const pid = finiteIn(o['pid'], 1, 2 ** 31)
    if (pid === null || !Number.isInteger(pid)) continue
    processes.push({
      pid,
      name: typeof o['name'] === 'string' ? clean(o['name'], MAX_NAME_CHARS) : '?',
      cmdline: typeof o['cmdline'] === 'string' ? clean(o['cmdline'], MAX_CMDLINE_CHARS) : null,
      cpu_pct: finiteIn(o['cpu_pct'], 0, MAX_CPU_PCT),
      gpu_mem_mib: null,
      uses_gpu: typeof o['uses_gpu'] === 'boolean' ? o['uses_gpu'] : null
    })
  }
  const total = finiteIn(event['total'], 0, 2 ** 31)
  return {
    scope: PEERS_SCOPE,
    unavailable: null,
    total: Math.max(total !== null ? Math.floor(total) : 0, processes.length),
    processes
  }
}

function readProc(path: string): string | null {
  try {
    const buf = readFileSync(path)
    return buf.subarray(0, MAX_PROC_READ).toString('utf8')
  } catch {
    return null
  }
}

/** The PID a host process has in its innermost PID namespace (/proc/PID/status NSpid), or null. */
function innermostPid(proc: string, pid: number): number | null {
  const status = readProc(`${proc}/${pid}/status`)
  const line = status?.split('\n').find(l => l.startsWith('NSpid:'))
  const last = line?.trim().split(/\s+/).at(-1)
  return last !== undefined && /^\d+$/.test(last) ? Number(last) : null
}

export interface GpuCotenantsInput {
  /** nvidia-smi's `--query-compute-apps=gpu_uuid,pid,process_name,used_memory` CSV. */
  csv: string
  gpuUuid: string
  /** The workload's own PID as it saw it (its `env` event): in its namespace, not the host's. */
  ownPid: number | null
  /**
   * The PIDs the check's other processes on this GPU saw for themselves (the other arm's, taking turns):
   * the check's own, never a co-tenant. Matched like ownPid: a host PID, or the PID inside a container.
   */
  checkPids?: readonly number[]
  /** Where the host's /proc is (tests). */
  proc?: string
}

/** The other compute processes on the workload's GPU: every app on it but the workload itself. */
export function gpuCotenants(input: GpuCotenantsInput): CotenantList {
  const proc = input.proc ?? '/proc'
  const others: CotenantProcess[] = []
  let total = 0
  for (const line of input.csv.split(/\r?\n/).slice(0, 4 * MAX_COTENANTS * MAX_COTENANTS)) {
    const parts = line.split(',').map(s => s.trim())
    const [uuid, pidText] = parts
    if (parts.length < 4 || uuid !== input.gpuUuid || pidText === undefined || !/^\d+$/.test(pidText))
      continue
    const pid = Number(pidText)
    // The workload: its host PID (native) or the PID its container namespace gave it; so for the check's others.
    const own = [input.ownPid, ...(input.checkPids ?? [])]
    if (own.includes(pid)) continue
    const inner = innermostPid(proc, pid)
    if (own.includes(inner)) continue
    // A process this host cannot look into might be the workload itself (in a container, under another
    // PID): listing it would blame the container arm for its own workload. Say so instead.
    if (inner === null || input.ownPid === null)
      return unavailable(
        'gpu',
        `cannot tell the workload from GPU process ${pid}: its /proc status is not readable here`
      )
    total++
    if (others.length >= MAX_COTENANTS) continue
    const name = parts.slice(2, -1).join(',')
    const mem = Number(parts.at(-1))
    const cmd = readProc(`${proc}/${pid}/cmdline`)
    others.push({
      pid,
      name: clean(name.split('/').at(-1) ?? name, MAX_NAME_CHARS),
      cmdline: cmd === null ? null : clean(cmd.split('\0').filter(Boolean).join(' '), MAX_CMDLINE_CHARS),
      cpu_pct: null,
      gpu_mem_mib: Number.isFinite(mem) ? mem : null,
      uses_gpu: true
    })
  }
  return { scope: 'gpu', unavailable: null, total, processes: others }
}

export interface GpuProbeInput {
  nvidiaSmi: string
  gpuUuid: string | null
  ownPid: number | null
  checkPids?: readonly number[]
}

/** Reads the GPU's compute processes now; never throws (what went wrong is the list's `unavailable`). */
export async function probeGpuCotenants(input: GpuProbeInput): Promise<CotenantList> {
  if (input.gpuUuid === null) return unavailable('gpu', 'the GPU of this run is unknown')
  const res = await runNvidiaSmi(input.nvidiaSmi, computeAppsNamedArgs())
  if (res.exitCode === 127) return unavailable('gpu', `${input.nvidiaSmi} not found`)
  if (res.exitCode !== 0)
    return unavailable('gpu', `nvidia-smi --query-compute-apps failed (exit ${res.exitCode})`)
  return gpuCotenants({
    csv: res.stdout,
    gpuUuid: input.gpuUuid,
    ownPid: input.ownPid,
    checkPids: input.checkPids ?? []
  })
}

function key(p: CotenantProcess): string {
  return `${p.name}\u0000${p.cmdline ?? ''}`
}

const maxOrNull = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.max(a, b)

/**
 * One list per scope over an arm's processes: a co-tenant is the same name and command line, kept with
 * the most CPU and GPU memory it was seen using. Unavailable only when no process could read the list.
 */
export function mergeCotenants(lists: readonly CotenantList[]): CotenantList[] {
  const byScope = new Map<CotenantScope, CotenantList[]>()
  for (const l of lists) byScope.set(l.scope, [...(byScope.get(l.scope) ?? []), l])
  const out: CotenantList[] = []
  for (const [scope, group] of byScope) {
    const read = group.filter(l => l.unavailable === null)
    if (read.length === 0) {
      out.push(unavailable(scope, must(first(group).unavailable, 'no list of this scope was read')))
      continue
    }
    const procs = new Map<string, CotenantProcess>()
    for (const l of read)
      for (const p of l.processes) {
        const seen = procs.get(key(p))
        procs.set(
          key(p),
          seen
            ? {
                ...seen,
                cpu_pct: maxOrNull(seen.cpu_pct, p.cpu_pct),
                uses_gpu:
                  seen.uses_gpu === true || p.uses_gpu === true ? true : (seen.uses_gpu ?? p.uses_gpu),
                gpu_mem_mib: maxOrNull(seen.gpu_mem_mib, p.gpu_mem_mib)
              }
            : p
        )
      }
    const processes = [...procs.values()]
      .sort((a, b) => (b.cpu_pct ?? 0) - (a.cpu_pct ?? 0) || (b.gpu_mem_mib ?? 0) - (a.gpu_mem_mib ?? 0))
      .slice(0, MAX_COTENANTS)
    const total = Math.max(maxOf(read.map(l => l.total)), procs.size)
    out.push({ scope, unavailable: null, total, processes })
  }
  return out
}

/**
 * The runner's GPU probe for a check: nvidia-smi on the GPU of each measured process; on the CPU there is
 * no GPU to share, and the list says so. Both arms are probed alike, so its own brief cost is symmetric.
 */
export function gpuCotenantProbe(
  device: 'gpu' | 'cpu',
  nvidiaSmi = NVIDIA_SMI
): (fingerprint: Fingerprint, ownPid: number | null, checkPids?: readonly number[]) => Promise<CotenantList> {
  if (device === 'cpu') return () => Promise.resolve(unavailable('gpu', 'device cpu: no GPU in use'))
  return (fingerprint, ownPid, checkPids) =>
    probeGpuCotenants({ nvidiaSmi, gpuUuid: fingerprint.gpu_uuid, ownPid, checkPids: checkPids ?? [] })
}
