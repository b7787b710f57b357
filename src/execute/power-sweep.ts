/**
 * A power-cap sweep: the whole interleaved plan once per cap, in the order given, each cap set on every
 * GPU of the check first. The original limits go back in `finally` (success, failure, cancel); a sweep
 * that cannot start (not root, a limit the driver refuses) is skipped with its reason and the check runs
 * once at the current limits, so the rest of the check still happens.
 */
import type { Logger } from '../util/log.js'
import type { PowerCapSummary } from '../types/index.js'
import type { Lane } from '../types/index.js'
import { PowerLimiter } from './power-caps.js'
import type { ExecuteResult } from './runner.js'

export type SweepOutcome = Omit<PowerCapSummary, 'rows' | 'edp_optimal'>

export interface SweepOptions {
  caps: readonly number[]
  lanes: readonly Lane[]
  restoreFile: string
  nvidiaSmi?: string
  euid?: number | null
  logger: Logger
  signal?: AbortSignal
  /** Runs the plan once; `cap` null = at the current limits. */
  runPlan(cap: number | null): Promise<ExecuteResult>
}

export function mergeResults(results: readonly ExecuteResult[]): ExecuteResult {
  const reasons = results.map(r => r.incompleteReason).filter((r): r is string => r !== null)
  return {
    samples: results.flatMap(r => r.samples),
    runs: results.flatMap(r => r.runs),
    complete: results.every(r => r.complete),
    incompleteReason: reasons.length ? reasons.join('; ') : null,
    // Each pass decides its own prestart freeze: the same warning from two caps is said once.
    warnings: [...new Set(results.flatMap(r => r.warnings ?? []))]
  }
}

export async function sweepPowerCaps(
  opts: SweepOptions
): Promise<{ exec: ExecuteResult; power: SweepOutcome }> {
  const { caps, logger } = opts
  const skipped = async (reason: string): Promise<{ exec: ExecuteResult; power: SweepOutcome }> => {
    logger.warn(`power caps ${caps.join(', ')} W skipped: ${reason}; the check runs at the current limits`)
    return {
      exec: await opts.runPlan(null),
      power: { status: 'skipped', caps_w: [...caps], reason, original_limits_w: [], restored: true }
    }
  }
  if (opts.lanes.length === 0)
    return skipped(
      'the check is not pinned to whole GPUs (MIG instances, or GPU facts nvidia-smi could not give), so no GPU limit can be set for it'
    )
  const limiter = await PowerLimiter.create(opts.lanes, {
    restoreFile: opts.restoreFile,
    nvidiaSmi: opts.nvidiaSmi,
    euid: opts.euid
  })
  if (typeof limiter === 'string') return skipped(limiter)

  const originals = limiter.originals.map(l => ({ gpu: l.gpu, limit_w: l.limit_w }))
  const results: ExecuteResult[] = []
  let refused: string | null = null
  let restore: { restored: boolean; failures: string[] }
  try {
    for (const cap of caps) {
      if (opts.signal?.aborted) break
      refused = await limiter.apply(cap)
      if (refused) break
      logger.info(`power cap ${cap} W set on ${opts.lanes.map(l => `GPU ${l.index}`).join(', ')}`)
      const r = await opts.runPlan(cap)
      results.push(r)
      if (!r.complete && opts.signal?.aborted) break
    }
  } finally {
    restore = await limiter.restore()
    const back = originals.map(o => `GPU ${o.gpu} ${o.limit_w} W`).join(', ')
    if (restore.restored) logger.info(`power limits put back: ${back}`)
    else
      logger.warn(
        `could not put every power limit back (${restore.failures.join('; ')}); originals: ${back}, kept in ${opts.restoreFile}`
      )
  }
  // Refused at the first cap: nothing was measured under a cap, so this is a skip, not a partial sweep.
  if (refused && results.length === 0) {
    const s = await skipped(refused)
    return { exec: s.exec, power: { ...s.power, original_limits_w: originals, restored: restore.restored } }
  }
  const exec = mergeResults(results)
  const all = results.length === caps.length && exec.complete
  if (refused) {
    exec.complete = false
    exec.incompleteReason = [exec.incompleteReason, `power-cap sweep stopped: ${refused}`]
      .filter(Boolean)
      .join('; ')
  }
  return {
    exec,
    power: {
      status: all && !refused ? 'swept' : 'partial',
      caps_w: [...caps],
      reason: refused ?? (all ? null : (exec.incompleteReason ?? 'the sweep was cut short')),
      original_limits_w: originals,
      restored: restore.restored
    }
  }
}
