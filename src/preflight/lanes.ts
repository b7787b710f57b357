/**
 * Lanes: one per selected GPU, resolved once, in preflight (every later stage reads `PreflightOutcome.lanes`). On a multi-GPU host every planned run starts one process per lane at the
 * same time (seed 002's layout: one container per GPU), each pinned to its GPU, so both arms see the same
 * neighbours, heat and PCIe/NVLink traffic. A lane of `null` facts is the unpinned single-process case
 * (CPU, or GPU facts that could not be read).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import type { GpuFacts } from './gpu.js'
import type { Lane } from '../types/index.js'

export type { Lane } from '../types/index.js'

const DRIVER_PROC = '/proc/driver/nvidia/gpus'

/**
 * UUID → device minor number, from the driver's own `information` files. The minor is not always the
 * nvidia-smi index, so `--device /dev/nvidia<index>` could hand a container the wrong GPU.
 */
export function readDeviceMinors(root = DRIVER_PROC): Map<string, number> {
  const out = new Map<string, number>()
  let entries: string[]
  try {
    entries = fs.readdirSync(root)
  } catch {
    return out
  }
  for (const bus of entries) {
    let text: string
    try {
      text = fs.readFileSync(path.join(root, bus, 'information'), 'utf8')
    } catch {
      continue
    }
    const uuid = /^GPU UUID:\s*(\S+)/m.exec(text)?.[1]
    const minor = /^Device Minor:\s*(\d+)/m.exec(text)?.[1]
    if (uuid && minor !== undefined) out.set(uuid, Number(minor))
  }
  return out
}

const PINNABLE = /^(\d{1,3}|GPU-[0-9a-fA-F-]{36})$/

/**
 * The lanes of a GPU check. `gpus: all` takes every GPU nvidia-smi lists; a list picks by index or UUID
 * (unknown ones are an input error naming the GPUs there are). MIG is not split into lanes: a list with
 * MIG UUIDs, or a MIG-enabled GPU, keeps the single unpinned process that sees them all. GPUs of different models
 * are refused: pooling an H100 with an A100 would average two different machines.
 */
export function resolveLanes(
  gpus: 'all' | string[],
  facts: readonly GpuFacts[],
  minors: ReadonlyMap<string, number> = readDeviceMinors()
): Lane[] | null {
  if (facts.length === 0) return null
  if (gpus !== 'all' && !gpus.every(g => PINNABLE.test(g))) return null
  const known = (): string =>
    facts.map(f => `${f.index}${f.uuid ? ` (${f.uuid})` : ''}${f.name ? ` ${f.name}` : ''}`).join(', ')
  const picked: GpuFacts[] = []
  for (const sel of gpus === 'all' ? facts.map(f => String(f.index)) : gpus) {
    const f = /^\d+$/.test(sel)
      ? facts.find(g => g.index === Number(sel))
      : facts.find(g => g.uuid?.toLowerCase() === sel.toLowerCase())
    if (f === undefined) throw new InputError(Inputs.Gpus, sel, `all, or GPUs this host has: ${known()}`)
    if (picked.includes(f)) throw new InputError(Inputs.Gpus, sel, 'each GPU once')
    picked.push(f)
  }
  // A MIG-enabled GPU runs CUDA only through its instances: pinning the parent would leave no device.
  if (picked.some(f => /^enabled$/i.test(f.mig_mode ?? ''))) return null
  const models = [...new Set(picked.map(f => f.name ?? 'unknown'))]
  if (models.length > 1)
    throw new InputError(
      Inputs.Gpus,
      gpus === 'all' ? 'all' : gpus.join(','),
      `GPUs of one model (this selection mixes ${models.join(' and ')}; pick one model, e.g. ${picked
        .filter(f => f.name === picked[0]?.name)
        .map(f => f.index)
        .join(',')}, and run the check once per model)`
    )
  return picked.map(f => ({
    index: f.index,
    uuid: f.uuid,
    name: f.name,
    minor: f.uuid ? (minors.get(f.uuid) ?? null) : null
  }))
}

/** Short name for logs and tables: `GPU 1`. */
export function laneLabel(lane: Lane | null): string {
  return lane === null ? 'all GPUs' : `GPU ${lane.index}`
}
