/** The plan in one log line: processes, GPUs, power caps, workloads × arms × runs, order and seed. */
import type { Config } from '../config/index.js'
import { at } from '../util/must.js'
import { laneLabel } from '../preflight/index.js'
import type { Lane } from '../types/index.js'
import type { Layout } from './steps.js'
import { turningWorkloads } from './turns.js'

const pairsText = (lanes: readonly Lane[]): string =>
  lanes
    .filter((_, k) => k % 2 === 0)
    .map((l, m) => `${l.index}+${at(lanes, 2 * m + 1).index}`)
    .join(', ')

export function describePlan(
  config: Config,
  slots: number,
  lanes: Lane[] | null,
  sequential: boolean,
  layout: Layout = 'lockstep'
): string {
  const multi = lanes && lanes.length > 1 ? lanes : null
  const gpus = multi?.map(laneLabel).join(', ')
  const processes = !multi
    ? `${slots} processes`
    : layout === 'duet'
      ? `${(slots * multi.length) / 2} processes (duet: both arms at once on GPU pairs ${pairsText(multi)}, swapping GPUs every block)`
      : `${slots * multi.length} processes (${slots} slots × ${multi.length} GPUs at once: ${gpus})`
  // A workload that takes turns runs both arms on every GPU, whatever the layout (steps.ts).
  const turning = turningWorkloads(config)
  const turnsText =
    multi && turning.length
      ? `; ${turning.join(', ')}: both arms on every GPU, taking turns request by request`
      : ''
  const caps = config.powerCaps.length ? `, at each of ${config.powerCaps.join(', ')} W` : ''
  const runs = sequential
    ? `${config.runs} to ${config.maxRuns} runs, stopping when decided${config.timeBudgetS === null ? '' : ` or at ${config.timeBudgetS} s`}`
    : `${config.runs} runs`
  return `plan: ${processes}${caps} (${config.workloads.join(', ')} × ${config.arms.map(a => a.label).join(' / ')} × ${runs} + ${config.warmupRuns} warm-up), ${config.schedule} order, seed ${config.seed}${turnsText}`
}
