import path from 'node:path'
import { EnvironmentError, exitCodeOf, InputError } from '../../src/util/errors.js'
import { gateCommand } from '../../src/commands/gate.js'
import type { GateCommandOptions } from '../../src/commands/gate-evaluate.js'
import { allDatacenter } from '../../src/preflight/gpu.js'
import { execCapture } from '../../src/util/exec.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const REPLAY = path.join(import.meta.dirname, 'fixtures/replay-nvidia-smi.sh')
const BUILD = path.join(import.meta.dirname, '../__fixtures__/images/build-cuda-style-images.sh')
const CUDA_IMAGE = 'local/nvidia-cuda-style:12.4.1-base-ubuntu22.04'
const NGC_IMAGE = 'local/ngc-style-pytorch:23.10-py3'
const base = { strict: false, format: 'text' as const, runtime: 'docker' as const }

beforeAll(async () => {
  const res = await execCapture('bash', [BUILD])
  if (res.exitCode !== 0) throw new Error(res.stderr)
})

describe('gate command', () => {
  it('--driver + --cuda: pass → exit 0', async () => {
    const r = await gateCommand({ ...base, driver: '580.65.06', cuda: '13.0' })
    expect(r.exitCode).toBe(0)
    expect(r.text).toMatch(/^PASS driver-gate: driver 580\.65\.06 ≥ 580\.65\.06/)
  })

  it('below the floor → exit 1, names driver, minimum and fix', async () => {
    const r = await gateCommand({ ...base, driver: '570.124.06', cuda: '13.0.2' })
    expect(r.exitCode).toBe(1)
    expect(r.text).toContain('FAIL driver-gate: driver 570.124.06 is below 580')
    expect(r.text).toContain('minimum driver 580')
    expect(r.text).toMatch(
      /fix: upgrade the host driver to branch R580 .* or pin an older image tag whose CUDA ≤ 12\.8/
    )
  })

  it('warn → exit 0; --strict → exit 1', async () => {
    expect((await gateCommand({ ...base, driver: '560.35.03', cuda: '12.8' })).exitCode).toBe(0)
    expect((await gateCommand({ ...base, strict: true, driver: '560.35.03', cuda: '12.8' })).exitCode).toBe(1)
  })

  it('--image (nvidia/cuda-style): CUDA from the image, forward compat noted', async () => {
    // 12.4.1 is CUDA 12.4 Update 1: Table 3 gives it 550.54.15.
    const r = await gateCommand({ ...base, format: 'json', driver: '550.54.15', image: CUDA_IMAGE })
    const j = JSON.parse(r.text)
    expect(r.exitCode).toBe(0)
    expect(j).toMatchObject({
      status: 'pass',
      exit_code: 0,
      driver: '550.54.15',
      driver_source: 'input',
      cuda: '12.4.1',
      cuda_source: 'image',
      minimum_driver: '525.60.13',
      release_driver: '550.54.15',
      release_driver_source: 'table',
      forward_compat: true,
      image: {
        ref: CUDA_IMAGE,
        digest_source: 'image-id',
        compat_package: 'cuda-compat-12-4',
        forward_compat_branches: [470, 525, 535]
      }
    })
    expect(j.image.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('--image (NGC-style): ignores the vacuous cuda>=9.0 and finds the update release in Table 3', async () => {
    const r = await gateCommand({ ...base, driver: '470.82.01', image: NGC_IMAGE })
    expect(r.exitCode).toBe(1) // 12.2 needs ≥ 525.60.13; the GPU is unknown, so forward compat cannot be assumed
    expect(r.text).toContain('CUDA 12.2.2.009')
    expect(r.text).toContain('note: NVIDIA_REQUIRE_CUDA=cuda>=9.0 is weaker')
    const between = JSON.parse(
      (await gateCommand({ ...base, format: 'json', driver: '535.86.10', image: NGC_IMAGE })).text
    )
    expect(between).toMatchObject({
      status: 'warn',
      release_driver: '535.104.05',
      release_driver_source: 'table'
    })
  })

  it("without --driver it reads the host's driver from nvidia-smi", async () => {
    const r = await gateCommand({ ...base, format: 'json', cuda: '13.0', nvidiaSmi: REPLAY })
    expect(JSON.parse(r.text)).toMatchObject({
      status: 'pass',
      driver: '580.159.04',
      driver_source: 'nvidia-smi',
      driver_cuda: '13.0',
      datacenter_gpu: true,
      gpus: ['NVIDIA H200']
    })
  })

  it('without --driver and without nvidia-smi → EnvironmentError (exit 2)', async () => {
    const err = await gateCommand({ ...base, cuda: '13.0', nvidiaSmi: 'no-such-nvidia-smi' }).catch(
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(EnvironmentError)
    expect(exitCodeOf(err)).toBe(2)
  })

  it('bad input → InputError (exit 2)', async () => {
    await expect(gateCommand({ ...base, driver: '580' })).rejects.toThrow(
      /one of --cuda VERSION or --image REF/
    )
    await expect(gateCommand({ ...base, driver: 'abc', cuda: '13.0' })).rejects.toThrow(InputError)
    await expect(gateCommand({ ...base, driver: '580', cuda: '13' })).rejects.toThrow(/input 'cuda'/)
    await expect(gateCommand({ ...base, driver: '580', image: 'x y' })).rejects.toThrow(/input 'image'/)
  })

  it('an image that declares no CUDA → InputError asking for --cuda', async () => {
    const plain = await ensurePythonImage()
    await expect(gateCommand({ ...base, driver: '580', image: plain })).rejects.toThrow(
      /or pass --cuda VERSION/
    )
  })

  it('an absent image that cannot be pulled → EnvironmentError naming it', async () => {
    await expect(
      gateCommand({ ...base, driver: '580', image: 'local/gpu-overhead-test:absent' })
    ).rejects.toThrow(/^image local\/gpu-overhead-test:absent is not present locally and could not be pulled/)
  })

  it('allDatacenter: all known data-center → true; any consumer → false; else null', () => {
    expect(allDatacenter(['NVIDIA H200', 'NVIDIA H100 80GB HBM3'])).toBe(true)
    expect(allDatacenter(['NVIDIA H200', 'NVIDIA GeForce RTX 4090'])).toBe(false)
    expect(allDatacenter(['NVIDIA H200', 'Mystery GPU'])).toBeNull()
    expect(allDatacenter([])).toBeNull()
  })
})

describe('gate with the host described by hand (--driver with --brand, --compute-cap, --driver-cuda, --gpu-name)', () => {
  // nvidia/cuda 12.4.1 admits R535 for tesla/nvidia/geforce… but has no vGPU words.
  const host = {
    ...base,
    format: 'json' as const,
    image: CUDA_IMAGE,
    driver: '535.104.05',
    driverCuda: '12.2'
  }
  const requireRow = async (
    more: Partial<GateCommandOptions>
  ): Promise<{ status: string; message: string }> =>
    (
      JSON.parse((await gateCommand({ ...host, ...more })).text) as {
        nvidia_require: { status: string; message: string }
      }
    ).nvidia_require

  it('decides brand conditions from --brand, as nvidia-smi or the toolkit spells it', async () => {
    expect((await requireRow({ brand: 'Tesla', computeCap: '8.0' })).status).toBe('pass')
    expect((await requireRow({ brand: 'GeForceRTX' })).status).toBe('pass')
    const vcs = await requireRow({ brand: 'NVIDIA Virtual Compute Server' })
    expect(vcs.status).toBe('fail')
    expect(vcs.message).toContain('unsatisfied condition: cuda>=12.4, please update your driver')
    // Without a brand the outcome depends on it: a warning, never a guess.
    expect((await requireRow({})).status).toBe('warn')
  })

  it('refuses malformed host facts, and host facts without --driver', async () => {
    await expect(gateCommand({ ...host, brand: 'Radeon' })).rejects.toThrow(/input 'brand'/)
    await expect(gateCommand({ ...host, computeCap: 'sm_90' })).rejects.toThrow(/input 'compute-cap'/)
    await expect(gateCommand({ ...host, driverCuda: '12' })).rejects.toThrow(/input 'driver-cuda'/)
    await expect(gateCommand({ ...host, gpuName: 'H100; rm -rf /' })).rejects.toThrow(/input 'gpu-name'/)
    await expect(gateCommand({ ...base, cuda: '12.4', brand: 'Tesla' })).rejects.toThrow(
      /--brand together with --driver/
    )
  })
})
