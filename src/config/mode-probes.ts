/** `gate` and `io-check`: the CLI's probe commands (no action mode runs them on their own: a CLI source only). */
import { Inputs } from '../types/inputs.js'
import {
  CONTAINER_RUNTIMES,
  GPU_ACCESS_MODES,
  type ContainerRuntime,
  type GpuAccess
} from '../types/index.js'
import { oneOf } from './parse.js'
import { outputFormat, stringFlag, type CliSource } from './reader.js'

function runtimeOf({ read, label }: CliSource): ContainerRuntime {
  return oneOf(label(Inputs.ContainerRuntime), read.get(Inputs.ContainerRuntime), CONTAINER_RUNTIMES)
}

export interface GateFlags {
  driver: string | undefined
  cuda: string | undefined
  image: string | undefined
  strict: boolean
  format: 'text' | 'json'
  runtime: ContainerRuntime
  gpuAccess: GpuAccess
  driverCuda: string | undefined
  brand: string | undefined
  computeCap: string | undefined
  gpuName: string | undefined
}

/** `gpu-overhead gate`: the driver and CUDA version, or the image, and the host described by hand. */
export function parseGate(src: CliSource): GateFlags {
  const { read, label, opts } = src
  return {
    driver: stringFlag(opts.driver),
    cuda: stringFlag(opts.cuda),
    image: stringFlag(opts.image),
    strict: opts.strict === true,
    format: outputFormat(opts, 'text'),
    runtime: runtimeOf(src),
    gpuAccess: oneOf(label(Inputs.GpuAccess), read.get(Inputs.GpuAccess), GPU_ACCESS_MODES),
    driverCuda: stringFlag(opts.driverCuda),
    brand: stringFlag(opts.brand),
    computeCap: stringFlag(opts.computeCap),
    gpuName: stringFlag(opts.gpuName)
  }
}

export interface IoCheckFlags {
  image: string
  data: string | undefined
  ckpt: string | undefined
  format: 'text' | 'json'
  runtime: ContainerRuntime
}

/** `gpu-overhead io-check`: the image and the mounts to probe. */
export function parseIoCheck(src: CliSource): IoCheckFlags {
  const { opts } = src
  return {
    image: String(opts.image),
    data: stringFlag(opts.data),
    ckpt: stringFlag(opts.ckpt),
    format: outputFormat(opts, 'text'),
    runtime: runtimeOf(src)
  }
}
