import { readFileSync } from 'node:fs'
import path from 'node:path'
import {
  compareVersion,
  evaluatePredicate,
  known,
  parseCondition,
  UNKNOWN,
  type DslContext
} from '../../src/preflight/toolkit-dsl.js'
import { toolkitBrand, TOOLKIT_BRANDS } from '../../src/preflight/toolkit-brand.js'
import { imageRequirements, parseMajorMinorVersion, requireGate } from '../../src/preflight/nvidia-require.js'
import { envMap } from '../../src/preflight/image.js'
import {
  DSL_CASES,
  DSL_NO_DEVICE_CASES,
  GO_GET_REQUIREMENTS,
  GO_PARSE_MAJOR_MINOR_INVALID,
  GO_PARSE_MAJOR_MINOR_VALID
} from './toolkit-cases.js'

const HOST: DslContext = {
  cuda: known('13.0'),
  driver: known('580.65.06'),
  device: { arch: known('9.0'), brand: known('Nvidia') }
}

describe('libnvidia-container dsl.c, case by case (test/preflight/toolkit-cases.ts)', () => {
  test.each(DSL_CASES.map(c => [c.predicate.slice(0, 60), c] as const))('%s', (_, c) => {
    const r = evaluatePredicate(c.predicate, HOST)
    expect({ result: r.result, why: c.why }).toEqual({ result: c.expect, why: c.why })
    if (c.message !== undefined) expect(r.message).toBe(c.message)
    if (c.expect === 'invalid') expect(r.message).toBe('invalid expression')
  })

  test.each(DSL_NO_DEVICE_CASES.map(c => [c.predicate, c.expect] as const))(
    'no GPU visible: %s → %s',
    (predicate, expected) => {
      expect(evaluatePredicate(predicate, { ...HOST, device: null }).result).toBe(expected)
    }
  )

  test('operator table: the run of <>=! is matched as a prefix, in dsl.c order', () => {
    const ops = ['=', '!', '!=', '<', '<=', '>', '>='].map(o => parseCondition(`cuda${o}1`)?.op)
    expect(ops).toEqual(['=', '!=', '!=', '<', '<=', '>', '>='])
    for (const bad of ['==', '=>', '=<', '<>', '><', '!<', '!==', '>>', '<=='])
      expect(parseCondition(`cuda${bad}1`)).toBeNull()
  })

  test('dsl_compare_version', () => {
    expect(compareVersion('12', '=', '12.0.0')).toBe(true)
    expect(compareVersion('12.10', '>', '12.9')).toBe(true)
    expect(compareVersion('580.159.04', '<', '580.65.06')).toBe(false)
    expect(compareVersion('570', '<', '570.1')).toBe(true)
    expect(compareVersion('570.0', '>=', '570')).toBe(true)
    expect(compareVersion('12.05', '>', '12.5')).toBe(false)
    expect(compareVersion('12', '<', '12.05')).toBe(true)
    expect(compareVersion('12.a', '>=', '12')).toBeNull()
    expect(compareVersion('', '=', '')).toBe(true)
  })
})

