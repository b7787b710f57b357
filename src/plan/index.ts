/** The plan stage's public face: the lanes, the interleaved schedule and its blocks. */
export { laneLabel, resolveLanes } from './lanes.js'
export type { Lane } from './lanes.js'
export { buildPlan } from './schedule.js'
export type { PlannedRun } from './schedule.js'
export { endsBlock, nextCandidates } from './blocks.js'
export { describePlan } from './describe.js'
export { planSteps, resolveLayout, runsPerBlock } from './steps.js'
export type { Layout, Step, StepProcess } from './steps.js'
