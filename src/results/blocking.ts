/**
 * Blocked pooling. Runs pooled from several blocks (GPUs of one host, hosts of one fleet group) each ran
 * every arm, so a block that is uniformly faster or slower is noise to remove, not signal: each block's
 * values — every arm alike — are scaled by the geometric mean over arms of (arm's grand median / arm's
 * median in this block), per workload, params and metric. Each block's own ratio between arms (the overhead) is kept exactly; only the offset between
 * blocks goes. A block missing an arm of that metric is left as measured: its median would carry the
 * overhead itself. The GPU UUID is dropped: it differs between blocks by design (unknown never counts as a
 * difference), while model, driver and image still must match.
 */
import { median } from 'simple-statistics'
import type { Fingerprint } from '../types/index.js'
import { must } from '../util/must.js'
import { canonicalParams } from '../util/params.js'

interface BlockRow {
  workload: string
  environment: string
  metric: string
  value: number
  params: Record<string, unknown>
  fingerprint: Fingerprint
}

/** Per metric key, per block, per arm: the values measured there. */
export type BlockCells = Map<string, Map<string, Map<string, number[]>>>

/** One arm's values in a block that has every arm. */
function armValues(byEnv: Map<string, number[]>, env: string): number[] {
  return must(byEnv.get(env), 'a complete block has every arm')
}

/**
 * Each block's factor per metric key (`key\0block`), from its values arm by arm; shared by the rows of a check
 * (blockScaled) and the run groups of a results CSV (csv/gpu-pooling.ts), so both pool GPUs alike.
 */
export function blockFactors(blocks: BlockCells): Map<string, number> {
  const factors = new Map<string, number>()
  for (const [k, byBlock] of blocks) {
    if (byBlock.size < 2) continue
    const envs = new Set<string>()
    for (const byEnv of byBlock.values()) for (const env of byEnv.keys()) envs.add(env)
    const complete = [...byBlock.entries()].filter(([, byEnv]) => byEnv.size === envs.size)
    if (complete.length < 2) continue
    const grand = new Map<string, number>()
    for (const env of envs) grand.set(env, median(complete.flatMap(([, byEnv]) => armValues(byEnv, env))))
    for (const [block, byEnv] of complete) {
      let logSum = 0
      let ok = true
      for (const [env, values] of byEnv) {
        const own = median(values)
        const g = must(grand.get(env), 'grand holds every arm of a complete block')
        if (!(own > 0 && g > 0)) ok = false
        else logSum += Math.log(g / own)
      }
      if (ok) factors.set(`${k}\u0000${block}`, Math.exp(logSum / byEnv.size))
    }
  }
  return factors
}

export function blockScaled<T extends BlockRow>(rows: readonly T[], blockOf: (row: T) => string | null): T[] {
  const metricKey = (r: T): string => `${r.workload}\u0000${canonicalParams(r.params)}\u0000${r.metric}`
  // Per metric, per block, per arm: the values. A block's offset is read arm by arm (each arm against
  // itself in the other blocks), so a block that ran one arm more often than the other — a duet check
  // stopped after an odd number of blocks, a host that finished fewer runs — does not move the overhead.
  const blocks: BlockCells = new Map()
  for (const r of rows) {
    const block = blockOf(r)
    if (block === null) continue
    const k = metricKey(r)
    let byBlock = blocks.get(k)
    if (!byBlock) blocks.set(k, (byBlock = new Map<string, Map<string, number[]>>()))
    let byEnv = byBlock.get(block)
    if (!byEnv) byBlock.set(block, (byEnv = new Map<string, number[]>()))
    let values = byEnv.get(r.environment)
    if (!values) byEnv.set(r.environment, (values = []))
    values.push(r.value)
  }
  const factors = blockFactors(blocks)
  return rows.map(r => {
    const block = blockOf(r)
    if (block === null) return r
    const factor = factors.get(`${metricKey(r)}\u0000${block}`) ?? 1
    return { ...r, value: r.value * factor, fingerprint: { ...r.fingerprint, gpu_uuid: null } }
  })
}
