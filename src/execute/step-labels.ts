/** How the runner names a step and its processes in progress lines, failures and warnings. */
import { runText, type Step } from '../plan/index.js'
import { laneLabel } from '../preflight/index.js'

/** What a step ran, for its progress line and its failure: workload, arms, run, turns. */
export function stepLabel(step: Step): string {
  const planned = step.slots[0]
  if (planned === undefined) return ''
  const armsText = step.slots.map(p => p.arm.label).join(' + ')
  return `${planned.workload} ${armsText} ${runText(planned)}${step.turns ? ' (in turns)' : ''}`
}

/** The k-th process of a step: its lane, and its arm where the step holds several slots. */
export function processLabel(step: Step, k: number, device: 'gpu' | 'cpu' = 'gpu'): string {
  const sp = step.processes[k]
  const arm = sp?.planned.arm.label ?? ''
  // On the CPU there is no lane to name ("all GPUs" would be wrong): the arm alone.
  if (device === 'cpu' && !sp?.lane) return arm
  const where = laneLabel(sp?.lane ?? null)
  return step.slots.length > 1 ? `${where} ${arm}` : where
}
