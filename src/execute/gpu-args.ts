/** How a container gets the GPU, per `gpu-access` mode. Argument arrays only. */
import * as fs from 'node:fs'
import { Inputs } from '../constants.js'
import { InputError } from '../errors.js'
import type { Device, GpuAccess } from '../types.js'

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

export function containerGpuArgs(input: GpuArgsInput): string[] {
  if (input.device === 'cpu') return []
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
      const control = ['nvidiactl', 'nvidia-uvm', 'nvidia-uvm-tools'].filter(n =>
        fs.existsSync(`${dev}/${n}`)
      )
      const args = [...nodes, ...control].flatMap(n => ['--device', `${dev}/${n}`])
      const driver = input.driverMount ?? defaultDriverMount()
      if (driver) args.push('-v', `${driver}:${driver}:ro`)
      return args
    }
  }
}

/** CUDA_VISIBLE_DEVICES for the native arm, when a subset of GPUs was asked for. */
export function nativeGpuEnv(input: GpuArgsInput): Record<string, string> {
  if (input.device === 'cpu') return { CUDA_VISIBLE_DEVICES: '' }
  return input.gpus === 'all' ? {} : { CUDA_VISIBLE_DEVICES: input.gpus.join(',') }
}
