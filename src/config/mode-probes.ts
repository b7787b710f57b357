/** `gate` and `io-check`: the CLI's probe commands (no action mode runs them on their own). */
import { Inputs } from '../types/inputs.js'
import {
  CONTAINER_RUNTIMES,
  GPU_ACCESS_MODES,
  type ContainerRuntime,
  type GpuAccess
} from '../types/index.js'
import { oneOf } from './parse.js'
import { FLAG_LABEL, flagReader, stringFlag, type InputReader } from './reader.js'

function runtimeOf(read: InputReader): ContainerRuntime {
  return oneOf(FLAG_LABEL(Inputs.ContainerRuntime), read.get(Inputs.ContainerRuntime), CONTAINER_RUNTIMES)
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
export function gateFlags(opts: Record<string, unknown>): GateFlags {
  const read = flagReader(opts)
  return {
    driver: stringFlag(opts.driver),
    cuda: stringFlag(opts.cuda),
    image: stringFlag(opts.image),
    strict: opts.strict === true,
    format: opts.format === 'json' ? 'json' : 'text',
    runtime: runtimeOf(read),
    gpuAccess: oneOf(FLAG_LABEL(Inputs.GpuAccess), read.get(Inputs.GpuAccess), GPU_ACCESS_MODES),
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
export function ioCheckFlags(opts: Record<string, unknown>): IoCheckFlags {
  return {
    image: String(opts.image),
    data: stringFlag(opts.data),
    ckpt: stringFlag(opts.ckpt),
    format: opts.format === 'json' ? 'json' : 'text',
    runtime: runtimeOf(flagReader(opts))
  }
}