describe('brand words: nvidia-smi "Product Brand" → what brand= compares with (src/driver.c)', () => {
  /**
   * nvidia-smi's "Product Brand" for each NVML brand, in NVML's enum order (nvmlBrandType_t: QUADRO = 1 … TITAN_RTX =
   * 16, then UNKNOWN = 0): test data from NVML and nvidia-smi, not the product's table.
   */
  const SMI_BY_NVML = [
    ['QUADRO', 'Quadro'],
    ['TESLA', 'Tesla'],
    ['NVS', 'NVS'],
    ['GRID', 'Grid'],
    ['GEFORCE', 'GeForce'],
    ['TITAN', 'Titan'],
    ['NVIDIA_VAPPS', 'NVIDIA Virtual Applications'],
    ['NVIDIA_VPC', 'NVIDIA Virtual PC'],
    ['NVIDIA_VCS', 'NVIDIA Virtual Compute Server'],
    ['NVIDIA_VWS', 'NVIDIA RTX Virtual Workstation'],
    ['NVIDIA_CLOUD_GAMING', 'NVIDIA Cloud Gaming'],
    ['QUADRO_RTX', 'Quadro RTX'],
    ['NVIDIA_RTX', 'NVIDIA RTX'],
    ['NVIDIA', 'NVIDIA'],
    ['GEFORCE_RTX', 'GeForce RTX'],
    ['TITAN_RTX', 'Titan RTX'],
    ['UNKNOWN', 'Unknown']
  ] as const

  test("every NVML brand nvidia-smi names maps to the toolkit's word for it, one word each (the table, in NVML order)", () => {
    expect(SMI_BY_NVML.map(([, smi]) => toolkitBrand(smi))).toEqual([...TOOLKIT_BRANDS])
    // The toolkit's own word (a `--brand` given by hand) reads as itself.
    for (const word of TOOLKIT_BRANDS) expect(toolkitBrand(word.toUpperCase())).toBe(word)
    expect(toolkitBrand('Something New')).toBeNull()
    expect(toolkitBrand(null)).toBeNull()
  })

  test('the words of libnvidia-container src/driver.c that predate the vGPU brands, as it spells them', () => {
    // driver_get_device_brand_1_svc (NVIDIA/libnvidia-container src/driver.c, read at 947344949f26): the switch
    // over NVML's brand and its `default: buf = "Unknown"`.
    const DRIVER_C: Record<string, string> = {
      QUADRO: 'Quadro',
      TESLA: 'Tesla',
      NVS: 'NVS',
      GRID: 'GRID',
      GEFORCE: 'GeForce',
      TITAN: 'TITAN',
      UNKNOWN: 'Unknown'
    }
    for (const [nvml, smi] of SMI_BY_NVML)
      if (DRIVER_C[nvml] !== undefined) expect([nvml, toolkitBrand(smi)]).toEqual([nvml, DRIVER_C[nvml]])
  })

  test("every brand word NVIDIA's own images compare with is a toolkit word, and the table holds no other", () => {
    // NVIDIA_REQUIRE_CUDA of nvidia/cuda 12.0.0, 12.4.1, 12.6.3 and 13.0.2 as NVIDIA's Dockerfiles set it
    // (test/__fixtures__/toolkit/image-verdicts.json names each source): written against the toolkit's words.
    const { images } = JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../__fixtures__/toolkit/image-verdicts.json'), 'utf8')
    ) as { images: Record<string, { env: Record<string, string> }> }
    const used = new Set(
      Object.values(images).flatMap(i =>
        [...(i.env['NVIDIA_REQUIRE_CUDA'] ?? '').matchAll(/brand=(\w+)/g)].map(m => m[1]!.toLowerCase())
      )
    )
    const words = TOOLKIT_BRANDS.map(w => w.toLowerCase())
    expect([...used].filter(w => !words.includes(w))).toEqual([])
    // NVS alone is in no image's list (driver.c names it, test above).
    expect(words.filter(w => !used.has(w))).toEqual(['nvs'])
  })

  test('vGPU: brand=vcs holds on an NVIDIA Virtual Compute Server GPU (issue 31, item 1)', () => {
    const vcs: DslContext = {
      cuda: known('12.2'),
      driver: known('535.104.05'),
      device: { arch: known('9.0'), brand: known(toolkitBrand('NVIDIA Virtual Compute Server')) }
    }
    // The shape of nvidia/cuda 12.5+ NVIDIA_REQUIRE_CUDA: vGPU brand words per driver branch.
    const req = ['tesla', 'nvidia', 'vapps', 'vpc', 'vcs', 'vws', 'cloudgaming']
      .map(b => `brand=${b},driver>=535,driver<536`)
      .join(' ')
    expect(evaluatePredicate(`cuda>=12.5 ${req}`, vcs).result).toBe('satisfied')
    expect(evaluatePredicate('cuda>=12.5 brand=tesla,driver>=535,driver<536', vcs).result).toBe('unsatisfied')
  })

  test('an unknown brand is explored over every toolkit word, decided only when all agree', () => {
    const unknownBrand: DslContext = { ...HOST, device: { arch: known('9.0'), brand: UNKNOWN } }
    expect(evaluatePredicate('cuda>=12.0 brand=tesla,driver>=470', unknownBrand).result).toBe('satisfied')
    expect(evaluatePredicate('cuda>=13.2 brand=tesla,driver>=580', unknownBrand)).toMatchObject({
      result: 'unknown',
      undecided: ['brand']
    })
    // Whatever the brand, `brand>x` is invalid once a GPU is visible.
    expect(evaluatePredicate('brand>tesla', unknownBrand).result).toBe('invalid')
    const all = TOOLKIT_BRANDS.map(b => `brand=${b}`).join(' ')
    expect(evaluatePredicate(`cuda>=99 ${all}`, unknownBrand).result).toBe('satisfied')
  })

  test('an unknown compute capability or CUDA version is explored around every threshold', () => {
    const noArch: DslContext = { ...HOST, device: { arch: UNKNOWN, brand: known('Nvidia') } }
    expect(evaluatePredicate('arch>=9.0', noArch)).toMatchObject({ result: 'unknown', undecided: ['arch'] })
    expect(evaluatePredicate('arch>=sm_90', noArch).result).toBe('invalid')
    expect(evaluatePredicate('arch>=0', noArch).result).toBe('satisfied')
    const noCuda: DslContext = { ...HOST, cuda: UNKNOWN }
    expect(evaluatePredicate('cuda>=12.4', noCuda).result).toBe('unknown')
    // Between 12.4 and 12.5 lies 12.4.1: the gap is visited.
    expect(evaluatePredicate('cuda>12.4,cuda<12.5', noCuda).result).toBe('unknown')
    expect(evaluatePredicate('cuda>=12.4 cuda<12.4', noCuda).result).toBe('satisfied')
  })
})

