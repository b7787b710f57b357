import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { containerGpuArgs, nativeGpuEnv } from '../../src/tools/gpu-access.js'

describe('containerGpuArgs', () => {
  const base = { device: 'gpu' as const, driverMount: null }
  it('gpus mode uses --gpus with the CSV-quoted device list', () => {
    expect(containerGpuArgs({ ...base, gpuAccess: 'gpus', gpus: 'all' })).toEqual(['--gpus', 'all'])
    expect(containerGpuArgs({ ...base, gpuAccess: 'gpus', gpus: ['1'] })).toEqual(['--gpus', 'device=1'])
    expect(containerGpuArgs({ ...base, gpuAccess: 'gpus', gpus: ['0', '1'] })).toEqual([
      '--gpus',
      '"device=0,1"'
    ])
  })
  it('cdi mode uses nvidia.com/gpu devices', () => {
    expect(containerGpuArgs({ ...base, gpuAccess: 'cdi', gpus: ['0', '1'] })).toEqual([
      '--device',
      'nvidia.com/gpu=0',
      '--device',
      'nvidia.com/gpu=1'
    ])
  })
  it('devices mode passes the device nodes and mounts the driver read-only', () => {
    const dev = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-'))
    for (const n of ['nvidia0', 'nvidia1', 'nvidiactl', 'nvidia-uvm']) fs.writeFileSync(path.join(dev, n), '')
    expect(
      containerGpuArgs({ ...base, gpuAccess: 'devices', gpus: 'all', driverMount: '/drv', devDir: dev })
    ).toEqual([
      '--device',
      `${dev}/nvidia0`,
      '--device',
      `${dev}/nvidia1`,
      '--device',
      `${dev}/nvidiactl`,
      '--device',
      `${dev}/nvidia-uvm`,
      '-v',
      '/drv:/drv:ro'
    ])
    expect(() => containerGpuArgs({ ...base, gpuAccess: 'devices', gpus: ['GPU-x'], devDir: dev })).toThrow(
      /gpus/
    )
  })
  it('device cpu gives no GPU at all, natively or in the container', () => {
    expect(containerGpuArgs({ ...base, device: 'cpu', gpuAccess: 'gpus', gpus: 'all' })).toEqual([])
    expect(nativeGpuEnv({ ...base, device: 'cpu', gpuAccess: 'gpus', gpus: 'all' })).toEqual({
      CUDA_VISIBLE_DEVICES: ''
    })
    expect(nativeGpuEnv({ ...base, gpuAccess: 'gpus', gpus: ['1', '3'] })).toEqual({
      CUDA_VISIBLE_DEVICES: '1,3'
    })
  })
})
