/**
 * The seam where a place a workload runs plugs in (issue 54): native, docker and podman today; a Kubernetes,
 * Slurm or CDI launcher later (docs/launchers.md). A launcher says what it runs (the host's interpreter or an
 * image through an engine's CLI), which of the check's host-side measurements it allows, and parses its own
 * settings. An arm names its launcher (`arms: docker:A,podman:B`); the registry (registry.ts) is one list.
 */
import type { ContainerRuntime } from '../types/index.js'
import type { LaunchRequest, LaunchSpec } from './launch-request.js'

/** What a launcher lets the check measure beside the workload; a missing one is reported as "not measured". */
export interface LauncherCapabilities {
  /** Host-side GPU telemetry (nvidia-smi on this host sees the GPU the arm's processes use). */
  telemetry: boolean
  /** The co-tenant probe: other processes on the arm's GPU, listed from this host. */
  cotenantProbe: boolean
  /** Power caps on the arm's GPUs, set from this host (nvidia-smi -pl). */
  powerCaps: boolean
  /** Pausing a started workload between its turns (prestart, turns). */
  freeze: boolean
  /**
   * Events through a folder this host shares with the workload (the run folder under the work folder). A
   * launcher without one carries the protocol framed on the process's stdout (docs/protocol.md).
   */
  sharedFolder: boolean
}

/** A launcher's own settings, parsed once from the environment the workflow gave it. */
export interface LauncherSettings {
  /** Arguments before the engine's subcommand (podman's `--url`); empty for most. */
  clientArgs: readonly string[]
  /** The remote engine it talks to, when one is named (DOCKER_HOST, CONTAINER_HOST); null = local. */
  endpoint: string | null
}

export interface Launcher {
  /** Registry key and the word an arm uses (`arms: podman:<image>`): lower-case letters, digits and `-`. */
  readonly name: string
  /** Its arms run an image (arm kind `container`) or the host's interpreter (arm kind `native`). */
  readonly runsImage: boolean
  /** The engine CLI whose argv tools/docker.ts builds, for a launcher that runs images; null otherwise. */
  readonly runtime: ContainerRuntime | null
  readonly capabilities: LauncherCapabilities
  /** Parses its settings from the environment (trusted: the workflow's); throws on a malformed one. */
  settings(env: NodeJS.ProcessEnv): LauncherSettings
  /** One line for the report's environment section: how an arm of this launcher starts a process. */
  describe(settings: LauncherSettings): string
  /**
   * The process that starts one workload process of its arm (an argument array, never a shell string): the
   * launcher maps the request's host folders to what the process sees, and sets the protocol's variables.
   * Throws (EnvironmentError) when the request lacks what it needs (an image launcher without an image ID).
   */
  processSpec(request: LaunchRequest): LaunchSpec
}

/** Every host-side measurement allowed: what a launcher on this host with host-visible GPUs has. */
export const HOST_CAPABILITIES: LauncherCapabilities = {
  telemetry: true,
  cotenantProbe: true,
  powerCaps: true,
  freeze: true,
  sharedFolder: true
}
