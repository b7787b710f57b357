/** Prestart: a held container is thawed as soon as the GPU's current processes have measured. */
import type { PlannedRun, Step } from '../plan/index.js'
import type { Launched } from './launch.js'

/**
 * Once every process of `step` has measured, thaws the held containers of the next step that will run, so the
 * engine's unpause (a CLI round trip) is not paid while the GPU is free; they still wait for "go". A step the
 * sequential rule then skips leaves them thawed, then dropped (as any unused held process).
 */
export function thawNextWhenMeasured(
  steps: readonly Step[],
  step: Step,
  launched: readonly Launched[],
  pending: readonly Launched[][],
  runnable: (p: PlannedRun) => boolean
): void {
  const next = steps.slice(steps.indexOf(step) + 1).find(s => s.slots.some(runnable))
  if (next === undefined) return
  void Promise.all(launched.map(l => l.measured)).then(() => {
    for (const ls of pending) for (const l of ls) if (next.slots.includes(l.planned)) void l.thaw()
  })
}
