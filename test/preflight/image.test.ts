import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { EnvironmentError, InputError } from '../../src/util/errors.js'
import { normalizeRepository, pickRepoDigest, validateImageRef } from '../../src/config/image-ref.js'
import {
  forwardCompatBranches,
  inspectImage,
  parseImageInspect,
  parseRequireCuda,
  requiredCudaOf
} from '../../src/preflight/image.js'
import { execCapture } from '../../src/util/exec.js'

const DOCKER = path.join(import.meta.dirname, '../__fixtures__/docker')
const GPU_HOST = path.join(import.meta.dirname, '../__fixtures__/gpu-host')
const BUILD = path.join(import.meta.dirname, '../__fixtures__/images/build-cuda-style-images.sh')
const json = (dir: string, f: string): unknown => JSON.parse(readFileSync(path.join(dir, f), 'utf8'))
const HEX = 'a'.repeat(64)

describe('validateImageRef', () => {
  it.each([
    'pytorch',
    'ubuntu:22.04',
    'nvidia/cuda:12.4.1-base-ubuntu22.04',
    'nvcr.io/nvidia/pytorch:25.10-py3',
    `nvcr.io/nvidia/pytorch:25.10-py3@sha256:${HEX}`,
    `nvcr.io/nvidia/pytorch@sha256:${HEX}`,
    'localhost:5000/team/img_name.v2:tag-1',
    'REGISTRY.example.com:443/a/b',
    'local/gpu-overhead-test:py',
    `sha256:${HEX}`
  ])('accepts %s', ref => {
    expect(validateImageRef(ref, 'image').ref).toBe(ref)
  })

  it('splits repository, tag and digest', () => {
    expect(validateImageRef(`nvcr.io/nvidia/pytorch:25.10-py3@sha256:${HEX}`, 'image')).toEqual({
      ref: `nvcr.io/nvidia/pytorch:25.10-py3@sha256:${HEX}`,
      repository: 'nvcr.io/nvidia/pytorch',
      tag: '25.10-py3',
      digest: `sha256:${HEX}`
    })
  })

  it.each([
    '',
    ' ',
    'pytorch latest',
    'pytorch\n',
    'img;rm -rf /',
    'img$(id)',
    'img`id`',
    'img|cat',
    'img&&true',
    "img'",
    'img>x',
    '-v/:/host',
    '--privileged',
    'Upper/Case',
    'repo:',
    'repo:tag:extra',
    'repo@sha256:abc',
    `repo@sha512:${HEX}`,
    `repo@sha256:${'A'.repeat(64)}`,
    'repo//x',
    'repo:-tag',
    `repo:${'t'.repeat(129)}`,
    'a\u0000b'
  ])('rejects %j with InputError naming the input', ref => {
    expect(() => validateImageRef(ref, 'baseline-image')).toThrow(InputError)
    try {
      validateImageRef(ref, 'baseline-image')
    } catch (e) {
      expect((e as InputError).input).toBe('baseline-image')
      expect((e as InputError).message).toMatch(/allowed: an image reference/)
    }
  })

  it('rejects non-strings', () => {
    expect(() => validateImageRef(42, 'image')).toThrow(InputError)
  })
})

describe('repo digests', () => {
  it('normalises Docker Hub spellings', () => {
    expect(normalizeRepository('pytorch')).toBe('docker.io/library/pytorch')
    expect(normalizeRepository('nvidia/cuda')).toBe('docker.io/nvidia/cuda')
    expect(normalizeRepository('nvcr.io/nvidia/pytorch')).toBe('nvcr.io/nvidia/pytorch')
    expect(normalizeRepository('localhost/x')).toBe('localhost/x')
  })

  it("picks the ref's own digest, else the matching repository's", () => {
    const b = `sha256:${'b'.repeat(64)}`
    const c = `sha256:${'c'.repeat(64)}`
    const digests = [`mirror.example.com/nvidia/cuda@${b}`, `nvidia/cuda@${c}`]
    expect(pickRepoDigest(validateImageRef('nvidia/cuda:12.4.1-base-ubuntu22.04', 'image'), digests)).toBe(c)
    expect(pickRepoDigest(validateImageRef('docker.io/nvidia/cuda:12.4.1', 'image'), digests)).toBe(c)
    expect(pickRepoDigest(validateImageRef(`nvidia/cuda@sha256:${HEX}`, 'image'), digests)).toBe(
      `sha256:${HEX}`
    )
    expect(pickRepoDigest(validateImageRef('other/img', 'image'), digests)).toBe(b)
    expect(pickRepoDigest(validateImageRef('local/img:tag', 'image'), [])).toBeNull()
  })
})

