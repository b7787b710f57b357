/**
 * The compat probe on real containers: `docker import` of a root filesystem holding this machine's `find` (with
 * the libraries it links) and the layout of nvidia/cuda 13.0.1's cuda-compat package
 * (/usr/local/cuda-13.0/compat/libcuda.so.580.82.07, /usr/local/cuda → cuda-13.0), ENV without
 * NV_CUDA_COMPAT_PACKAGE as nvidia/cuda images from 12.5.1 on. Images are removed afterwards.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  compatProbeCommand,
  compatProbeMatters,
  parseCompatListing,
  probeCompatLibs
} from '../../src/preflight/compat-probe.js'
import { driverChecks } from '../../src/preflight/driver-checks.js'
import { inspectImage } from '../../src/preflight/image.js'
import { execCapture } from '../../src/util/exec.js'

const TAG = 'local/gpu-overhead-test:compat'
const REQ_13_0_1 = 'cuda>=13.0 brand=nvidia,driver>=535,driver<536 brand=tesla,driver>=535,driver<536'
const IMAGES = {
  compat: { files: true, find: true },
  nocompat: { files: false, find: true },
  nofind: { files: true, find: false }
} as const
type Name = keyof typeof IMAGES
const tag = (n: Name): string => `${TAG}-${n}`

/** The binary and every library it links, at the same paths (ldd's view of this machine). */
async function copyWithLibs(root: string, bin: string): Promise<void> {
  const ldd = await execCapture('ldd', [bin])
  if (ldd.exitCode !== 0) throw new Error(ldd.stderr)
  const paths = [bin, ...[...ldd.stdout.matchAll(/(\/\S+)\s+\(0x/g)].map(m => m[1]!)]
  for (const p of paths) {
    mkdirSync(path.join(root, path.dirname(p)), { recursive: true })
    copyFileSync(p, path.join(root, p))
  }
}

let dir: string
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'compat-probe-'))
  for (const [name, spec] of Object.entries(IMAGES) as [Name, (typeof IMAGES)[Name]][]) {
    const root = path.join(dir, name)
    mkdirSync(path.join(root, 'usr/local'), { recursive: true })
    if (spec.find) await copyWithLibs(root, '/usr/bin/find')
    if (spec.files) {
      const compat = path.join(root, 'usr/local/cuda-13.0/compat')
      mkdirSync(compat, { recursive: true })
      writeFileSync(path.join(compat, 'libcuda.so.580.82.07'), 'not a real library\n')
      symlinkSync('libcuda.so.580.82.07', path.join(compat, 'libcuda.so.1'))
      symlinkSync('cuda-13.0', path.join(root, 'usr/local/cuda'))
    }
    const tar = path.join(dir, `${name}.tar`)
    const made = await execCapture('tar', ['-C', root, '-cf', tar, '.'])
    if (made.exitCode !== 0) throw new Error(made.stderr)
    const env = ['CUDA_VERSION=13.0.1', `NVIDIA_REQUIRE_CUDA="${REQ_13_0_1}"`].flatMap(kv => [
      '-c',
      `ENV ${kv}`
    ])
    const res = await execCapture('docker', ['import', ...env, tar, tag(name)])
    if (res.exitCode !== 0) throw new Error(res.stderr)
  }
}, 120_000)
afterAll(async () => {
  await execCapture('docker', ['rmi', ...(Object.keys(IMAGES) as Name[]).map(tag)])
  rmSync(dir, { recursive: true, force: true })
})

