/** The environment fingerprint every record of an arm carries: what preflight found, per lane. */
import * as os from 'node:os'
import { armImage, armRuntime } from '../launchers/index.js'
import type { Config } from '../config/index.js'
import type { Arm, Fingerprint, Lane } from '../types/index.js'
import type { PreflightOutcome } from './stage.js'

export function fingerprintFor(
  arm: Arm,
  config: Config,
  pre: PreflightOutcome,
  lane: Lane | null = null
): Fingerprint {
  const gpu = (lane && pre.gpus?.gpus.find(g => g.index === lane.index)) ?? pre.gpus?.gpus[0] ?? null
  const image = armImage(pre.images, arm, config.containerRuntime) ?? null
  return {
    host: os.hostname(),
    device: config.device,
    gpu_name: config.device === 'gpu' ? (gpu?.name ?? null) : null,
    gpu_uuid: config.device === 'gpu' ? (gpu?.uuid ?? null) : null,
    driver: config.device === 'gpu' ? (pre.gpus?.driver ?? null) : null,
    cuda: config.device === 'gpu' ? (pre.gpus?.cuda_version ?? null) : null,
    image: arm.kind === 'container' ? arm.image : null,
    image_digest: image?.digest ?? null,
    runtime: arm.kind === 'container' ? armRuntime(arm, config.containerRuntime) : null,
    runtime_version: arm.kind === 'container' ? pre.runtimeVersion : null,
    gpu_access: arm.kind === 'container' && config.device === 'gpu' ? config.gpuAccess : null,
    mig_mode: gpu?.mig_mode ?? null,
    persistence_mode: gpu?.persistence_mode ?? null,
    clocks:
      gpu?.clocks_applications_graphics_mhz != null ? `${gpu.clocks_applications_graphics_mhz} MHz app` : null
  }
}

/** fingerprintFor, computed once per arm and lane: every record of a run carries it. */
export function fingerprintCache(
  config: Config,
  pre: PreflightOutcome
): (arm: Arm, lane: Lane | null) => Fingerprint {
  const fingerprints = new Map<string, Fingerprint>()
  return (arm, lane) => {
    const key = `${arm.label}\u0000${lane?.index ?? ''}`
    let fp = fingerprints.get(key)
    if (!fp) fingerprints.set(key, (fp = fingerprintFor(arm, config, pre, lane)))
    return fp
  }
}
