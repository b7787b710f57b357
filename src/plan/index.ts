/** The plan stage's public face: the interleaved schedule and its blocks (the lanes are preflight's). */
export { buildPlan, runLabel, runText } from './schedule.js'
export type { PlannedRun } from './schedule.js'
export { endsBlock, nextCandidates, PRESTART_DEPTH } from './blocks.js'
export { describePlan } from './describe.js'
export { planExecution, planSteps, resolveLayout, runsPerBlock } from './steps.js'
export type { Layout, Step, StepPlan, StepProcess } from './steps.js'
export { turningWorkloads } from './turns.js'
