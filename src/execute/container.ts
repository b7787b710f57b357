/**
 * Clean-up of a check's containers (cancel, crash, forced exit) on one engine, by the check's label. The
 * process each container arm starts is its launcher's (launchers/engine-cli/).
 */
import { removeLabelled, removeLabelledNow } from '../tools/docker.js'
import type { ContainerRuntime } from '../types/index.js'

/** Removes every container this check started that is still around (cancel, crash); returns those left. */
export function killCheckContainers(runtime: ContainerRuntime, checkId: string): Promise<string[]> {
  return removeLabelled(runtime, checkId)
}

/** Bounded, synchronous removal of this check's containers for a forced exit (second signal). */
export function removeCheckContainersNow(runtime: ContainerRuntime, checkId: string): void {
  removeLabelledNow(runtime, checkId)
}
