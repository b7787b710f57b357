/**
 * How each arm's process was launched, as stack facts (`launch.*`) beside what the workload read from inside
 * (shm size, ulimits, CPU set, user: workloads/_stack.py): the image's ENTRYPOINT, WORKDIR and USER, and the
 * workflow's container-args. "The container is slower" can then be tied to "your launch flags differ".
 */
import { launchFlagFacts, type Config } from '../config/index.js'
import { armImage, armRuntime } from '../launchers/index.js'
import type { PreflightOutcome } from '../preflight/index.js'
import type { Arm } from '../types/index.js'
import { redact } from '../util/secrets.js'

const NONE = '(none)'

/**
 * The facts, with every secret-shaped `NAME=value` masked: an ENTRYPOINT or a launch flag may carry a token
 * (`-e HF_TOKEN=…`), and the facts reach summary.json and the report.
 */
export function launchFacts(arm: Arm, config: Config, pre: PreflightOutcome): Record<string, string> {
  return Object.fromEntries(Object.entries(rawLaunchFacts(arm, config, pre)).map(([k, v]) => [k, redact(v)]))
}

function rawLaunchFacts(arm: Arm, config: Config, pre: PreflightOutcome): Record<string, string> {
  if (arm.kind === 'native')
    return { how: 'host process', entrypoint: NONE, ipc: 'host', container_args: NONE }
  const image = armImage(pre.images, arm, config.containerRuntime)
  const flags = launchFlagFacts(config.containerArgs)
  // An image known by its ID alone (inspected without its config) has no entrypoint to name.
  const entrypoint = image?.entrypoint ?? []
  return {
    how: `${armRuntime(arm, config.containerRuntime)} run`,
    entrypoint: entrypoint.length ? entrypoint.join(' ') : NONE,
    image_user: image?.user ?? NONE,
    workdir: image?.workdir ?? NONE,
    // Docker's default IPC namespace is private, with a 64 MiB /dev/shm.
    ipc: flags.ipc ?? 'private (engine default)',
    container_args: config.containerArgs.length ? config.containerArgs.join(' ') : NONE
  }
}
