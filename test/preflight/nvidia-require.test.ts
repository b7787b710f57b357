import { imageCuda } from '../../src/preflight/driver-checks.js'
import { parseImageInspect } from '../../src/preflight/image.js'
import { evaluateRequirement, imageRequirements, requireGate } from '../../src/preflight/nvidia-require.js'
import type { HostFacts } from '../../src/preflight/nvidia-require.js'

// ENV NVIDIA_REQUIRE_CUDA of nvidia/cuda:12.0.0-base-ubuntu22.04 and 12.4.1-base-ubuntu22.04, verbatim from
// NVIDIA's Dockerfiles (gitlab.com/nvidia/container-images/cuda dist/12.0.0/ubuntu2204/base/Dockerfile and
// dist/12.4.1/ubuntu2204/base/Dockerfile; the 12.4.1 one is also in test/__fixtures__/images/build-cuda-style-images.sh).
const BRANDS = [
  'tesla',
  'unknown',
  'nvidia',
  'nvidiartx',
  'geforce',
  'geforcertx',
  'quadro',
  'quadrortx',
  'titan',
  'titanrtx'
]
const branch = (b: number): string => BRANDS.map(x => `brand=${x},driver>=${b},driver<${b + 1}`).join(' ')
const REQ_12_0 = `cuda>=12.0 brand=tesla,driver>=450,driver<451 ${branch(470)} ${branch(510)} ${branch(515)} ${branch(520)}`
const REQ_12_4 = `cuda>=12.4 ${branch(470)} ${branch(525)} ${branch(535)}`
// Every NGC framework image (nvcr.io/nvidia/pytorch:23.10-py3, 25.01-py3): vacuous.
const NGC_ENV = {
  NVIDIA_REQUIRE_CUDA: 'cuda>=9.0',
  CUDA_VERSION: '12.2.2.009',
  CUDA_DRIVER_VERSION: '535.104.05'
}

// The H200 host of DESIGN.md: driver 580.159.04, CUDA 13.0, nvidia-smi -q "Product Brand: NVIDIA".
const H200: HostFacts = { driver: '580.159.04', driverCuda: '13.0', gpus: [{ brand: 'NVIDIA', arch: '9.0' }] }
const host = (
  driver: string,
  driverCuda: string,
  brand: string | null = 'Tesla',
  arch = '8.0'
): HostFacts => ({
  driver,
  driverCuda,
  gpus: [{ brand, arch }]
})
const req = (expression: string) => ({ source: 'NVIDIA_REQUIRE_CUDA', expression })