describe('NVIDIA_REQUIRE_CUDA', () => {
  it('space = OR, comma = AND', () => {
    const req = parseRequireCuda(
      'cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=tesla,driver>=535,driver<536'
    )
    expect(req.alternatives).toEqual([
      [{ key: 'cuda', op: '>=', value: '12.4' }],
      [
        { key: 'brand', op: '=', value: 'tesla' },
        { key: 'driver', op: '>=', value: '470' },
        { key: 'driver', op: '<', value: '471' }
      ],
      [
        { key: 'brand', op: '=', value: 'tesla' },
        { key: 'driver', op: '>=', value: '535' },
        { key: 'driver', op: '<', value: '536' }
      ]
    ])
    expect(requiredCudaOf(req)).toBe('12.4')
    expect(forwardCompatBranches(req)).toEqual([470, 535])
    expect(parseRequireCuda('cuda>=12.4 junk').unparsed).toEqual(['junk'])
  })
})

describe('docker image inspect (recorded)', () => {
  it('nvidia/cuda-style 12.4.1 base image', () => {
    const f = parseImageInspect(
      json(DOCKER, 'image-inspect-nvidia-cuda-style-12.4.1.json'),
      'local/nvidia-cuda-style:12.4.1-base-ubuntu22.04'
    )
    expect(f).toMatchObject({
      cuda_version: '12.4.1',
      cuda_driver_version: null,
      required_cuda: '12.4.1',
      require_vacuous: false,
      compat_package: 'cuda-compat-12-4',
      forward_compat: true,
      forward_compat_branches: [470, 525, 535],
      digest_source: 'image-id',
      repo_digests: []
    })
    expect(f.digest).toBe(f.id)
    expect(f.id).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(requiredCudaOf(f.require_cuda_parsed!)).toBe('12.4')
  })

  it('NGC-style PyTorch 23.10: the vacuous cuda>=9.0 is not the requirement', () => {
    const f = parseImageInspect(
      json(DOCKER, 'image-inspect-ngc-style-pytorch-23.10.json'),
      'local/ngc-style-pytorch:23.10-py3'
    )
    expect(f).toMatchObject({
      cuda_version: '12.2.2.009',
      cuda_driver_version: '535.104.05',
      require_cuda: 'cuda>=9.0',
      require_vacuous: true,
      required_cuda: '12.2.2.009',
      compat_package: null,
      forward_compat: true, // /usr/local/cuda/compat/lib on LD_LIBRARY_PATH
      product: 'PyTorch'
    })
  })

  it('NGC-style PyTorch 25.01', () => {
    const f = parseImageInspect(
      json(DOCKER, 'image-inspect-ngc-style-pytorch-25.01.json'),
      'local/ngc-style-pytorch:25.01-py3'
    )
    expect(f).toMatchObject({
      cuda_version: '12.8.0.038',
      cuda_driver_version: '570.86.10',
      require_vacuous: true,
      forward_compat: false
    })
  })

  it("the GPU host's image built from its own root filesystem", () => {
    const f = parseImageInspect(
      json(GPU_HOST, 'docker-image-inspect-gpu-torch-host.json'),
      'local/gpu-torch:host'
    )
    expect(f).toMatchObject({
      cuda_version: '13.0.2',
      require_cuda: 'cuda>=13.0',
      require_vacuous: false,
      required_cuda: '13.0.2',
      forward_compat: false,
      digest: 'sha256:cd9a8336a8b6d9ecafe3b9ea99de1fae06ed5121562536ff11a6c7a5be81e7d5',
      digest_source: 'image-id'
    })
  })

  it('an absent image inspects to [] and is reported, not guessed', () => {
    expect(json(DOCKER, 'image-inspect-absent.json')).toEqual([])
    expect(() => parseImageInspect([], 'local/gpu-overhead-test:absent')).toThrow(EnvironmentError)
  })
})

describe('inspectImage against the local engine', () => {
  beforeAll(async () => {
    const res = await execCapture('bash', [BUILD])
    if (res.exitCode !== 0) throw new Error(res.stderr)
  })

  it('inspects a present image', async () => {
    const f = await inspectImage('local/nvidia-cuda-style:12.4.1-base-ubuntu22.04', 'docker')
    expect(f.pulled).toBe(false)
    expect(f.required_cuda).toBe('12.4.1')
    expect(f.forward_compat).toBe(true)
  })

  it('absent and not pullable → EnvironmentError naming the image', async () => {
    const err = await inspectImage('nvcr.io/nvidia/pytorch:99.99-py3', 'docker').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EnvironmentError)
    expect((err as Error).message).toMatch(
      /^image nvcr\.io\/nvidia\/pytorch:99\.99-py3 is not present locally and could not be pulled: /
    )
  })

  it('validates the reference before running anything', async () => {
    await expect(inspectImage('x;touch /tmp/pwned', 'docker')).rejects.toThrow(InputError)
  })

  it('a missing runtime is an EnvironmentError', async () => {
    // An empty PATH: missing whatever this machine has installed (CI installs podman too).
    const saved = process.env.PATH
    process.env.PATH = mkdtempSync(path.join(os.tmpdir(), 'empty-path-'))
    try {
      await expect(inspectImage('local/x:y', 'podman')).rejects.toThrow(/podman not found on PATH/)
    } finally {
      process.env.PATH = saved
    }
  })
})
