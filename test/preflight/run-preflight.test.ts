import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { EnvironmentError, InputError } from '../../src/util/errors.js'
import { fingerprintFacts, preflightStatus, runPreflight } from '../../src/preflight/run.js'
import { parseMountSpec } from '../../src/config/mount-spec.js'
import { execCapture } from '../../src/util/exec.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const REPLAY = path.join(import.meta.dirname, 'fixtures/replay-nvidia-smi.sh')
const BUILD = path.join(import.meta.dirname, '../__fixtures__/images/build-cuda-style-images.sh')
const base = { gpuAccess: 'gpus' as const, runtime: 'docker' as const, strict: false }

let host: string
let pyImage: string
beforeAll(async () => {
  const res = await execCapture('bash', [BUILD])
  if (res.exitCode !== 0) throw new Error(res.stderr)
  pyImage = await ensurePythonImage()
  host = mkdtempSync(path.join(tmpdir(), 'gpu-overhead-pf-'))
})
afterAll(() => rmSync(host, { recursive: true, force: true }))

describe('runPreflight', () => {
  it('GPU run (recorded H200 host) with an NGC-style image: gate + GPU checks', async () => {
    const out = await runPreflight({
      ...base,
      device: 'gpu',
      image: 'local/ngc-style-pytorch:23.10-py3',
      nvidiaSmi: REPLAY
    })
    const byName = Object.fromEntries(out.results.map(r => [r.name, r.status]))
    expect(byName).toEqual({
      'driver-gate': 'pass',
      'nvidia-require': 'pass',
      'persistence-mode': 'pass',
      mig: 'pass',
      clocks: 'pass',
      'power-limit': 'pass',
      'gpu-isolation': 'pass'
    })
    expect(out.driver).toBe('580.159.04')
    expect(out.image?.cuda_version).toBe('12.2.2.009')
    expect(preflightStatus(out.results)).toBe('pass')
    expect(fingerprintFacts(out)).toMatchObject({
      gpu_name: 'NVIDIA H200',
      gpu_uuid: 'GPU-faafcc66-a40d-b2a9-3c4a-f026277663ea',
      driver: '580.159.04',
      cuda: '12.2.2.009',
      image_digest: out.image!.id,
      mig_mode: 'Disabled',
      persistence_mode: 'Enabled'
    })
  })

  it('NVIDIA_REQUIRE_CUDA is evaluated: the real nvidia/cuda 12.4.1 requirement holds on the H200 host', async () => {
    const out = await runPreflight({
      ...base,
      device: 'gpu',
      image: 'local/nvidia-cuda-style:12.4.1-base-ubuntu22.04',
      nvidiaSmi: REPLAY
    })
    expect(out.results.find(r => r.name === 'nvidia-require')).toMatchObject({ status: 'pass' })
  })

  it('issue 17 case 10: cuda>=13.2 on a CUDA 13.0 driver → FAIL under gpus, WARN with the same words under cdi', async () => {
    // TEST IMAGE with the ENV (not a published image): CUDA 13.0.2 that requires cuda>=13.2.
    const tag = 'local/nvidia-cuda-style:issue17-require-13.2'
    const tar = path.join(host, 'rootfs.tar')
    await execCapture('tar', ['-cf', tar, '-T', '/dev/null'])
    const made = await execCapture('docker', [
      'import',
      '-c',
      'ENV CUDA_VERSION=13.0.2',
      '-c',
      'ENV NVIDIA_REQUIRE_CUDA="cuda>=13.2 brand=tesla,driver>=570,driver<571"',
      tar,
      tag
    ])
    if (made.exitCode !== 0) throw new Error(made.stderr)
    try {
      const gpus = await runPreflight({ ...base, device: 'gpu', image: tag, nvidiaSmi: REPLAY })
      const fail = gpus.results.find(r => r.name === 'nvidia-require')!
      expect(fail.status).toBe('fail')
      expect(fail.message).toContain('unsatisfied condition: cuda>=13.2')
      expect(fail.message).toContain('driver 580.159.04 supports CUDA 13.0')
      expect(preflightStatus(gpus.results)).toBe('fail')
      const cdi = await runPreflight({
        ...base,
        gpuAccess: 'cdi',
        device: 'gpu',
        image: tag,
        nvidiaSmi: REPLAY
      })
      const warn = cdi.results.find(r => r.name === 'nvidia-require')!
      expect(warn.status).toBe('warn')
      expect(warn.message).toContain('unsatisfied condition: cuda>=13.2')
    } finally {
      await execCapture('docker', ['rmi', '-f', tag])
    }
  })

  it('GPU run with an image that declares no CUDA: gate cannot run → warn', async () => {
    const out = await runPreflight({ ...base, device: 'gpu', image: pyImage, nvidiaSmi: REPLAY })
    expect(out.results.find(r => r.name === 'driver-gate')).toMatchObject({ status: 'warn' })
  })

  it('CPU run with mounts: GPU checks skipped, mount rules applied', async () => {
    const out = await runPreflight({
      ...base,
      device: 'cpu',
      image: pyImage,
      data: parseMountSpec(`${host}:/data:ro`, 'data'),
      ckpt: parseMountSpec('/ckpt', 'ckpt'),
      probeMiB: 4
    })
    expect(out.gpus).toEqual([])
    const byName = Object.fromEntries(out.results.map(r => [r.name, r.status]))
    expect(byName).toEqual({
      'driver-gate': 'skip',
      'mounts:data': 'pass',
      'mounts:ckpt': 'fail',
      'mounts:writable-layer': 'pass'
    })
    expect(preflightStatus(out.results)).toBe('fail')
  })

  it('native GPU run without an image', async () => {
    const out = await runPreflight({
      ...base,
      device: 'gpu',
      image: null,
      nvidiaSmi: REPLAY,
      ckpt: parseMountSpec('/ckpt', 'ckpt')
    })
    expect(out.results.find(r => r.name === 'driver-gate')?.status).toBe('skip')
    expect(out.results.find(r => r.name === 'mounts')?.status).toBe('skip')
    expect(out.results.some(r => r.name === 'gpu-isolation')).toBe(false)
  })

  it('bad input and a missing GPU are exit-2 errors', async () => {
    await expect(runPreflight({ ...base, device: 'cpu', image: 'Bad Ref' })).rejects.toThrow(InputError)
    // A mount spec is parsed (and refused) where it enters, before preflight gets it typed.
    expect(() => parseMountSpec('x:y:z:w', 'data')).toThrow(InputError)
    await expect(
      runPreflight({ ...base, device: 'gpu', image: null, nvidiaSmi: 'no-such-nvidia-smi' })
    ).rejects.toThrow(EnvironmentError)
  })
})