describe('compat probe (a short container listing /usr/local/cuda*/compat/)', () => {
  test('finds the compat libcuda and its driver version, not the libcuda.so.1 link', async () => {
    const image = await inspectImage(tag('compat'), 'docker', { pull: false })
    expect(image.forward_compat).toBe(false) // nothing in the ENV says so
    const probe = await probeCompatLibs(image.id, 'docker')
    expect(probe).toEqual({
      status: 'found',
      libs: ['/usr/local/cuda-13.0/compat/libcuda.so.580.82.07'],
      versions: ['580.82.07'],
      error: null
    })
  }, 60_000)

  test('none in an image without them; failed (not none) where the listing cannot run', async () => {
    const none = await inspectImage(tag('nocompat'), 'docker', { pull: false })
    expect(await probeCompatLibs(none.id, 'docker')).toMatchObject({ status: 'none', versions: [] })
    const nofind = await inspectImage(tag('nofind'), 'docker', { pull: false })
    const failed = await probeCompatLibs(nofind.id, 'docker')
    expect(failed.status).toBe('failed')
    expect(failed.error).toMatch(/^exit 12[67]/)
  }, 60_000)

  test('issue 31 item 7: an H100 on R535 runs a CUDA 13.0.1 image through its compat libraries', async () => {
    const image = await inspectImage(tag('compat'), 'docker', { pull: false })
    const h100 = {
      driver: '535.104.05',
      driverCuda: '12.2',
      gpus: [{ name: 'NVIDIA H100 80GB HBM3', brand: 'NVIDIA', compute_cap: '9.0' }]
    }
    expect(compatProbeMatters(image.required_cuda, h100.driver)).toBe(true)
    const compat = await probeCompatLibs(image.id, 'docker')
    const rows = driverChecks({ image, host: h100, strict: false, access: 'gpus', compat })
    expect(rows.map(r => [r.name, r.status])).toEqual([
      ['driver-gate', 'pass'],
      ['nvidia-require', 'pass']
    ])
    expect(rows[0]!.details).toMatchObject({ reason: 'forward-compat', compat_driver: '580.82.07' })
    // Without the probe the ENV says nothing, and the driver is below the 13.x floor.
    expect(driverChecks({ image, host: h100, strict: false, access: 'gpus' })[0]!.status).toBe('fail')
    // A GeForce on R535 runs no compat libraries: refused by the toolkit's requirement, failed by the gate.
    const geforce = {
      ...h100,
      gpus: [{ name: 'NVIDIA GeForce RTX 4090', brand: 'GeForce RTX', compute_cap: '8.9' }]
    }
    expect(
      driverChecks({ image, host: geforce, strict: false, access: 'gpus', compat }).map(r => r.status)
    ).toEqual(['fail', 'fail'])
  }, 60_000)
})

describe('compat probe parsing', () => {
  test('the find arguments and the listing', () => {
    expect(compatProbeCommand()).toContain('libcuda.so.*.*')
    expect(
      parseCompatListing(
        '/usr/local/cuda-12.2/compat/lib.real/libcuda.so.535.104.05\n/usr/local/cuda-12.2/compat/lib.real/libcuda.so.1\nnoise\n'
      )
    ).toEqual({
      libs: ['/usr/local/cuda-12.2/compat/lib.real/libcuda.so.535.104.05'],
      versions: ['535.104.05']
    })
  })

  test('matters only on a driver older than the release driver of the image CUDA', () => {
    expect(compatProbeMatters('13.0.1', '580.159.04')).toBe(false)
    expect(compatProbeMatters('13.0.1', '580.65.06')).toBe(true)
    expect(compatProbeMatters('13.5', '600.1')).toBe(true) // newer than the table
    expect(compatProbeMatters(null, '580.65.06')).toBe(false)
  })
})

test('the listing is untrusted: only compat libcuda paths of plain characters are taken', () => {
  expect(
    parseCompatListing(
      [
        '/usr/local/cuda-13.0/compat/libcuda.so.580.82.07',
        '/usr/local/cuda-13.0/compat/\u001b[2Jx/libcuda.so.999.1',
        '/etc/libcuda.so.600.1',
        `/usr/local/cuda-13.0/compat/libcuda.so.${'9'.repeat(40)}.1`
      ].join('\n')
    ).versions
  ).toEqual(['580.82.07'])
})
