/**
 * Power limits for a power-cap sweep (seed 002: the energy-delay-optimal cap differs by environment).
 * Setting one is a host-wide change that outlives this process, so the original limits are written to
 * a restore file before the first change and put back after the sweep — on success, failure and cancel —
 * and a file left behind by a killed check is restored by the next check or the action's post step.
 * Success of `-pl` is judged by its exit code and a read-back of power.limit, never by its wording.
 */
import * as fs from 'node:fs'
import { Inputs } from '../types/inputs.js'
import { InputError, getErrorMessage } from '../util/errors.js'
import type { GpuFacts } from '../preflight/index.js'
import { queryGpuArgs, runNvidiaSmi, setPowerLimitArgs } from '../tools/nvidia-smi.js'
import { firstLine } from '../util/text.js'
import type { Lane } from '../types/index.js'
import { GPU_UUID, readRestoreFile, writeRestoreFile, writerAlive, type PresentGpu } from './restore-file.js'

export interface OriginalLimit {
  gpu: number
  uuid: string | null
  limit_w: number
}

export interface PowerLimiterOptions {
  nvidiaSmi?: string
  /** Where the original limits are kept until restored: restoreFileFor(uuids), outside the tree. */
  restoreFile: string
  /** For tests: the effective user id (default process.geteuid()). */
  euid?: number | null
}

/** Every cap must be settable on every lane's GPU: checked against power.min_limit / power.max_limit. */
export function validateCaps(
  caps: readonly number[],
  lanes: readonly Lane[],
  facts: readonly GpuFacts[]
): void {
  for (const lane of lanes) {
    const f = facts.find(g => g.index === lane.index)
    const lo = f?.power_min_limit_w ?? null
    const hi = f?.power_max_limit_w ?? null
    if (lo === null || hi === null) continue
    for (const cap of caps)
      if (cap < lo || cap > hi)
        throw new InputError(
          Inputs.PowerCaps,
          caps.join(','),
          `watts within GPU ${lane.index}'s range ${lo}–${hi} W (nvidia-smi power.min_limit/power.max_limit); ${cap} W is outside it`
        )
  }
}

/** The only values that reach `nvidia-smi -i`: a GPU UUID, or a whole-number index (never an option). */
function gpuSelector(l: { gpu: number; uuid: string | null }): string {
  if (l.uuid !== null && GPU_UUID.test(l.uuid)) return l.uuid
  if (Number.isInteger(l.gpu) && l.gpu >= 0 && l.gpu < 1024) return String(l.gpu)
  throw new InputError(Inputs.PowerCaps, String(l.uuid ?? l.gpu), 'a GPU UUID (GPU-…) or index')
}

/** GPUs present now and their power-limit ranges, for checking a restore file. */
export async function presentGpus(tool: string): Promise<PresentGpu[]> {
  const r = await runNvidiaSmi(tool, queryGpuArgs(['uuid', 'power.min_limit', 'power.max_limit']))
  if (r.exitCode !== 0) return []
  const out: PresentGpu[] = []
  for (const line of r.stdout.split('\n')) {
    const [uuid, lo, hi] = line.split(',').map(x => x.trim())
    const min = Number.parseFloat(lo ?? '')
    const max = Number.parseFloat(hi ?? '')
    if (uuid && GPU_UUID.test(uuid) && Number.isFinite(min) && Number.isFinite(max))
      out.push({ uuid, min_w: min, max_w: max })
  }
  return out
}

async function readLimit(tool: string, selector: string): Promise<number | null> {
  const r = await runNvidiaSmi(tool, queryGpuArgs(['power.limit'], { select: selector }))
  const v = Number.parseFloat(r.stdout.trim())
  return r.exitCode === 0 && Number.isFinite(v) ? v : null
}

/** Sets one GPU's limit and reads it back; returns an error sentence or null. */
async function setLimit(
  tool: string,
  l: { gpu: number; uuid: string | null },
  watts: number
): Promise<string | null> {
  const r = await runNvidiaSmi(tool, setPowerLimitArgs(gpuSelector(l), watts))
  if (r.exitCode !== 0)
    return `nvidia-smi -i ${gpuSelector(l)} -pl ${watts} failed (exit ${r.exitCode}): ${firstLine(r.stdout + r.stderr) || 'no output'}`
  const now = await readLimit(tool, gpuSelector(l))
  if (now === null || Math.abs(now - watts) > 1)
    return `GPU ${l.gpu}'s power limit reads ${now ?? 'unknown'} W after setting ${watts} W`
  return null
}

