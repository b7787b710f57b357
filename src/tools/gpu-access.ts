/** How a container gets the GPU, per `gpu-access` mode. Argument arrays only. */
import * as fs from 'node:fs'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import type { Device, GpuAccess, Lane } from '../types/index.js'

export interface GpuArgsInput {
  device: Device
  gpuAccess: GpuAccess
  gpus: 'all' | string[]
  /** Driver user-space libraries for `devices` mode (mounted read-only at the same path). */
  driverMount: string | null
  /** For tests: where device nodes live. */
  devDir?: string
}

/** Default driver-library folder for `devices` mode: NVIDIA's container convention, when present. */
export function defaultDriverMount(): string | null {
  return fs.existsSync('/usr/local/nvidia') ? '/usr/local/nvidia' : null
}

/**
 * The container's GPU flags. With a lane, the access mode's per-GPU form: `--gpus device=<index>`, CDI
 * `nvidia.com/gpu=<index>`, or that GPU's own device node (by its minor number, which need not equal the
 * index).
 */
export function containerGpuArgs(input: GpuArgsInput, lane: Lane | null = null): string[] {
  if (input.device === 'cpu') return []
  if (lane !== null) {
    if (input.gpuAccess === 'devices') return deviceNodeArgs(input, [`nvidia${lane.minor ?? lane.index}`])
    return containerGpuArgs({ ...input, gpus: [String(lane.index)] })
  }
  const gpus = input.gpus
  switch (input.gpuAccess) {
    case 'gpus':
      // docker's --gpus value is itself CSV-parsed, so a list needs inner quotes (passed verbatim, no shell).
      return [
        '--gpus',
        gpus === 'all' ? 'all' : gpus.length === 1 ? `device=${gpus[0]}` : `"device=${gpus.join(',')}"`
      ]
    case 'cdi':
      return gpus === 'all'
        ? ['--device', 'nvidia.com/gpu=all']
        : gpus.flatMap(g => ['--device', `nvidia.com/gpu=${g}`])
    case 'devices': {
      const dev = input.devDir ?? '/dev'
      let nodes: string[]
      if (gpus === 'all') {
        nodes = fs
          .readdirSync(dev)
          .filter(n => /^nvidia\d+$/.test(n))
          .sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)))
      } else {
        nodes = gpus.map(g => {
          if (!/^\d+$/.test(g))
            throw new InputError(
              Inputs.Gpus,
              g,
              'GPU indices (e.g. 0,1) with gpu-access: devices (UUIDs need gpus or cdi)'
            )
          return `nvidia${g}`
        })
      }
      return deviceNodeArgs(input, nodes)
    }
  }
}

/** GPU nodes plus the control nodes every CUDA process needs, and the driver libraries. */
function deviceNodeArgs(input: GpuArgsInput, nodes: string[]): string[] {
  const dev = input.devDir ?? '/dev'
  const control = ['nvidiactl', 'nvidia-uvm', 'nvidia-uvm-tools'].filter(n => fs.existsSync(`${dev}/${n}`))
  const args = [...nodes, ...control].flatMap(n => ['--device', `${dev}/${n}`])
  const driver = input.driverMount ?? defaultDriverMount()
  if (driver) args.push('-v', `${driver}:${driver}:ro`)
  return args
}

/**
 * CUDA_VISIBLE_DEVICES for the native arm. A lane is pinned by UUID: CUDA's own device order
 * (fastest first) need not match nvidia-smi's, so an index could land on another GPU.
 */
/** Variables nativeGpuEnv sets: GPU selection the container arm gets through its device flags instead. */
export const GPU_SELECTION_ENV = ['CUDA_VISIBLE_DEVICES', 'CUDA_DEVICE_ORDER'] as const

export function nativeGpuEnv(input: GpuArgsInput, lane: Lane | null = null): Record<string, string> {
  if (input.device === 'cpu') return { CUDA_VISIBLE_DEVICES: '' }
  if (lane !== null)
    return lane.uuid
      ? { CUDA_VISIBLE_DEVICES: lane.uuid }
      : { CUDA_VISIBLE_DEVICES: String(lane.index), CUDA_DEVICE_ORDER: 'PCI_BUS_ID' }
  return input.gpus === 'all' ? {} : { CUDA_VISIBLE_DEVICES: input.gpus.join(',') }
}
