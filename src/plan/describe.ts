/** The plan in one log line: processes, GPUs, power caps, workloads × arms × runs, order and seed. */
import type { Config } from '../config/index.js'
import { laneLabel, type Lane } from './lanes.js'

export function describePlan(
  config: Config,
  slots: number,
  lanes: Lane[] | null,
  sequential: boolean
): string {
  const multi = lanes && lanes.length > 1 ? lanes : null
  const processes = multi
    ? `${slots * multi.length} processes (${slots} slots × ${multi.length} GPUs at once: ${multi.map(laneLabel).join(', ')})`
    : `${slots} processes`
  const caps = config.powerCaps.length ? `, at each of ${config.powerCaps.join(', ')} W` : ''
  const runs = sequential
    ? `${config.runs} to ${config.maxRuns} runs, stopping when decided${config.timeBudgetS === null ? '' : ` or at ${config.timeBudgetS} s`}`
    : `${config.runs} runs`
  return `plan: ${processes}${caps} (${config.workloads.join(', ')} × ${config.arms.map(a => a.label).join(' / ')} × ${runs} + ${config.warmupRuns} warm-up), ${config.schedule} order, seed ${config.seed}`
}