/**
 * Puts back every limit of a restore file written by this tool (HMAC, schema, GPUs present, limits in
 * range: execute/restore-file.ts); the file goes only when all of them are back. null when there is none.
 */
export async function restoreFromFile(
  file: string,
  nvidiaSmi = 'nvidia-smi',
  present?: readonly PresentGpu[]
): Promise<{ restored: OriginalLimit[]; failures: string[] } | null> {
  const gpus = present ?? (fs.existsSync(file) ? await presentGpus(nvidiaSmi) : [])
  const saved = readRestoreFile(file, gpus)
  if (saved.status === 'missing') return null
  if (saved.status === 'refused')
    return { restored: [], failures: [`did not act on ${file}: ${saved.reason}`] }
  // A sweep still running (another check on this host) owns its file.
  if (writerAlive(saved.pid)) return null
  const r = await restoreLimits(nvidiaSmi, saved.limits)
  if (r.failures.length === 0) fs.rmSync(file, { force: true })
  return r
}

async function restoreLimits(
  tool: string,
  limits: readonly OriginalLimit[]
): Promise<{ restored: OriginalLimit[]; failures: string[] }> {
  const restored: OriginalLimit[] = []
  const failures: string[] = []
  for (const l of limits) {
    const error = await setLimit(tool, l, l.limit_w)
    if (error) failures.push(error)
    else restored.push(l)
  }
  return { restored, failures }
}

export class PowerLimiter {
  private changed = false

  private constructor(
    private readonly tool: string,
    private readonly restoreFile: string,
    readonly originals: OriginalLimit[]
  ) {}

  /**
   * Reads the current limits and writes the restore file; a reason string when the sweep cannot run here
   * (not root, limits unreadable, restore file unwritable) — the check then goes on at the current limits.
   */
  static async create(lanes: readonly Lane[], opts: PowerLimiterOptions): Promise<PowerLimiter | string> {
    const tool = opts.nvidiaSmi ?? 'nvidia-smi'
    const euid = opts.euid !== undefined ? opts.euid : (process.geteuid?.() ?? null)
    if (euid !== 0)
      return (
        `setting a power limit needs root (nvidia-smi -pl), and this runner runs as user id ${euid ?? 'unknown'}; ` +
        'run the runner as root, or measure caps on a host where it is'
      )
    const originals: OriginalLimit[] = []
    for (const lane of lanes) {
      if (lane.uuid === null || !GPU_UUID.test(lane.uuid))
        return `GPU ${lane.index} has no UUID from nvidia-smi, so its limit could not be put back safely after a crash`
      const limit = await readLimit(tool, gpuSelector({ gpu: lane.index, uuid: lane.uuid }))
      if (limit === null) return `cannot read GPU ${lane.index}'s current power limit with nvidia-smi`
      originals.push({ gpu: lane.index, uuid: lane.uuid, limit_w: limit })
    }
    try {
      writeRestoreFile(
        opts.restoreFile,
        originals.map(o => ({ gpu: o.gpu, uuid: o.uuid ?? '', limit_w: o.limit_w }))
      )
    } catch (error) {
      return `cannot write ${opts.restoreFile} (needed to put the limits back after a crash): ${getErrorMessage(error)}`
    }
    return new PowerLimiter(tool, opts.restoreFile, originals)
  }

  /** Sets `watts` on every GPU; an error sentence when one refused (the caller restores and stops). */
  async apply(watts: number): Promise<string | null> {
    for (const l of this.originals) {
      this.changed = true
      const error = await setLimit(this.tool, l, watts)
      if (error) return error
    }
    return null
  }

  /** Puts every original limit back; safe to call more than once. The restore file stays until it worked. */
  async restore(): Promise<{ restored: boolean; failures: string[] }> {
    const { failures } = this.changed ? await restoreLimits(this.tool, this.originals) : { failures: [] }
    if (failures.length === 0) {
      this.changed = false
      fs.rmSync(this.restoreFile, { force: true })
    }
    return { restored: failures.length === 0, failures }
  }
}