describe('NVIDIA_REQUIRE_* evaluated like the NVIDIA Container Toolkit', () => {
  test('issue 17 case 10: cuda>=13.2 on a CUDA 13.0 driver → FAIL under gpus, WARN with the same words under cdi/devices', () => {
    const env = {
      CUDA_VERSION: '13.0.2',
      NVIDIA_REQUIRE_CUDA: 'cuda>=13.2 brand=tesla,driver>=570,driver<571'
    }
    const gpus = requireGate(env, H200, 'gpus')
    expect(gpus.status).toBe('fail')
    expect(gpus.message).toContain(
      'unsatisfied condition: cuda>=13.2, please update your driver to a newer version, or use an earlier cuda container'
    )
    expect(gpus.message).toContain('driver 580.159.04 supports CUDA 13.0')
    expect(gpus.outcomes[0]!.failed).toEqual(['cuda>=13.2', 'brand=tesla'])
    for (const access of ['cdi', 'devices'] as const) {
      const r = requireGate(env, H200, access)
      expect(r.status).toBe('warn')
      expect(r.message).toContain('unsatisfied condition: cuda>=13.2')
      expect(r.message).toContain(`gpu-access ${access}`)
    }
  })

  test('real nvidia/cuda 12.4.1 requirement: H200 on 580 passes through cuda>=12.4', () => {
    expect(requireGate({ NVIDIA_REQUIRE_CUDA: REQ_12_4, CUDA_VERSION: '12.4.1' }, H200, 'gpus').status).toBe(
      'pass'
    )
  })

  test('real nvidia/cuda 12.4.1 requirement on older drivers: the forward-compat branches decide', () => {
    // 535 branch (CUDA 12.2): an alternative brand=X,driver>=535,driver<536 holds for every listed brand.
    expect(evaluateRequirement(req(REQ_12_4), host('535.104.05', '12.2', 'Tesla')).result).toBe('satisfied')
    expect(evaluateRequirement(req(REQ_12_4), host('535.104.05', '12.2', 'GeForce RTX')).result).toBe(
      'satisfied'
    )
    // 545 (CUDA 12.3): no alternative covers it → refused, named by the first alternative.
    const r = evaluateRequirement(req(REQ_12_4), host('545.23.06', '12.3'))
    expect(r.result).toBe('unsatisfied')
    expect(r.message).toMatch(/^unsatisfied condition: cuda>=12\.4, please update your driver/)
    // 550 supports CUDA 12.4.
    expect(evaluateRequirement(req(REQ_12_4), host('550.54.14', '12.4')).result).toBe('satisfied')
  })

  test('real nvidia/cuda 12.0.0 requirement: brand=tesla,driver>=450 only for Tesla', () => {
    expect(evaluateRequirement(req(REQ_12_0), host('450.80.02', '11.0', 'Tesla')).result).toBe('satisfied')
    expect(evaluateRequirement(req(REQ_12_0), host('450.80.02', '11.0', 'GeForce')).result).toBe(
      'unsatisfied'
    )
    expect(evaluateRequirement(req(REQ_12_0), host('520.61.05', '11.8', 'Quadro RTX')).result).toBe(
      'satisfied'
    )
  })

  test('NGC images: the vacuous cuda>=9.0 holds on any modern driver', () => {
    expect(requireGate(NGC_ENV, host('525.60.13', '12.0'), 'gpus').status).toBe('pass')
  })

  test('a met requirement under cdi or devices says that this gate was the only check (issue 54)', () => {
    const h = host('580.65.06', '13.0')
    expect(requireGate(NGC_ENV, h, 'gpus').message).not.toContain('this gate did')
    expect(requireGate(NGC_ENV, h, 'cdi').message).toMatch(
      /under gpu-access cdi neither the engine nor CDI checks them: this gate did$/
    )
    expect(requireGate(NGC_ENV, h, 'devices').message).toContain(
      'nor the device nodes checks them: this gate did'
    )
  })

  test('legacy image: CUDA_VERSION without NVIDIA_REQUIRE_CUDA requires cuda>=MAJOR.MINOR', () => {
    expect(imageRequirements({ CUDA_VERSION: '12.8.0' }).requirements).toEqual([
      { source: 'CUDA_VERSION (legacy)', expression: 'cuda>=12.8' }
    ])
    expect(requireGate({ CUDA_VERSION: '12.8.0' }, host('550.54.14', '12.4'), 'gpus').status).toBe('fail')
  })

  test('NVIDIA_DISABLE_REQUIRE follows Go ParseBool; JETPACK requirements are not checked', () => {
    expect(
      imageRequirements({ NVIDIA_DISABLE_REQUIRE: 'true', NVIDIA_REQUIRE_CUDA: 'cuda>=99' }).disabled
    ).toBe(true)
    expect(
      imageRequirements({ NVIDIA_DISABLE_REQUIRE: 'yes', NVIDIA_REQUIRE_CUDA: 'cuda>=99' }).disabled
    ).toBe(false)
    expect(imageRequirements({ NVIDIA_REQUIRE_JETPACK: 'csv-mounts=all' }).requirements).toEqual([])
  })

  test('every NVIDIA_REQUIRE_* must hold (AND across variables), arch per GPU', () => {
    const env = { NVIDIA_REQUIRE_CUDA: 'cuda>=12.0', NVIDIA_REQUIRE_ARCH: 'arch>=9.0' }
    const r = requireGate(env, host('580.65.06', '13.0', 'NVIDIA', '8.0'), 'gpus')
    expect(r.status).toBe('fail')
    expect(r.message).toContain('NVIDIA_REQUIRE_ARCH: unsatisfied condition: arch>=9.0')
  })

  test('each visible GPU must satisfy brand conditions', () => {
    const two: HostFacts = {
      driver: '470.57.02',
      driverCuda: '11.4',
      gpus: [
        { brand: 'Tesla', arch: '8.0' },
        { brand: 'GeForce', arch: '8.6' }
      ]
    }
    expect(evaluateRequirement(req('cuda>=12.0 brand=tesla,driver>=470,driver<471'), two).result).toBe(
      'unsatisfied'
    )
    expect(
      evaluateRequirement(req('cuda>=12.0 brand=tesla,driver>=470,driver<471 brand=geforce,driver>=470'), two)
        .result
    ).toBe('satisfied')
  })

  test('an unknown brand leaves the outcome undecided only when it matters', () => {
    expect(evaluateRequirement(req(REQ_12_4), host('580.65.06', '13.0', null)).result).toBe('satisfied')
    const r = requireGate({ NVIDIA_REQUIRE_CUDA: REQ_12_4 }, host('535.104.05', '12.2', null), 'gpus')
    expect(r.status).toBe('warn')
    expect(r.outcomes[0]!.result).toBe('unknown')
  })

  test('grammar (more in toolkit-dsl.test.ts): invalid expressions refuse under gpus, named by the condition', () => {
    const h = host('580.65.06', '13.0')
    for (const bad of ['cuda=>12', 'cuda>=12.4a', 'foo>=1', 'cuda>=', '>=12', 'brand>tesla', 'cuda'])
      expect(evaluateRequirement(req(bad), h)).toMatchObject({
        result: 'invalid',
        message: 'invalid expression',
        failed: [bad]
      })
    const r = requireGate({ NVIDIA_REQUIRE_CUDA: 'cuda=>12' }, h, 'gpus')
    expect(r.status).toBe('fail')
    expect(r.message).toContain('NVIDIA_REQUIRE_CUDA: invalid expression (at cuda=>12)')
    expect(evaluateRequirement(req(''), h).result).toBe('satisfied')
  })

  test('arch is decided with the compute capability nvidia-smi reports (issue 31, item 5)', () => {
    expect(evaluateRequirement(req('arch>=sm_90'), host('580.65.06', '13.0', 'NVIDIA', '9.0')).result).toBe(
      'invalid'
    )
    expect(evaluateRequirement(req('arch>=9.0'), host('580.65.06', '13.0', 'NVIDIA', '9.0')).result).toBe(
      'satisfied'
    )
    // Unknown compute capability: explored, not guessed.
    const noArch: HostFacts = {
      driver: '580.65.06',
      driverCuda: '13.0',
      gpus: [{ brand: 'NVIDIA', arch: null }]
    }
    expect(evaluateRequirement(req('arch>=9.0'), noArch)).toMatchObject({
      result: 'unknown',
      undecided: ['arch']
    })
    expect(requireGate({ NVIDIA_REQUIRE_ARCH: 'arch>=9.0' }, noArch, 'gpus').message).toContain(
      "the GPU's compute capability, which is unknown"
    )
  })
})

describe('the CUDA version the driver gate checks for a legacy image (semver CUDA_VERSION)', () => {
  const facts = (env: string[]) =>
    parseImageInspect([{ Id: `sha256:${'a'.repeat(64)}`, Config: { Env: env } }], 'local/legacy:1')
  test('13 and v12.6 are read as the toolkit reads them; a version semver rejects gives none', () => {
    expect(imageCuda(facts(['CUDA_VERSION=13']))).toBe('13.0')
    expect(imageCuda(facts(['CUDA_VERSION=v12.6']))).toBe('12.6')
    expect(imageCuda(facts(['CUDA_VERSION=12.4.1']))).toBe('12.4.1')
    expect(imageCuda(facts(['CUDA_VERSION=banana']))).toBeNull()
    // Not legacy (NVIDIA_REQUIRE_CUDA set): the image's own requirement decides, as before.
    expect(imageCuda(facts(['CUDA_VERSION=13', 'NVIDIA_REQUIRE_CUDA=cuda>=12.8']))).toBe('12.8')
  })
})
