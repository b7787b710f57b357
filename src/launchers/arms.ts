/** An arm's launcher and engine: read from the arm (config sets it), or as a summary before launchers had it. */
import type { Arm, ContainerRuntime } from '../types/index.js'
import type { Launcher, LauncherCapabilities } from './launcher.js'
import { launcherOf } from './registry.js'

/** The arm's launcher; `runtime` (container-runtime) names it for an arm that does not. */
export function armLauncher(arm: Arm, runtime: ContainerRuntime): Launcher {
  return launcherOf(arm.launcher ?? (arm.kind === 'native' ? 'native' : runtime))
}

/** The engine CLI an image arm runs on (its launcher's), else `runtime`. */
export function armRuntime(arm: Arm, runtime: ContainerRuntime): ContainerRuntime {
  return armLauncher(arm, runtime).runtime ?? runtime
}

/** Every engine the check's image arms use, once each, in arm order (clean-up asks each). */
export function imageRuntimes(arms: readonly Arm[], runtime: ContainerRuntime): ContainerRuntime[] {
  return [...new Set(arms.filter(a => a.kind === 'container').map(a => armRuntime(a, runtime)))]
}

/** The arms' launchers that lack a capability (by name, once each): the report says what was not measured. */
export function launchersLacking(
  arms: readonly Arm[],
  runtime: ContainerRuntime,
  capability: keyof LauncherCapabilities
): string[] {
  return [
    ...new Set(
      arms
        .map(a => armLauncher(a, runtime))
        .filter(l => !l.capabilities[capability])
        .map(l => l.name)
    )
  ]
}

/** Preflight's key of an image on an engine: the same reference on two engines is two images (two IDs). */
export function imageKey(runtime: ContainerRuntime, ref: string): string {
  return `${runtime} ${ref}`
}

/**
 * What preflight learned of the arm's image on the arm's engine; a map keyed by reference alone (a caller that
 * knows one engine) is read by reference.
 */
export function armImage<T>(
  images: ReadonlyMap<string, T>,
  arm: Arm,
  runtime: ContainerRuntime
): T | undefined {
  if (arm.kind !== 'container' || !arm.image) return undefined
  return images.get(imageKey(armRuntime(arm, runtime), arm.image)) ?? images.get(arm.image)
}
