/**
 * Blocked pooling. Runs pooled from several blocks (GPUs of one host, hosts of one fleet group) each ran
 * every arm equally often, so a block that is uniformly faster or slower is noise to remove, not signal:
 * each block's values — every arm alike — are scaled by grand median / block median, per workload, params
 * and metric. Each block's own ratio between arms (the overhead) is kept exactly; only the offset between
 * blocks goes. A block missing an arm of that metric is left as measured: its median would carry the
 * overhead itself. The GPU UUID is dropped: it differs between blocks by design (unknown never counts as a
 * difference), while model, driver and image still must match.
 */
import { median } from 'simple-statistics'
import type { Fingerprint } from '../types/index.js'
import { canonicalParams } from '../util/params.js'

interface BlockRow {
  workload: string
  environment: string
  metric: string
  value: number
  params: Record<string, unknown>
  fingerprint: Fingerprint
}

export function blockScaled<T extends BlockRow>(rows: readonly T[], blockOf: (row: T) => string | null): T[] {
  const metricKey = (r: T): string => `${r.workload}\u0000${canonicalParams(r.params)}\u0000${r.metric}`
  const envs = new Map<string, Set<string>>()
  type Block = { values: number[]; envs: Set<string> }
  const blocks = new Map<string, Map<string, Block>>()
  for (const r of rows) {
    const block = blockOf(r)
    if (block === null) continue
    const k = metricKey(r)
    let all = envs.get(k)
    if (!all) envs.set(k, (all = new Set<string>()))
    all.add(r.environment)
    let byBlock = blocks.get(k)
    if (!byBlock) blocks.set(k, (byBlock = new Map<string, Block>()))
    let b = byBlock.get(block)
    if (!b) byBlock.set(block, (b = { values: [], envs: new Set() }))
    b.values.push(r.value)
    b.envs.add(r.environment)
  }
  const factors = new Map<string, number>()
  for (const [k, byBlock] of blocks) {
    if (byBlock.size < 2) continue
    const complete = [...byBlock.entries()].filter(([, b]) => b.envs.size === envs.get(k)!.size)
    if (complete.length < 2) continue
    const grand = median(complete.flatMap(([, b]) => b.values))
    for (const [block, b] of complete) {
      const own = median(b.values)
      if (own > 0 && grand > 0) factors.set(`${k}\u0000${block}`, grand / own)
    }
  }
  return rows.map(r => {
    const block = blockOf(r)
    if (block === null) return r
    const factor = factors.get(`${metricKey(r)}\u0000${block}`) ?? 1
    return { ...r, value: r.value * factor, fingerprint: { ...r.fingerprint, gpu_uuid: null } }
  })
}