describe('nvidia-container-toolkit cuda_image.go, its own Go tests (test/preflight/toolkit-cases.ts)', () => {
  test.each(GO_PARSE_MAJOR_MINOR_VALID)('parseMajorMinorVersion(%s) = %s', (version, expected) => {
    expect(parseMajorMinorVersion(version)).toBe(expected)
  })

  test.each(GO_PARSE_MAJOR_MINOR_INVALID.map(v => [v]))('parseMajorMinorVersion(%s) fails', version => {
    expect(parseMajorMinorVersion(version)).toBeInstanceOf(Error)
  })

  test.each(GO_GET_REQUIREMENTS.map(c => [c.description, c] as const))('GetRequirements: %s', (_, c) => {
    const { requirements } = imageRequirements(envMap(c.env))
    expect(requirements.map(r => r.expression).sort()).toEqual([...c.requirements].sort())
  })

  test('semver details of the legacy CUDA_VERSION (issue 31, item 4)', () => {
    expect(imageRequirements({ CUDA_VERSION: '13' }).requirements[0]!.expression).toBe('cuda>=13.0')
    expect(imageRequirements({ CUDA_VERSION: 'v12.6' }).requirements[0]!.expression).toBe('cuda>=12.6')
    expect(imageRequirements({ CUDA_VERSION: '12.4.1-rc1+build.7' }).requirements[0]!.expression).toBe(
      'cuda>=12.4'
    )
    expect(parseMajorMinorVersion('12.4.1-rc.01')).toBeInstanceOf(Error)
    expect(parseMajorMinorVersion('1'.repeat(257))).toBeInstanceOf(Error)
    // NGC's four-part CUDA_VERSION is no semver: a legacy image carrying it is refused by the hook.
    const [legacy] = imageRequirements({ CUDA_VERSION: '12.2.2.009' }).requirements
    expect(legacy).toMatchObject({ source: 'CUDA_VERSION (legacy)' })
    expect(legacy!.error).toMatch(/invalid CUDA version 12\.2\.2\.009/)
    const gate = requireGate(
      { CUDA_VERSION: '12.2.2.009' },
      { driver: '580.65.06', driverCuda: '13.0', gpus: [] },
      'gpus'
    )
    expect(gate.status).toBe('fail')
    // …while an NGC image (with its vacuous NVIDIA_REQUIRE_CUDA) is not legacy and starts.
    const ngc = { CUDA_VERSION: '12.2.2.009', NVIDIA_REQUIRE_CUDA: 'cuda>=9.0' }
    expect(requireGate(ngc, { driver: '580.65.06', driverCuda: '13.0', gpus: [] }, 'gpus').status).toBe(
      'pass'
    )
    // An empty NVIDIA_REQUIRE_CUDA counts as absent (IsLegacy), and is itself an empty, satisfied requirement.
    expect(
      imageRequirements({ CUDA_VERSION: '12.8.0', NVIDIA_REQUIRE_CUDA: '' }).requirements.map(
        r => r.expression
      )
    ).toEqual(['', 'cuda>=12.8'])
  })

  test('more than 32 requirements: nvidia-container-cli refuses ("too many requirements")', () => {
    const env: Record<string, string> = {}
    for (let i = 0; i < 33; i++) env[`NVIDIA_REQUIRE_X${i}`] = 'cuda>=1.0'
    const r = requireGate(env, { driver: '580.65.06', driverCuda: '13.0', gpus: [] }, 'gpus')
    expect(r.status).toBe('fail')
    expect(r.message).toContain('too many requirements')
    delete env.NVIDIA_REQUIRE_X0
    expect(requireGate(env, { driver: '580.65.06', driverCuda: '13.0', gpus: [] }, 'gpus').status).toBe(
      'pass'
    )
  })
})

