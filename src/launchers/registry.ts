/**
 * The launchers, by name: adding one is its own folder and one line here (or one `registerLauncher` call, as
 * the tests' fake does). An arm names one of these; config refuses any other name, quoting these.
 */
import type { Launcher } from './launcher.js'
import { dockerLauncher } from './docker/index.js'
import { nativeLauncher } from './native/index.js'
import { podmanLauncher } from './podman/index.js'

const registry = new Map<string, Launcher>()

/** Adds a launcher; a name already taken, or not a plain word, is refused. */
export function registerLauncher(launcher: Launcher): void {
  if (!/^[a-z][a-z0-9-]*$/.test(launcher.name))
    throw new Error(`launcher name ${launcher.name} is not a plain word`)
  if (launcher.name === 'container')
    throw new Error('container names the container-runtime setting, not a launcher')
  if (registry.has(launcher.name)) throw new Error(`launcher ${launcher.name} is registered already`)
  registry.set(launcher.name, launcher)
}

registerLauncher(nativeLauncher)
registerLauncher(dockerLauncher)
registerLauncher(podmanLauncher)

/** The launcher of that name, or undefined. */
export function findLauncher(name: string): Launcher | undefined {
  return registry.get(name)
}

/** The launcher of that name (the caller validated it: config refuses unknown names). */
export function launcherOf(name: string): Launcher {
  const l = registry.get(name)
  if (!l) throw new Error(`no launcher ${name}; registered: ${launcherNames().join(', ')}`)
  return l
}

/** Every registered name, in registration order (config's error messages quote them). */
export function launcherNames(): string[] {
  return [...registry.keys()]
}
