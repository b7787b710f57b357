/** Launchers (issue 54): where an arm's processes run. Below preflight and execute; above tools/. */
export type { Launcher, LauncherCapabilities, LauncherSettings } from './launcher.js'
export { HOST_CAPABILITIES } from './launcher.js'
export { findLauncher, launcherNames, launcherOf, registerLauncher } from './registry.js'
export { armImage, armLauncher, armRuntime, imageKey, imageRuntimes, launchersLacking } from './arms.js'
export type { CommandStart, LaunchRequest, LaunchSpec, ScriptStart } from './launch-request.js'
export { JIT_CACHE_CONTAINER_DIR, RUN_CONTAINER_DIR } from './engine-cli/index.js'
export { EVENT_FRAME, EVENTS_ON_STDOUT } from './workload-env.js'