describe("libnvidia-container's own verdicts (test/__fixtures__/toolkit/dsl-verdicts.json)", () => {
  interface Recorded {
    host: { cuda: string; driver: string; arch: string | null; brand: string | null }
    predicate: string
    result: 'satisfied' | 'unsatisfied' | 'invalid'
    message: string | null
  }
  const { cases } = JSON.parse(
    readFileSync(path.join(import.meta.dirname, '../__fixtures__/toolkit/dsl-verdicts.json'), 'utf8')
  ) as { cases: Recorded[] }

  test('600 recorded cases, all three outcomes on every host', () => {
    expect(cases).toHaveLength(600)
    for (const r of ['satisfied', 'unsatisfied', 'invalid'])
      expect(cases.filter(c => c.result === r).length).toBeGreaterThan(20)
  })

  test.each(cases.map((c, i) => [i, c] as const))('case %d', (_, c) => {
    const ctx: DslContext = {
      cuda: known(c.host.cuda),
      driver: known(c.host.driver),
      device: c.host.brand === null ? null : { arch: known(c.host.arch), brand: known(c.host.brand) }
    }
    const r = evaluatePredicate(c.predicate, ctx)
    expect({ result: r.result, message: r.message }).toEqual({
      result: c.result,
      message: c.result === 'satisfied' ? null : c.message
    })
  })
})

describe('real images on hosts of each brand (test/__fixtures__/toolkit/image-verdicts.json)', () => {
  interface Verdict {
    image: string
    host: { product_brand: string; cuda: string; driver: string; arch: string }
    result: 'satisfied' | 'unsatisfied'
    message: string | null
  }
  const { images, verdicts } = JSON.parse(
    readFileSync(path.join(import.meta.dirname, '../__fixtures__/toolkit/image-verdicts.json'), 'utf8')
  ) as { images: Record<string, { env: Record<string, string> }>; verdicts: Verdict[] }

  test('vGPU and GeForce hosts are among the refusals the toolkit makes and the starts it allows', () => {
    const on = (brand: string, driver: string, image: string): string | undefined =>
      verdicts.find(
        v => v.host.product_brand === brand && v.host.driver.startsWith(driver) && v.image.includes(image)
      )?.result
    // nvidia/cuda 12.6.3 and 13.0.2 list vcs for R535; 12.4.1 predates the vGPU words.
    expect(on('NVIDIA Virtual Compute Server', '535.', '12.6.3')).toBe('satisfied')
    expect(on('NVIDIA Virtual Compute Server', '535.', '13.0.2')).toBe('satisfied')
    expect(on('NVIDIA Virtual Compute Server', '535.', '12.4.1')).toBe('unsatisfied')
    // No geforce word in the 13.0.2 list: a GeForce on R535 is refused, a data-center GPU is not.
    expect(on('GeForce RTX', '535.', '13.0.2')).toBe('unsatisfied')
    expect(on('NVIDIA', '535.', '13.0.2')).toBe('satisfied')
  })

  test.each(verdicts.map(v => [`${v.image} on ${v.host.product_brand} ${v.host.driver}`, v] as const))(
    '%s',
    (_, v) => {
      const host = {
        driver: v.host.driver,
        driverCuda: v.host.cuda,
        gpus: [{ brand: v.host.product_brand, arch: v.host.arch }]
      }
      const gate = requireGate(images[v.image]!.env, host, 'gpus')
      expect(gate.status).toBe(v.result === 'satisfied' ? 'pass' : 'fail')
      if (v.message !== null) expect(gate.message).toContain(`NVIDIA_REQUIRE_CUDA: ${v.message}`)
    }
  )
})

test('exploring unknown facts is bounded: a huge predicate from the image is left undecided, fast', () => {
  const huge = Array.from({ length: 20_000 }, (_, i) => `cuda>=${i}.1,brand=tesla`).join(' ')
  const started = Date.now()
  const r = evaluatePredicate(huge, {
    ...HOST,
    cuda: UNKNOWN,
    device: { arch: known('9.0'), brand: UNKNOWN }
  })
  expect(r).toMatchObject({ result: 'unknown', undecided: ['cuda', 'brand'] })
  expect(Date.now() - started).toBeLessThan(5_000)
  // With every fact known it is one pass, decided.
  expect(evaluatePredicate(huge, HOST).result).toBe('unsatisfied')
})
