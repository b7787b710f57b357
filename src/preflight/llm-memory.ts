/**
 * Will the llm workload fit? Its memory is estimated from the preset's shape (parameters × bytes per value,
 * the KV cache for batch × (prompt + output) tokens, the prefill logits, a framework margin) and compared with
 * what the process can get: MemAvailable on device cpu (capped by container-memory), the GPU's free memory on
 * device gpu. A preset that cannot fit is refused before anything starts, with the memory it needs, instead of
 * being killed by the kernel minutes later ("killed by SIGKILL"). Pure but for the /proc/meminfo reader.
 */
import * as fs from 'node:fs'
import type { LlmPreset } from '../config/index.js'
import type { Device, PreflightResult } from '../types/index.js'
import { minOf } from '../util/arrays.js'
import { setting } from '../util/setting-name.js'

/** The presets' shapes and the device defaults, as workloads/llm.py has them (a test keeps the two equal). */
export const LLM_PRESETS: Record<
  LlmPreset,
  { dim: number; layers: number; heads: number; kv_heads: number; ffn: number; vocab: number }
> = {
  tiny: { dim: 64, layers: 2, heads: 4, kv_heads: 2, ffn: 172, vocab: 256 },
  '1b': { dim: 2048, layers: 22, heads: 32, kv_heads: 4, ffn: 5632, vocab: 32000 },
  '8b': { dim: 4096, layers: 32, heads: 32, kv_heads: 8, ffn: 14336, vocab: 128256 }
}
export const LLM_DEVICE_DEFAULTS: Record<
  Device,
  { bytes: number; batch: number; prompt: number; output: number }
> = {
  gpu: { bytes: 2, batch: 8, prompt: 512, output: 128 }, // bf16
  cpu: { bytes: 4, batch: 2, prompt: 16, output: 8 } // fp32
}
/** Allocator slack, temporaries and the framework itself: a fraction on top, plus a floor (CUDA context, torch). */
const MARGIN_FRACTION = 0.1
const MARGIN_FLOOR_BYTES = 512 * 1024 ** 2
const GIB = 1024 ** 3
const MIB = 1024 ** 2

export interface LlmMemory {
  weights: number
  kv: number
  logits: number
  total: number
}

/** The same count as workloads/llm.py's param_count. */
export function llmParams(preset: LlmPreset): number {
  const c = LLM_PRESETS[preset]
  const hd = c.dim / c.heads
  const perLayer =
    c.dim * (c.heads + 2 * c.kv_heads) * hd + c.heads * hd * c.dim + 3 * c.dim * c.ffn + 2 * c.dim
  return 2 * c.vocab * c.dim + c.layers * perLayer + c.dim
}

export function llmMemory(preset: LlmPreset, device: Device): LlmMemory {
  const c = LLM_PRESETS[preset]
  const d = LLM_DEVICE_DEFAULTS[device]
  const tokens = d.prompt + d.output
  const weights = llmParams(preset) * d.bytes
  const kv = c.layers * 2 * d.batch * tokens * c.kv_heads * (c.dim / c.heads) * d.bytes
  const logits = d.batch * d.prompt * c.vocab * d.bytes
  const sum = weights + kv + logits
  return { weights, kv, logits, total: sum + Math.max(MARGIN_FLOOR_BYTES, sum * MARGIN_FRACTION) }
}

/** MemAvailable from /proc/meminfo text, bytes; null when absent. */
export function memAvailable(meminfo: string): number | null {
  const m = /^MemAvailable:\s+(\d+)\s+kB$/m.exec(meminfo)
  return m?.[1] ? Number(m[1]) * 1024 : null
}

export function readMemAvailable(file = '/proc/meminfo'): number | null {
  try {
    return memAvailable(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

const UNITS: Record<string, number> = { '': 1, k: 1024, m: MIB, g: GIB }

/** Docker's memory size (`8g`, `512m`) in bytes, as config validated it; null when it does not parse. */
export function memoryBytes(size: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)$/.exec(size.trim().toLowerCase())
  return m?.[1] ? Number(m[1]) * (UNITS[m[2] ?? ''] ?? 1) : null
}

const gib = (bytes: number): string => `${(bytes / GIB).toFixed(1)} GiB`

/** Free memory of the emptiest-enough GPU: total minus what compute processes hold, the smallest over the GPUs used. */
export function gpuFreeBytes(
  gpus: readonly {
    memory_total_mib: number | null
    compute_processes: { used_memory_mib: number | null }[] | null
  }[]
): number | null {
  const free = gpus.flatMap(g =>
    g.memory_total_mib === null
      ? []
      : [
          (g.memory_total_mib -
            (g.compute_processes ?? []).reduce((a, p) => a + (p.used_memory_mib ?? 0), 0)) *
            MIB
        ]
  )
  return free.length ? minOf(free) : null
}

export function checkLlmMemory(args: {
  preset: LlmPreset
  device: Device
  /** Bytes the workload process can use; null when unknown (the check is then skipped, not guessed). */
  available: number | null
  /** Where `available` comes from, for the message (e.g. "MemAvailable", "GPU 0 free memory"). */
  source: string
  /** llm processes that hold their memory at once (turns: every arm's process of a block); default 1. */
  processes?: number
}): PreflightResult {
  const one = llmMemory(args.preset, args.device)
  const k = Math.max(1, args.processes ?? 1)
  const need = { ...one, total: one.total * k }
  const each = `${gib(one.weights)} weights + ${gib(one.kv)} KV cache + ${gib(one.logits)} logits + margin`
  const parts = k === 1 ? each : `${k} processes at once (turns) × (${each})`
  const name = 'llm-memory'
  if (args.available === null)
    return {
      name,
      status: 'skip',
      message: `llm preset ${args.preset} needs about ${gib(need.total)}; ${args.source} unknown`,
      fix: null
    }
  const available = args.available
  if (need.total > available)
    return {
      name,
      status: 'fail',
      message: `llm preset ${args.preset} needs about ${gib(need.total)} (${parts}) on ${args.device}, but only ${gib(args.available)} is available (${args.source}); not started`,
      fix: `use a smaller ${setting('llm-preset')} (${(Object.keys(LLM_PRESETS) as LlmPreset[]).filter(p => llmMemory(p, args.device).total * k <= available).join(', ') || 'none fits'})${k > 1 ? `, ${setting('turns', 'false')} (one process at a time)` : ''} or free memory`
    }
  return {
    name,
    status: 'pass',
    message: `llm preset ${args.preset}: about ${gib(need.total)} needed${k > 1 ? ` (${k} processes at once, turns)` : ''}, ${gib(args.available)} available (${args.source})`,
    fix: null
  }
}
